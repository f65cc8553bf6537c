package core

import (
	"context"
	"runtime/trace"
	"strconv"
	"sync"
	"sync/atomic"
)

// Execution-trace annotations: while runtime/trace is enabled (trace.Start,
// go test -trace, or a trace.FlightRecorder), every task of a primitive is
// a runtime/trace task, so that go tool trace, gotraceui and the
// playground show a service's queues. The reader depends on this
// contract, which is kept exactly:
//
//   - One trace task per task, created when the task is enqueued (accepted:
//     a refused Submit makes none), as a child of the submitter's context's
//     trace task. Its type names the primitive: "sluice.WorkQueue",
//     "sluice.Processor", "sluice.KeyedQueue", "sluice.Semaphore"
//     (Semaphore.Do; a bare Acquire is no task) or "sluice.Consume" (one
//     per message).
//   - At enqueue, logs in the task whose category is the field:
//     "sluice.queue", the instance, such as "WorkQueue 1" (the primitive's
//     kind and a per-process count of the instances of that kind, in the
//     order of their first traced task; a Consume call is an instance);
//     "sluice.name", the WithName, when set; "sluice.key", fmt.Sprint of the
//     key (KeyedQueue); "sluice.priority", in decimal; "sluice.weight", in
//     decimal, when not 1 (Semaphore.Do).
//   - At start, on the goroutine that runs the function: a log
//     "sluice.lane", in decimal (the Lane of the task's events), then a
//     region "sluice.run" around the function.
//   - At the end: a log "sluice.outcome", one of "finished", "failed",
//     "canceled" or "panicked", then the task's end. A task canceled before
//     it started logs "canceled" and ends, on whichever goroutine noticed.
//   - A Semaphore acquire that waits (it found no free tokens, or waiters
//     ahead): a region "sluice.wait" around the wait, on the caller's
//     goroutine, in the trace task of its context (for a queue's task
//     waiting for a token of its WithSemaphore, that task's).
//
// The function of an engine task (WorkQueue, Processor, KeyedQueue) runs
// with a context whose trace task is its own, so that regions, logs and
// tasks made inside it nest under it; so do the functions of Semaphore.Do
// and Consume's handlers, which receive their caller's context with the
// trace task added.
//
// A task whose enqueue found tracing off stays unannotated even if tracing
// starts before it ends. Each hook first checks trace.IsEnabled or the
// task's annotations, and the engine's inline to that check (the traced
// work is in functions of its own): with tracing off a task costs a few
// loads and compares, and no allocation. The engine's hooks run under its lock, which with
// tracing on holds it longer; trace.NewTask reads the submitter's context's
// Value, as the engine already reads its Err there.

// rtKind is a primitive's kind, in its trace task type and instance label.
type rtKind uint8

const (
	rtWorkQueue rtKind = iota
	rtProcessor
	rtKeyedQueue
	rtSemaphore
	rtConsume
	rtKinds
)

var (
	rtKindNames = [rtKinds]string{"WorkQueue", "Processor", "KeyedQueue", "Semaphore", "Consume"}
	rtTaskTypes = [rtKinds]string{"sluice.WorkQueue", "sluice.Processor", "sluice.KeyedQueue", "sluice.Semaphore", "sluice.Consume"}
	rtOutcomes  = [...]string{TaskSucceeded: "finished", TaskFailed: "failed", TaskCanceled: "canceled", TaskPanicked: "panicked"}

	rtNumMu sync.Mutex
	rtNums  [rtKinds]uint64 // instances of each kind numbered so far
)

// The log categories and region types of the contract.
const (
	rtLogQueue    = "sluice.queue"
	rtLogName     = "sluice.name"
	rtLogKey      = "sluice.key"
	rtLogPriority = "sluice.priority"
	rtLogWeight   = "sluice.weight"
	rtLogLane     = "sluice.lane"
	rtLogOutcome  = "sluice.outcome"
	rtRegionRun   = "sluice.run"
	rtRegionWait  = "sluice.wait"
)

// rtQueue is one primitive instance's label in traces, made on its first
// traced task. The zero value is ready.
type rtQueue struct{ label atomic.Pointer[string] }

func (q *rtQueue) name(k rtKind) string {
	if p := q.label.Load(); p != nil {
		return *p
	}
	rtNumMu.Lock()
	defer rtNumMu.Unlock()
	if p := q.label.Load(); p != nil {
		return *p
	}
	rtNums[k]++
	s := rtKindNames[k] + " " + strconv.FormatUint(rtNums[k], 10)
	q.label.Store(&s)
	return s
}

// rtTask is one task's trace task, and the context that carries it (a
// child of the submitter's, the same but for its Value of the trace task).
// An engine task's submitter context (Task.parent) is replaced by its
// rtTask, so that the function's context carries the trace task with no
// field of its own; an *rtTask is never handed to user code, so a
// Task.parent that is one is always its own. A nil *rtTask is a task not
// traced; its methods do nothing.
type rtTask struct {
	context.Context
	task *trace.Task
	run  *trace.Region // begun by start, ended with the task, on the goroutine that ran it
}

// enqueueDo makes the trace task of a Semaphore.Do call of weight tokens,
// with parent as its caller's context and tc its options, and logs its
// fields, or returns nil when tracing is off. It inlines to the check.
func (q *rtQueue) enqueueDo(parent context.Context, tc taskConfig, weight int64) *rtTask {
	if !trace.IsEnabled() {
		return nil
	}
	return q.enqueueDoTraced(parent, tc, weight)
}

//go:noinline
func (q *rtQueue) enqueueDoTraced(parent context.Context, tc taskConfig, weight int64) *rtTask {
	return q.enqueueTraced(parent, rtSemaphore, tc.name, "", false, tc.priority, weight)
}

// enqueueMsg makes the trace task of a message Consume received, with
// parent as Consume's context, or returns nil when tracing is off. It
// inlines to the check.
func (q *rtQueue) enqueueMsg(parent context.Context, p Priority) *rtTask {
	if !trace.IsEnabled() {
		return nil
	}
	return q.enqueueMsgTraced(parent, p)
}

//go:noinline
func (q *rtQueue) enqueueMsgTraced(parent context.Context, p Priority) *rtTask {
	return q.enqueueTraced(parent, rtConsume, "", "", false, p, 1)
}

//go:noinline
func (q *rtQueue) enqueueTraced(parent context.Context, k rtKind, name, key string, keyed bool, p Priority, weight int64) *rtTask {
	ctx, task := trace.NewTask(parent, rtTaskTypes[k])
	trace.Log(ctx, rtLogQueue, q.name(k))
	if name != "" {
		trace.Log(ctx, rtLogName, name)
	}
	if keyed {
		trace.Log(ctx, rtLogKey, key)
	}
	trace.Log(ctx, rtLogPriority, strconv.Itoa(int(p)))
	if weight != 1 {
		trace.Log(ctx, rtLogWeight, strconv.FormatInt(weight, 10))
	}
	return &rtTask{Context: ctx, task: task}
}

// ctxOr returns the context carrying the trace task, or ctx when r is nil.
func (r *rtTask) ctxOr(ctx context.Context) context.Context {
	if r == nil {
		return ctx
	}
	return r.Context
}

// start logs the lane the task starts on and begins its run region, on the
// goroutine that runs its function; the task's end, which comes on the
// same goroutine once the function has returned, ends the region.
func (r *rtTask) start(lane int) {
	if r != nil {
		r.startTraced(lane)
	}
}

//go:noinline
func (r *rtTask) startTraced(lane int) {
	trace.Log(r.Context, rtLogLane, strconv.Itoa(lane))
	r.run = trace.StartRegion(r.Context, rtRegionRun)
}

// rtStop ends a region begun by rtWait, if any.
func rtStop(r *trace.Region) {
	if r != nil {
		r.End()
	}
}

// end ends the task's run region, if start began one, logs its outcome,
// state terminal, and ends its trace task.
func (r *rtTask) end(state TaskState) {
	if r != nil {
		r.endTraced(state)
	}
}

//go:noinline
func (r *rtTask) endTraced(state TaskState) {
	if r.run != nil {
		r.run.End()
	}
	trace.Log(r.Context, rtLogOutcome, rtOutcomes[state])
	r.task.End()
}

// endErr ends the task of a function that ran with ctx and returned err.
func (r *rtTask) endErr(ctx context.Context, err error) {
	if r != nil {
		r.endErrTraced(ctx, err)
	}
}

//go:noinline
func (r *rtTask) endErrTraced(ctx context.Context, err error) {
	state, _ := outcome(ctx.Err(), err)
	r.endTraced(state)
}

// rtWait begins the region of a Semaphore wait in ctx's trace task, or
// returns nil when tracing is off; rtStop ends it.
func rtWait(ctx context.Context) *trace.Region {
	if !trace.IsEnabled() {
		return nil
	}
	return rtWaitTraced(ctx)
}

//go:noinline
func rtWaitTraced(ctx context.Context) *trace.Region { return trace.StartRegion(ctx, rtRegionWait) }

// The engine's hooks.

// rtEnqueue makes t's trace task as the engine numbers it, and makes it
// t's parent context. e.mu is held. It inlines to the check.
func (e *engine) rtEnqueue(t *Task) {
	if trace.IsEnabled() {
		e.rtEnqueueTraced(t)
	}
}

//go:noinline
func (e *engine) rtEnqueueTraced(t *Task) {
	k, key := rtProcessor, ""
	if _, ok := t.job.(funcJob); ok {
		k = rtWorkQueue
	}
	if l := t.lane; l != nil {
		k = rtKeyedQueue
		if l.keyStr == "" {
			// Only a lane made before tracing started (submit names a
			// new lane's key outside the lock): named here, once.
			l.keyStr = e.keys.keyString(l)
		}
		key = l.keyStr
	}
	t.parent = e.rt.enqueueTraced(t.parent, k, t.name, key, t.lane != nil, t.priority, 1)
}

// rt returns t's trace task, or nil.
func (t *Task) rt() *rtTask {
	r, _ := t.parent.(*rtTask)
	return r
}

// rtStart logs t's lane and begins its run region, on the goroutine that
// runs its function; rtEnd, on the same goroutine once the function has
// returned (or called runtime.Goexit), ends it. It inlines to the check.
func (t *Task) rtStart() {
	if r, ok := t.parent.(*rtTask); ok {
		t.rtStartTraced(r)
	}
}

//go:noinline
func (t *Task) rtStartTraced(r *rtTask) {
	lane := max(t.slot, 0)
	if t.lane != nil {
		lane = t.lane.num
	}
	r.startTraced(lane)
}

// rtEnd logs t's outcome and ends its trace task. e.mu is held. It
// inlines to the check.
func (t *Task) rtEnd(state TaskState) {
	if r, ok := t.parent.(*rtTask); ok {
		r.endTraced(state)
	}
}
