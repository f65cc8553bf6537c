package core_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"sluice/core"
)

// This file holds FuzzWorkQueue, the model it shares with FuzzProcessor,
// and the kit that every fuzz target of the package decodes its programs
// with: a reader of the input, task functions driven by the program, and
// a log in which those functions record when they start and end.
//
// The targets check the primitives by replay: after every step of a
// program the bubble is quiescent (synctest.Wait), and the log's new
// entries, in the order the functions recorded them, are replayed against
// a plain model of the contract. A function records its start after its
// task was taken and its end before its slot is given back, so the log
// never shows more running than there was: each start must come under the
// limit, from a task the contract lets start (not canceled, first of its
// key), and each end must have a reason (its gate opened, its time passed,
// or its context, which the model knows to be canceled, ended). Which
// tasks started is checked for the step as a whole, since tasks taken at
// about the same time may record their starts in either order. Then the
// model checks what must hold at rest: nothing that could start is left
// waiting, nothing that should have ended still runs, every call has
// returned or not as the contract says, and the counters and events match.
//
// A failure reports the step, the operation, what went wrong and the
// step's log. go test -run=FuzzX/<file> replays an input of testdata.

// fzReader reads a fuzz input as a stream of small numbers; past its end
// it reads zeros.
type fzReader struct {
	b []byte
	i int
}

func (r *fzReader) more() bool { return r.i < len(r.b) }

func (r *fzReader) next() int {
	if r.i >= len(r.b) {
		return 0
	}
	v := r.b[r.i]
	r.i++
	return int(v)
}

// intn reads a number below n.
func (r *fzReader) intn(n int) int { return r.next() % n }

// fzHow is what a job's function waits for before it ends.
type fzHow uint8

const (
	fzInstant  fzHow = iota // nothing: it returns at once
	fzGate                  // its gate, which the program opens
	fzGateCtx               // its gate or the end of its context
	fzSleep                 // a virtual-time sleep
	fzSleepCtx              // a virtual-time sleep or the end of its context
	fzHows
)

// fzOutcome is how a job's function ends when nothing canceled it.
type fzOutcome uint8

const (
	fzSucceed fzOutcome = iota
	fzFail
	fzPanic
	fzOutcomes
)

// fzPanicValue is what a job that panics panics with.
type fzPanicValue struct{ job int }

// fzJob is one task function of a program. Its function waits as how
// says, then ends as end says; ended by its context, it returns the
// context's error, wrapped if wrap is set.
type fzJob struct {
	id   int
	name string // for WithName and events; unique in the program
	how  fzHow
	end  fzOutcome
	d    time.Duration // for the sleeps; an even number of milliseconds
	wrap bool
	gate chan struct{}
	fail error // the error it fails with

	gateOpen bool // the program opened its gate; only the program's goroutine uses it
}

// fzNewJob decodes a job.
func fzNewJob(r *fzReader, id int) *fzJob {
	b := r.next()
	j := &fzJob{
		id:   id,
		name: "j" + strconv.Itoa(id),
		how:  fzHow(b % int(fzHows)),
		end:  fzOutcome(b / int(fzHows) % int(fzOutcomes)),
		wrap: b/(int(fzHows)*int(fzOutcomes))%2 == 1,
		gate: make(chan struct{}),
		fail: fmt.Errorf("job %d failed", id),
	}
	if j.how == fzSleep || j.how == fzSleepCtx {
		j.d = time.Duration(2*(1+r.intn(8))) * time.Millisecond
	}
	return j
}

// open opens j's gate, once.
// shut reports whether j waits on a gate that is not open yet.
func (j *fzJob) shut() bool { return !j.gateOpen && (j.how == fzGate || j.how == fzGateCtx) }

func (j *fzJob) open() {
	if !j.gateOpen {
		j.gateOpen = true
		close(j.gate)
	}
}

// due reports whether j's function, started at start, has nothing left to
// wait for at now, when its context is done or not.
func (j *fzJob) due(start, now time.Duration, ctxDone bool) bool {
	switch j.how {
	case fzGate:
		return j.gateOpen
	case fzGateCtx:
		return j.gateOpen || ctxDone
	case fzSleep:
		return start+j.d <= now
	case fzSleepCtx:
		return start+j.d <= now || ctxDone
	}
	return true
}

// fzEntry is one line of the log: a job's function started, or ended.
type fzEntry struct {
	job      *fzJob
	start    bool
	at       time.Duration // virtual time since the program began
	byCtx    bool          // it ended because its context did
	err      error         // what it returned
	panicked bool
}

// fzLog is where the jobs' functions record their starts and ends, in the
// order they happen. It is safe for concurrent use.
type fzLog struct {
	t0      time.Time
	mu      sync.Mutex
	entries []fzEntry
	read    int
}

func newFzLog() *fzLog { return &fzLog{t0: time.Now()} }

func (l *fzLog) add(e fzEntry) {
	l.mu.Lock()
	e.at = time.Since(l.t0) // in the lock: times never go back in the log
	l.entries = append(l.entries, e)
	l.mu.Unlock()
}

// take returns the entries added since the last call.
func (l *fzLog) take() []fzEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	es := l.entries[l.read:]
	l.read = len(l.entries)
	return es
}

// run is j's function: it waits as j says, records its start and end, and
// ends as j says.
func (l *fzLog) run(ctx context.Context, j *fzJob) error {
	l.add(fzEntry{job: j, start: true})
	byCtx := false
	switch j.how {
	case fzGate:
		<-j.gate
	case fzGateCtx:
		select {
		case <-j.gate: // an open gate wins over a done context
		default:
			select {
			case <-j.gate:
			case <-ctx.Done():
				byCtx = true
			}
		}
	case fzSleep:
		time.Sleep(j.d)
	case fzSleepCtx:
		tm := time.NewTimer(j.d)
		select {
		case <-tm.C:
		case <-ctx.Done():
			tm.Stop()
			byCtx = true
		}
	}
	var err error
	switch {
	case byCtx:
		err = ctx.Err()
		if j.wrap {
			err = fmt.Errorf("job %d: %w", j.id, err)
		}
	case j.end == fzFail:
		err = j.fail
	case j.end == fzPanic:
		l.add(fzEntry{job: j, panicked: true})
		panic(fzPanicValue{j.id})
	}
	l.add(fzEntry{job: j, err: err, byCtx: byCtx})
	return err
}

// fzShowLog describes log entries, for failure messages.
func fzShowLog(es []fzEntry) string {
	var b strings.Builder
	for _, e := range es {
		switch {
		case e.start:
			fmt.Fprintf(&b, "\n\t%v %s started", e.at, e.job.name)
		case e.panicked:
			fmt.Fprintf(&b, "\n\t%v %s panicked", e.at, e.job.name)
		default:
			fmt.Fprintf(&b, "\n\t%v %s returned %v (context: %v)", e.at, e.job.name, e.err, e.byCtx)
		}
	}
	return b.String()
}

// fzEndProblem says what is wrong with e, the end of a job that started at
// start and whose context was canceled with ctxErr (nil if it was not), or
// returns "".
func fzEndProblem(e fzEntry, start time.Duration, ctxErr error) string {
	j := e.job
	switch {
	case e.byCtx && ctxErr == nil:
		return fmt.Sprintf("%s ended by its context, which nothing canceled", j.name)
	case e.byCtx && !errors.Is(e.err, ctxErr):
		return fmt.Sprintf("%s's context ended with %v, want %v", j.name, e.err, ctxErr)
	case e.byCtx:
		return ""
	case (j.how == fzGate || j.how == fzGateCtx) && !j.gateOpen:
		return fmt.Sprintf("%s ended with its gate closed", j.name)
	case (j.how == fzSleep || j.how == fzSleepCtx) && e.at != start+j.d:
		return fmt.Sprintf("%s, started at %v to sleep %v, ended at %v", j.name, start, j.d, e.at)
	case j.how == fzInstant && e.at != start:
		return fmt.Sprintf("%s started at %v and ended at %v", j.name, start, e.at)
	}
	return ""
}

// fzOutcomeOf returns the terminal state and error of a task whose
// function ended as e says.
func fzOutcomeOf(e fzEntry) (core.TaskState, error) {
	switch {
	case e.panicked:
		return core.TaskPanicked, nil
	case e.byCtx:
		return core.TaskCanceled, e.err
	case e.err != nil:
		return core.TaskFailed, e.err
	}
	return core.TaskSucceeded, nil
}

// fzErrIs reports whether got is the error a task of job j that ended in
// state with error want reports: for a panic, a *PanicError with j's
// value; otherwise want itself.
func fzErrIs(got error, state core.TaskState, want error, j *fzJob) bool {
	if state == core.TaskPanicked {
		pe, ok := got.(*core.PanicError)
		return ok && pe.Value == fzPanicValue{j.id}
	}
	return got == want
}

// fzKind returns the terminal event kind of a state.
func fzKind(s core.TaskState) core.EventKind {
	switch s {
	case core.TaskSucceeded:
		return core.Finished
	case core.TaskFailed:
		return core.Failed
	case core.TaskPanicked:
		return core.Panicked
	}
	return core.Canceled
}

// fzEvents records events; it is safe for concurrent use.
type fzEvents struct {
	mu     sync.Mutex
	events []core.Event
}

func (r *fzEvents) observe(e core.Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *fzEvents) all() []core.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// fzLifeProblem checks the events of one task, es, against what the model
// knows of it: whether it was accepted, whether it started, and whether it
// is terminal (in state, with err). waiting is 1 if it must have a Waiting
// event, 0 if it must not, -1 if either. It returns "" if they fit.
func fzLifeProblem(es []core.Event, accepted, started, terminal bool, state core.TaskState, err error, j *fzJob, waiting int) string {
	kinds := make([]core.EventKind, len(es))
	for i, e := range es {
		kinds[i] = e.Kind
		if e.Task != es[0].Task || e.Name != j.name || e.Weight != 1 {
			return fmt.Sprintf("%s's events %+v disagree on Task, Name or Weight", j.name, es)
		}
	}
	if !accepted {
		if len(es) > 0 {
			return fmt.Sprintf("%s was never accepted but has events %v", j.name, kinds)
		}
		return ""
	}
	want := []core.EventKind{core.Enqueued}
	if waiting == 1 || waiting == -1 && len(kinds) > 1 && kinds[1] == core.Waiting {
		want = append(want, core.Waiting)
	}
	if started {
		want = append(want, core.Started)
	}
	if terminal {
		want = append(want, fzKind(state))
	}
	if !slices.Equal(kinds, want) {
		return fmt.Sprintf("%s's events are %v, want %v", j.name, kinds, want)
	}
	if last := es[len(es)-1]; terminal && !fzErrIs(last.Err, state, err, j) {
		return fmt.Sprintf("%s's %v event has Err %v, want %v", j.name, last.Kind, last.Err, err)
	}
	return ""
}

// fzGroup is a submitter context that the program can cancel, shared by
// the calls made with it.
type fzGroup struct {
	ctx    context.Context
	cancel context.CancelFunc
	done   bool
}

func newFzGroup() *fzGroup {
	ctx, cancel := context.WithCancel(context.Background())
	return &fzGroup{ctx: ctx, cancel: cancel}
}

// ctx returns g's context, or Background for a nil g.
func (g *fzGroup) context() context.Context {
	if g == nil {
		return context.Background()
	}
	return g.ctx
}

func (g *fzGroup) ended() bool { return g != nil && g.done }

// ---- WorkQueue and Processor ----

// fqQueue is a WorkQueue or a Processor, seen through the calls the model
// knows. For a WorkQueue the int results are always 0.
type fqQueue interface {
	submit(ctx context.Context, j *fzJob, opts ...core.TaskOption) (fqHandle, error)
	trySubmit(j *fzJob, opts ...core.TaskOption) (fqHandle, error)
	do(ctx context.Context, j *fzJob, opts ...core.TaskOption) (int, error)
	goTask(ctx context.Context, j *fzJob, opts ...core.TaskOption) error
	setParallelism(n int)
	close() error
	drain(ctx context.Context) error
	stats() core.QueueStats
}

// fqHandle is a *core.Task or a *core.Future[int].
type fqHandle interface {
	ID() uint64
	State() core.TaskState
	Err() error
	Done() <-chan struct{}
	Cancel()
	wait(ctx context.Context) (int, error)
}

type fqWorkQueue struct {
	q   *core.WorkQueue
	log *fzLog
}

type fqTaskHandle struct{ *core.Task }

func (h fqTaskHandle) wait(ctx context.Context) (int, error) { return 0, h.Wait(ctx) }

func (w fqWorkQueue) fn(j *fzJob) func(context.Context) error {
	return func(ctx context.Context) error { return w.log.run(ctx, j) }
}

func (w fqWorkQueue) submit(ctx context.Context, j *fzJob, opts ...core.TaskOption) (fqHandle, error) {
	t, err := w.q.Submit(ctx, w.fn(j), opts...)
	if t == nil {
		return nil, err
	}
	return fqTaskHandle{t}, err
}

func (w fqWorkQueue) trySubmit(j *fzJob, opts ...core.TaskOption) (fqHandle, error) {
	t, err := w.q.TrySubmit(w.fn(j), opts...)
	if t == nil {
		return nil, err
	}
	return fqTaskHandle{t}, err
}

func (w fqWorkQueue) do(ctx context.Context, j *fzJob, opts ...core.TaskOption) (int, error) {
	return 0, w.q.Do(ctx, w.fn(j), opts...)
}

func (w fqWorkQueue) goTask(ctx context.Context, j *fzJob, opts ...core.TaskOption) error {
	return w.q.Go(ctx, w.fn(j), opts...)
}

func (w fqWorkQueue) setParallelism(n int)            { w.q.SetParallelism(n) }
func (w fqWorkQueue) close() error                    { return w.q.Close() }
func (w fqWorkQueue) drain(ctx context.Context) error { return w.q.Drain(ctx) }
func (w fqWorkQueue) stats() core.QueueStats          { return w.q.Stats() }

// fqState is where the model has a task: the life of its call and task.
type fqState uint8

const (
	fqRoom    fqState = iota // its Submit or Do waits for room
	fqRefused                // its call returned an error; never accepted
	fqPending
	fqRunning
	fqDone
)

type fqCall uint8

const (
	fqSubmit fqCall = iota
	fqTry
	fqDo
	fqGo // Submit without a handle
)

// fqResult is what a Submit, TrySubmit, Do or Process call returned.
type fqResult struct {
	h   fqHandle
	out int
	err error
}

// fqTask is the model of one call and the task it submitted.
type fqTask struct {
	job   *fzJob
	prio  core.Priority
	seq   int      // rank among pending tasks of its priority; equal seqs are unordered
	group *fzGroup // its submitter context; nil for Background
	call  fqCall
	state fqState

	ctxErr   error // why its function's context was canceled, once it was
	startAt  time.Duration
	limitAt  int  // the limit when it started
	floating bool // admitted from the room queue during this step
	waiting  int  // want a Waiting event: 1 yes, 0 no, -1 either
	ambig    bool // its call waited for room as its context ended: accepted or not

	final core.TaskState // once done
	err   error          // once done or refused: its error
	ran   bool

	res      chan fqResult
	returned bool // the model says its call has returned
	got      bool // the call's result was received
	h        fqHandle
}

// fqStop is a Close or Drain call.
type fqStop struct {
	drain    bool
	group    *fzGroup
	res      chan error
	returned bool
	err      error
	got      bool
}

type fqQState uint8

const (
	fqOpen fqQState = iota
	fqDraining
	fqClosing
)

// fqModel runs a program against a WorkQueue or Processor and its model.
type fqModel struct {
	fzRun
	q    fqQueue
	outs bool      // the queue returns results (a Processor)
	ev   *fzEvents // nil without an observer

	limit, capacity, maxLimit int
	state                     fqQState
	stopped                   bool
	tasks                     []*fqTask
	byJob                     map[*fzJob]*fqTask
	rooms                     []*fqTask
	stops                     []*fqStop
	groups                    [3]*fzGroup
	resized                   []int64

	seq, floatSeq int
	fzCounts
}

// fzCounts is a queue model's counters, which its Stats must match.
type fzCounts struct {
	npending, running, maxBodies                     int
	submitted, succeeded, failed, canceled, panicked uint64
	ambig                                            int // Do calls that may have been accepted and canceled
}

// count counts an end in state.
func (c *fzCounts) count(state core.TaskState) {
	switch state {
	case core.TaskSucceeded:
		c.succeeded++
	case core.TaskFailed:
		c.failed++
	case core.TaskPanicked:
		c.panicked++
	default:
		c.canceled++
	}
}

// checkStats checks st against the counters, and the parallelism and
// lanes that the model expects; MaxRunning is checked by the caller.
func (c *fzCounts) checkStats(m *fzRun, st core.QueueStats, parallelism, lanes int) {
	if c.ambig > 0 {
		// Do calls that waited for room as their context ended may have
		// been accepted and canceled: as many more submitted as canceled.
		d := int(st.Submitted) - int(c.submitted)
		if d < 0 || d > c.ambig || int(st.Canceled)-int(c.canceled) != d {
			m.fail("Stats = %+v: %d more submitted than the model's %d, want 0 to %d, as many canceled", st, d, c.submitted, c.ambig)
		}
		c.submitted += uint64(d)
		c.canceled += uint64(d)
		c.ambig = 0
	}
	want := core.QueueStats{
		Parallelism: parallelism,
		Pending:     c.npending,
		Running:     c.running,
		Submitted:   c.submitted,
		Succeeded:   c.succeeded,
		Failed:      c.failed,
		Canceled:    c.canceled,
		Panicked:    c.panicked,
		MaxRunning:  st.MaxRunning,
		Lanes:       lanes,
		// The model keeps no times: OldestPending is checked for its sign.
		OldestPending: st.OldestPending,
	}
	if st.OldestPending < 0 || st.Pending == 0 && st.OldestPending != 0 {
		m.fail("Stats.OldestPending = %v with %d pending", st.OldestPending, st.Pending)
	}
	if st != want {
		m.fail("Stats = %+v, want %+v", st, want)
	}
}

// Operations of a queue program: op = next() % len(fqOps).
const (
	fqOpSubmit = iota
	fqOpTry
	fqOpDo
	fqOpCancelTask
	fqOpCancelGroup
	fqOpGate
	fqOpResize
	fqOpSleep
	fqOpClose
	fqOpDrain
	fqOpGo
)

// fqOps maps an operation byte to an operation: the first entries are
// the operations themselves, so that seeds read plainly, and the rest
// weight the common ones.
var fqOps = [32]int{
	fqOpSubmit, fqOpTry, fqOpDo, fqOpCancelTask, fqOpCancelGroup,
	fqOpGate, fqOpResize, fqOpSleep, fqOpClose, fqOpDrain,
	fqOpGo, fqOpSubmit, fqOpGo, fqOpSubmit, fqOpGo,
	fqOpTry, fqOpDo, fqOpDo,
	fqOpCancelTask, fqOpCancelTask, fqOpCancelGroup,
	fqOpGate, fqOpGate, fqOpGate, fqOpGate, fqOpGate,
	fqOpResize,
	fqOpSleep, fqOpSleep, fqOpSleep,
	fqOpGate, fqOpSubmit,
}

// fqMaxSteps bounds a program, so that one input costs little.
const fqMaxSteps = 160

// FuzzWorkQueue decodes its input into a program of submits, try-submits
// and Do calls (random priorities, submitter contexts and task functions
// that wait on a gate, sleep, or wait for their context, then succeed,
// fail or panic), task and context cancellations, gate openings, resizes,
// virtual time, Drain and Close. It runs the program against a real
// WorkQueue inside a synctest bubble and checks after every step, against
// a model of the contract: tasks start under the limit, highest priority
// first and in arrival order within a priority (the tasks a step starts
// come before those it leaves pending); no pending task waits while a
// slot is free; every task ends once, as its function or its
// cancellation says; each call returns when and what it should; Stats and
// the observer's events match. The program ends by opening every gate and
// closing or draining the queue, which must stop within a bound of
// virtual time.
func FuzzWorkQueue(f *testing.F) {
	for _, seed := range fqSeeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) < 4 || len(prog) > 600 {
			return
		}
		synctest.Test(t, func(t *testing.T) {
			runQueueProgram(t, prog, func(limit int, log *fzLog, opts []core.Option) fqQueue {
				return fqWorkQueue{core.NewWorkQueue(limit, opts...), log}
			}, false)
		})
	})
}

// fqSeeds cover every operation. Header: parallelism less one, capacity,
// observer, how it ends (0 Close, 1 Drain); see runQueueProgram. Submit
// and Do: group (3 is Background), job, priority plus one; TrySubmit: job,
// priority plus one. A job byte is how + 5*end (+ 15 to wrap its context's
// error), followed for a sleep by its length in 2ms steps less one; see
// fzNewJob. Cancel, gate: which one (modulo those there are).
var fqSeeds = [][]byte{
	// Priorities and FIFO: one slot, tasks of three priorities, released in turn.
	{0, 0, 1, 0,
		fqOpSubmit, 3, 1, 0, fqOpSubmit, 3, 1, 1, fqOpSubmit, 3, 1, 2, fqOpSubmit, 3, 1, 2, fqOpSubmit, 3, 1, 0,
		fqOpGate, 0, fqOpGate, 0, fqOpGate, 0, fqOpGate, 0, fqOpGate, 0},
	// Outcomes: fail, panic, sleep, context, instant; Do and TrySubmit.
	{1, 0, 1, 1,
		fqOpSubmit, 3, 6, 1, fqOpSubmit, 3, 11, 1, fqOpDo, 3, 3, 5, 1, fqOpTry, 0, 2, fqOpDo, 0, 2, 2,
		fqOpGate, 0, fqOpGate, 0, fqOpSleep, 10, fqOpCancelTask, 0, fqOpSleep, 20},
	// Capacity: blocked Submit and Do, TrySubmit refused, room handed out in order.
	{0, 2, 1, 0,
		fqOpSubmit, 3, 1, 1, fqOpSubmit, 3, 1, 1, fqOpSubmit, 3, 1, 1, fqOpSubmit, 0, 1, 2, fqOpTry, 1, 1,
		fqOpDo, 3, 1, 1, fqOpGate, 0, fqOpGate, 0, fqOpCancelGroup, 0, fqOpGate, 0, fqOpGate, 1, fqOpGate, 0},
	// Cancellation: a group with pending, running and waiting work.
	{1, 1, 1, 0,
		fqOpSubmit, 0, 2, 1, fqOpSubmit, 0, 4, 4, 1, fqOpSubmit, 0, 2, 3, fqOpDo, 0, 2, 1, fqOpSubmit, 1, 2, 0,
		fqOpCancelGroup, 0, fqOpSubmit, 0, 1, 1, fqOpCancelGroup, 0, fqOpSubmit, 0, 1, 1, fqOpCancelTask, 1},
	// Resizing: grow with pending work, shrink under running work.
	{0, 0, 1, 1,
		fqOpSubmit, 3, 1, 0, fqOpSubmit, 3, 1, 0, fqOpSubmit, 3, 1, 1, fqOpSubmit, 3, 3, 2, 0,
		fqOpResize, 3, fqOpResize, 0, fqOpGate, 0, fqOpGate, 0, fqOpSleep, 8, fqOpGate, 0, fqOpResize, 1},
	// Drain with work left, then Close, then calls on the stopped queue.
	{2, 0, 1, 0,
		fqOpSubmit, 3, 1, 1, fqOpSubmit, 3, 2, 1, fqOpSubmit, 3, 1, 1, fqOpSubmit, 3, 1, 1,
		fqOpDrain, 3, fqOpSubmit, 3, 1, 1, fqOpTry, 1, 0, fqOpGate, 0, fqOpClose, fqOpDo, 3, 1, 1, fqOpGate, 0},
	// Close under load without an observer.
	{1, 1, 0, 0,
		fqOpSubmit, 3, 2, 1, fqOpSubmit, 3, 4, 2, 1, fqOpSubmit, 3, 1, 1, fqOpSubmit, 3, 1, 1, fqOpDo, 1, 1, 3,
		fqOpClose, fqOpSleep, 3, fqOpGate, 0},
	// Go with Background: many at one priority, a blocked one, a higher
	// priority, a lower one, a shrink, a panic, then Close.
	{1, 0, 0, 0,
		fqOpGo, 3, 1, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1,
		fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 1, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1,
		fqOpGo, 3, 0, 0, fqOpGo, 3, 0, 0, fqOpGo, 3, 1, 2, fqOpGo, 3, 10, 1, fqOpGate, 0, fqOpGo, 3, 0, 1,
		fqOpGate, 0, fqOpResize, 0, fqOpGo, 3, 0, 1, fqOpGate, 0, fqOpClose},
	// Go with Background behind a blocked one, and a higher priority
	// arriving meanwhile.
	{0, 0, 0, 0,
		fqOpGo, 3, 1, 1,
		fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1,
		fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1,
		fqOpGo, 3, 1, 1,
		fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1,
		fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1, fqOpGo, 3, 0, 1,
		fqOpGate, 0, fqOpGo, 3, 0, 3, fqOpGate, 0, fqOpClose},
	// Drain with a context that ends first.
	{0, 0, 1, 1,
		fqOpSubmit, 3, 1, 1, fqOpDrain, 1, fqOpCancelGroup, 1, fqOpGate, 0},
}

// runQueueProgram decodes prog and runs it against the queue that mk
// makes and the model. The header gives the parallelism (1 to 3), the
// capacity (0 to 3, 0 meaning unbounded), whether there is an observer,
// and whether the program ends with Close or Drain.
func runQueueProgram(t *testing.T, prog []byte, mk func(int, *fzLog, []core.Option) fqQueue, outs bool) {
	r := &fzReader{b: prog}
	m := &fqModel{fzRun: newFzRun(t), outs: outs, byJob: map[*fzJob]*fqTask{}}
	m.limit = 1 + r.intn(3)
	m.maxLimit = m.limit
	m.capacity = r.intn(4)
	var opts []core.Option
	if m.capacity > 0 {
		opts = append(opts, core.WithCapacity(m.capacity))
	}
	if r.intn(2) == 1 {
		m.ev = new(fzEvents)
		opts = append(opts, core.WithObserver(m.ev.observe))
	}
	endWithClose := r.intn(2) == 0
	m.q = mk(m.limit, m.log, opts)
	for i := range m.groups {
		m.groups[i] = newFzGroup()
	}
	defer m.cleanup()

	for r.more() && m.step < fqMaxSteps {
		m.step++
		m.op(r)
		m.settle()
	}
	// The end: open every gate, then stop the queue, which must then
	// stop within a bound of virtual time.
	m.step++
	m.did = "open every gate"
	for _, u := range m.tasks {
		u.job.open()
	}
	m.settle()
	m.step++
	if endWithClose {
		m.doClose()
	} else {
		m.doDrain(nil)
	}
	m.settle()
	for bound := 0; !m.stopped; bound++ {
		if bound == 200 {
			t.Fatalf("the queue did not stop within %v of virtual time: %d pending, %d running", m.now, m.npending, m.running)
		}
		m.step++
		m.did = "sleep 16ms"
		time.Sleep(16 * time.Millisecond)
		m.settle()
	}
	for _, u := range m.tasks {
		if u.state != fqDone && u.state != fqRefused {
			t.Fatalf("%s is still %d after the queue stopped", u.job.name, u.state)
		}
	}
	if st := m.q.stats(); st.Pending != 0 || st.Running != 0 ||
		st.Submitted != uint64(st.Pending+st.Running)+st.Succeeded+st.Failed+st.Canceled+st.Panicked {
		t.Fatalf("Stats after stop = %+v, want nothing pending or running and counters that add up", st)
	}
}

// cleanup lets every goroutine of the program end, whatever happened.
func (m *fqModel) cleanup() {
	for _, u := range m.tasks {
		u.job.open()
	}
	for _, g := range m.groups {
		g.cancel()
	}
	m.q.close()
	m.wg.Wait()
}

// fzRun is what every fuzz model keeps of the program it runs: the test,
// the log its functions write, the goroutines of its calls, and where the
// program is.
type fzRun struct {
	t   *testing.T
	log *fzLog
	wg  sync.WaitGroup

	step    int
	did     string        // the step's operation, for failures
	now     time.Duration // virtual time at the end of the step
	batch   []fzEntry     // the log entries of the step
	entryAt time.Duration // the time of the entry being replayed
}

func newFzRun(t *testing.T) fzRun { return fzRun{t: t, log: newFzLog()} }

// fail stops the program, naming the step and showing its log.
func (m *fzRun) fail(format string, args ...any) {
	m.t.Helper()
	m.t.Fatalf("step %d (%s): %s\nthe step's log: %s", m.step, m.did, fmt.Sprintf(format, args...), fzShowLog(m.batch))
}

// sleep decodes and sleeps a step of virtual time: 2ms to 64ms.
func (m *fzRun) sleep(r *fzReader) {
	d := time.Duration(2*(1+r.intn(32))) * time.Millisecond
	m.did = fmt.Sprintf("sleep %v", d)
	time.Sleep(d)
}

// endGroup decodes the group of contexts to end. It returns it, or, if it
// has ended already, puts a new group in its place and returns nil.
func (m *fzRun) endGroup(r *fzReader, groups []*fzGroup) *fzGroup {
	i := r.intn(len(groups))
	g := groups[i]
	if g.done {
		m.did = fmt.Sprintf("renew group %d", i)
		groups[i] = newFzGroup()
		return nil
	}
	m.did = fmt.Sprintf("cancel group %d", i)
	return g
}

// fzPickGroup decodes a submitter context: one of groups, or nil for
// context.Background.
func fzPickGroup(r *fzReader, groups []*fzGroup) *fzGroup {
	if i := r.intn(len(groups) + 1); i < len(groups) {
		return groups[i]
	}
	return nil
}

// fzPick returns the b-th (modulo) of the items that keep accepts, or the
// zero T.
func fzPick[T any](items []T, b int, keep func(T) bool) T {
	var in []T
	for _, u := range items {
		if keep(u) {
			in = append(in, u)
		}
	}
	if len(in) == 0 {
		var zero T
		return zero
	}
	return in[b%len(in)]
}

// op decodes one operation, applies it to the model and makes the call.
func (m *fqModel) op(r *fzReader) {
	switch code := fqOps[r.intn(len(fqOps))]; code {
	case fqOpSubmit, fqOpTry, fqOpDo, fqOpGo:
		m.submit(r, code)
	case fqOpCancelTask:
		u := fzPick(m.tasks, r.next(), func(u *fqTask) bool { return u.h != nil })
		if u == nil {
			m.did = "cancel no task"
			return
		}
		m.did = "cancel " + u.job.name
		switch u.state {
		case fqPending:
			m.cancelPending(u, context.Canceled)
		case fqRunning:
			m.cancelRunning(u, context.Canceled)
		}
		u.h.Cancel()
	case fqOpCancelGroup:
		if g := m.endGroup(r, m.groups[:]); g != nil {
			m.cancelGroup(g)
			g.cancel()
		}
	case fqOpGate:
		u := fzPick(m.tasks, r.next(), func(u *fqTask) bool { return u.job.shut() && u.state != fqDone && u.state != fqRefused })
		if u == nil {
			m.did = "open no gate"
			return
		}
		m.did = "open " + u.job.name
		u.job.open()
	case fqOpResize:
		n := 1 + r.intn(4)
		m.did = fmt.Sprintf("SetParallelism(%d)", n)
		m.limit = n
		m.maxLimit = max(m.maxLimit, n)
		m.resized = append(m.resized, int64(n))
		m.q.setParallelism(n)
	case fqOpSleep:
		m.sleep(r)
	case fqOpClose:
		m.doClose()
	case fqOpDrain:
		m.doDrain(fzPickGroup(r, m.groups[:]))
	}
}

// submit decodes and makes a Submit, TrySubmit or Do call: its group (3
// is Background; none for TrySubmit), its job and its priority.
func (m *fqModel) submit(r *fzReader, code int) {
	call := fqDo
	switch code {
	case fqOpSubmit:
		call = fqSubmit
	case fqOpTry:
		call = fqTry
	case fqOpGo:
		call = fqGo
	}
	var g *fzGroup
	if call != fqTry {
		g = fzPickGroup(r, m.groups[:])
	}
	j := fzNewJob(r, len(m.tasks))
	u := &fqTask{job: j, prio: core.Priority(r.intn(4) - 1), group: g, call: call, res: make(chan fqResult, 1)}
	m.tasks = append(m.tasks, u)
	m.byJob[j] = u
	opts := []core.TaskOption{core.WithName(j.name), core.WithPriority(u.prio)}
	m.did = fmt.Sprintf("%v %s (how %d, end %d, prio %d)", [...]string{"Submit", "TrySubmit", "Do", "Go"}[call], j.name, j.how, j.end, u.prio)

	// The model first.
	switch {
	case g.ended():
		m.refuse(u, g.ctx.Err())
	case m.state != fqOpen:
		m.refuse(u, core.ErrClosed)
	case m.capacity > 0 && (len(m.rooms) > 0 || m.npending >= m.capacity):
		if call == fqTry {
			m.refuse(u, core.ErrFull)
		} else {
			u.state = fqRoom
			m.rooms = append(m.rooms, u)
		}
	default:
		u.waiting = 0
		if m.running >= m.limit || m.npending > 0 {
			u.waiting = 1
		}
		m.accept(u, false)
	}

	// Then the call.
	ctx := g.context()
	switch call {
	case fqSubmit:
		m.wg.Go(func() {
			h, err := m.q.submit(ctx, j, opts...)
			u.res <- fqResult{h: h, err: err}
		})
	case fqTry:
		h, err := m.q.trySubmit(j, opts...)
		u.res <- fqResult{h: h, err: err}
	case fqDo:
		m.wg.Go(func() {
			out, err := m.q.do(ctx, j, opts...)
			u.res <- fqResult{out: out, err: err}
		})
	case fqGo:
		m.wg.Go(func() {
			u.res <- fqResult{err: m.q.goTask(ctx, j, opts...)}
		})
	}
}

// refuse ends u's call with err, without accepting it.
func (m *fqModel) refuse(u *fqTask, err error) {
	u.state = fqRefused
	u.err = err
	u.returned = true
}

// accept makes u pending; floating says it came from the room queue
// during this step.
func (m *fqModel) accept(u *fqTask, floating bool) {
	u.state = fqPending
	u.floating = floating
	if floating {
		if m.floatSeq == 0 {
			m.seq++
			m.floatSeq = m.seq
		}
		u.seq = m.floatSeq
		u.waiting = -1
	} else {
		m.seq++
		u.seq = m.seq
	}
	m.npending++
	m.submitted++
	if u.call != fqDo {
		u.returned = true
	}
}

// grant hands free room to the calls waiting for it, oldest first.
func (m *fqModel) grant() {
	for m.capacity > 0 && len(m.rooms) > 0 && m.npending < m.capacity {
		u := m.rooms[0]
		m.rooms = m.rooms[1:]
		m.accept(u, true)

	}
}

// end makes u terminal.
func (m *fqModel) end(u *fqTask, state core.TaskState, err error) {
	u.state = fqDone
	u.final = state
	u.err = err
	u.returned = true
	m.count(state)
}

func (m *fqModel) cancelPending(u *fqTask, err error) {
	m.npending--
	m.end(u, core.TaskCanceled, err)
	m.grant()
}

func (m *fqModel) cancelRunning(u *fqTask, err error) {
	if u.ctxErr == nil {
		u.ctxErr = err
	}
}

// cancelGroup applies the end of g's context.
func (m *fqModel) cancelGroup(g *fzGroup) {
	g.done = true
	err := context.Canceled
	// Calls waiting for room return the context's error, unless room was
	// handed to them at the same moment: then a Submit may return a task
	// that ends canceled at once, and a Do is accepted and canceled,
	// returning the context's error either way.
	m.rooms = slices.DeleteFunc(m.rooms, func(u *fqTask) bool {
		if u.group != g {
			return false
		}
		m.refuse(u, err)
		u.ambig = true
		u.waiting = -1
		if u.call == fqDo {
			m.ambig++
		}
		return true
	})
	for _, u := range m.tasks {
		if u.group != g {
			continue
		}
		switch u.state {
		case fqPending:
			m.cancelPending(u, err)
		case fqRunning:
			m.cancelRunning(u, err)
		}
	}
	for _, s := range m.stops {
		if s.drain && s.group == g && !s.returned {
			s.returned = true
			s.err = err
		}
	}
}

func (m *fqModel) doClose() {
	m.did = "Close"
	if m.state != fqClosing {
		m.state = fqClosing
		for _, u := range m.rooms {
			m.refuse(u, core.ErrClosed)
		}
		m.rooms = nil
		for _, u := range m.tasks {
			switch u.state {
			case fqPending:
				m.npending--
				m.end(u, core.TaskCanceled, context.Canceled)
			case fqRunning:
				m.cancelRunning(u, context.Canceled)
			}
		}
	}
	s := &fqStop{res: make(chan error, 1)}
	m.stops = append(m.stops, s)
	m.wg.Go(func() { s.res <- m.q.close() })
}

func (m *fqModel) doDrain(g *fzGroup) {
	m.did = "Drain"
	if g != nil {
		m.did = "Drain with a group"
	}
	if g.ended() && !m.stopped {
		// A context that has already ended: its error, the queue as it was.
		s := &fqStop{drain: true, group: g, res: make(chan error, 1), returned: true, err: g.ctx.Err()}
		m.stops = append(m.stops, s)
		ctx := g.context()
		m.wg.Go(func() { s.res <- m.q.drain(ctx) })
		return
	}
	if m.state == fqOpen {
		m.state = fqDraining
		for _, u := range m.rooms {
			m.refuse(u, core.ErrClosed)
		}
		m.rooms = nil
	}
	s := &fqStop{drain: true, group: g, res: make(chan error, 1)}
	m.stops = append(m.stops, s)
	m.checkStop()
	if !s.returned && g.ended() {
		s.returned = true
		s.err = g.ctx.Err()
	}
	ctx := g.context()
	m.wg.Go(func() { s.res <- m.q.drain(ctx) })
}

// checkStop notes the stop of a closing or draining queue with nothing
// left.
func (m *fqModel) checkStop() {
	if m.state != fqOpen && m.npending == 0 && m.running == 0 {
		m.stopped = true
	}
	if !m.stopped {
		return
	}
	for _, s := range m.stops {
		if !s.returned {
			s.returned = true
			s.err = nil
		}
	}
}

// settle waits for the bubble to be quiescent, replays the log and checks
// the model against the queue.
func (m *fqModel) settle() {
	m.t.Helper()
	synctest.Wait()
	m.now = time.Since(m.log.t0)
	es := m.log.take()
	m.batch = es
	var ahead, started []*fqTask // pending when the step began, not floating; started in the step
	for _, u := range m.tasks {
		if u.state == fqPending && !u.floating {
			ahead = append(ahead, u)
		}
	}
	for _, e := range es {
		u := m.byJob[e.job]
		m.entryAt = e.at
		if e.start {
			m.replayStart(u)
			started = append(started, u)
		} else {
			m.replayEnd(u, e)
		}
	}
	m.grant()
	if m.capacity > 0 && m.npending > m.capacity {
		m.fail("%d tasks pending, over the capacity %d", m.npending, m.capacity)
	}
	// Tasks are taken highest priority first, in arrival order within a
	// priority, so the tasks started in the step, of those pending when it
	// began, must come before those still pending. Tasks let in from the
	// room queue during the step may have been queued after others were
	// taken: they are not held to it.
	for _, u := range started {
		for _, v := range ahead {
			if v.state == fqPending && fqAhead(v, u) {
				m.fail("%s (priority %d) started while %s (priority %d), ahead of it, stayed pending", u.job.name, u.prio, v.job.name, v.prio)
			}
		}
	}
	for _, u := range m.tasks {
		u.floating = false
	}
	m.floatSeq = 0
	m.checkStop()
	m.checkRest()
	m.checkCalls()
	m.checkTasks()
	m.checkStats()
	if m.ev != nil {
		m.checkEvents()
	}
}

// replayStart replays the start of u.
//
// Functions record their starts after their tasks were taken from the
// queue, and their ends before their slots are given back, so the log,
// replayed in order, never shows more running than the queue had: the
// limit is checked here, exactly. The order in which tasks were taken is
// not in the log (tasks taken at about the same time may record their
// starts in another order), so priority and FIFO order are checked for
// the step as a whole, in settle. A task that waited for room was let in,
// in the order of the room queue, by tasks taken or canceled before it
// started: those let in ahead of it are let in now.
func (m *fqModel) replayStart(u *fqTask) {
	if u.state == fqRoom {
		i := slices.Index(m.rooms, u)
		for _, v := range m.rooms[:i+1] {
			m.accept(v, true)
		}
		m.rooms = m.rooms[i+1:]
	}
	if u.state != fqPending {
		m.fail("%s started in model state %d (a task canceled before it started must never run)", u.job.name, u.state)
	}
	if m.running+1 > m.limit {
		m.fail("%s started with %d running, over the limit %d", u.job.name, m.running, m.limit)
	}
	u.state = fqRunning
	u.ran = true
	u.startAt = m.entryAt
	u.limitAt = m.limit
	m.npending--
	m.running++
	m.maxBodies = max(m.maxBodies, m.running)
}

// fqAhead reports whether pending task a starts before pending task b.
func fqAhead(a, b *fqTask) bool {
	return a.prio > b.prio || a.prio == b.prio && a.seq < b.seq
}

func (m *fqModel) replayEnd(u *fqTask, e fzEntry) {
	if u.state != fqRunning {
		m.fail("%s ended in model state %d", u.job.name, u.state)
	}
	if p := fzEndProblem(e, u.startAt, u.ctxErr); p != "" {
		m.fail("%s", p)
	}
	m.running--
	state, err := fzOutcomeOf(e)
	m.end(u, state, err)
}

// checkRest checks what must hold once the bubble is quiescent: no task
// waits while it could start, and no task runs that should have ended.
func (m *fqModel) checkRest() {
	if m.npending > 0 && m.running < m.limit {
		m.fail("%d tasks pending with %d running under a limit of %d", m.npending, m.running, m.limit)
	}
	for _, u := range m.tasks {
		if u.state == fqRunning && u.job.due(u.startAt, m.now, u.ctxErr != nil) {
			m.fail("%s (how %d, started at %v) still runs at %v; context canceled: %v", u.job.name, u.job.how, u.startAt, m.now, u.ctxErr)
		}
	}
}

// wantOut returns the result a Processor call on u returns.
func (m *fqModel) wantOut(u *fqTask) int {
	if !m.outs || !u.ran || u.final == core.TaskPanicked {
		return 0
	}
	return fqOut(u.job)
}

// fqOut is the result of the Processor's function on j.
func fqOut(j *fzJob) int { return 7*j.id + 3 }

// checkCalls checks that each call has returned, or not, as the model
// says, with the right result.
func (m *fqModel) checkCalls() {
	for _, u := range m.tasks {
		if u.got {
			continue
		}
		var res fqResult
		select {
		case res = <-u.res:
			u.got = true
		default:
		}
		if u.ambig && u.got && (u.call == fqSubmit || u.call == fqGo) && res.err == nil {
			// Room reached it as its context ended: the task was
			// accepted and ended canceled at once.
			u.state = fqDone
			u.final = core.TaskCanceled
			m.submitted++
			m.canceled++
		}
		if u.got != u.returned {
			m.fail("%s's call returned: %v, want %v (model state %d)", u.job.name, u.got, u.returned, u.state)
		}
		if !u.got {
			continue
		}
		switch {
		case u.call == fqDo:
			if !fzErrIs(res.err, u.final, u.err, u.job) || res.out != m.wantOut(u) {
				m.fail("Do %s = %v, %v; want %v, %v (state %v)", u.job.name, res.out, res.err, m.wantOut(u), u.err, u.final)
			}
		case u.state == fqRefused:
			if res.h != nil || res.err != u.err {
				m.fail("Submit %s = %v, %v; want nil, %v", u.job.name, res.h, res.err, u.err)
			}
		case u.call == fqGo:
			if res.err != nil {
				m.fail("Go %s = %v, want nil", u.job.name, res.err)
			}
		default:
			if res.h == nil || res.err != nil {
				m.fail("Submit %s = %v, %v; want a task, nil", u.job.name, res.h, res.err)
			}
			u.h = res.h
		}
	}
	for i, s := range m.stops {
		if s.got {
			continue
		}
		var err error
		select {
		case err = <-s.res:
			s.got = true
		default:
		}
		if s.got != s.returned || s.got && err != s.err {
			m.fail("stop call %d (drain %v) returned: %v (%v), want %v (%v)", i, s.drain, s.got, err, s.returned, s.err)
		}
	}
}

var fzDoneCtx = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// checkTasks checks each task handle against the model.
func (m *fqModel) checkTasks() {
	ids := map[uint64]string{}
	for _, u := range m.tasks {
		if u.h == nil {
			continue
		}
		if other, dup := ids[u.h.ID()]; dup {
			m.fail("%s and %s have the same ID %d", u.job.name, other, u.h.ID())
		}
		ids[u.h.ID()] = u.job.name
		want := core.TaskPending
		switch u.state {
		case fqRunning:
			want = core.TaskRunning
		case fqDone:
			want = u.final
		}
		if got := u.h.State(); got != want {
			m.fail("%s's State() = %v, want %v", u.job.name, got, want)
		}
		done := false
		select {
		case <-u.h.Done():
			done = true
		default:
		}
		out, err := u.h.wait(fzDoneCtx)
		if u.state != fqDone {
			if done || u.h.Err() != nil || err != context.Canceled || out != 0 {
				m.fail("%s is not terminal, but Done closed: %v, Err() = %v, Wait = %v, %v", u.job.name, done, u.h.Err(), out, err)
			}
			continue
		}
		if !done || !fzErrIs(u.h.Err(), u.final, u.err, u.job) || !fzErrIs(err, u.final, u.err, u.job) || out != m.wantOut(u) {
			m.fail("%s ended %v: Done closed %v, Err() = %v, Wait = %v, %v; want %v, %v", u.job.name, u.final, done, u.h.Err(), out, err, m.wantOut(u), u.err)
		}
	}
}

func (m *fqModel) checkStats() {
	st := m.q.stats()
	m.fzCounts.checkStats(&m.fzRun, st, m.limit, 0)
	if st.MaxRunning < m.maxBodies || st.MaxRunning > m.maxLimit {
		m.fail("Stats.MaxRunning = %d, want between %d (seen running) and %d (the largest limit)", st.MaxRunning, m.maxBodies, m.maxLimit)
	}
}

func (m *fqModel) checkEvents() {
	byName := map[string][]core.Event{}
	closed := 0
	var resized []int64
	for _, e := range m.ev.all() {
		switch {
		case e.Task != 0:
			byName[e.Name] = append(byName[e.Name], e)
		case e.Kind == core.Closed:
			closed++
		case e.Kind == core.Resized:
			resized = append(resized, e.Weight)
		default:
			m.fail("unexpected event %+v", e)
		}
	}
	lanes := map[int]string{}
	for _, u := range m.tasks {
		es := byName[u.job.name]
		delete(byName, u.job.name)
		accepted := u.state != fqRoom && u.state != fqRefused
		if u.ambig && u.state == fqRefused && len(es) > 0 {
			// Accepted and canceled as its context ended; see cancelGroup.
			if p := fzLifeProblem(es, true, false, true, core.TaskCanceled, context.Canceled, u.job, -1); p != "" {
				m.fail("%s", p)
			}
			continue
		}
		if p := fzLifeProblem(es, accepted, u.ran, u.state == fqDone, u.final, u.err, u.job, u.waiting); p != "" {
			m.fail("%s", p)
		}
		if u.h != nil && len(es) > 0 && es[0].Task != u.h.ID() {
			m.fail("%s's events carry Task %d, want its ID %d", u.job.name, es[0].Task, u.h.ID())
		}
		for _, e := range es {
			if e.Priority != u.prio {
				m.fail("%s's %v event has Priority %d, want %d", u.job.name, e.Kind, e.Priority, u.prio)
			}
			if e.Kind == core.Started {
				if e.Lane < 0 || e.Lane >= u.limitAt {
					m.fail("%s started on lane %d, want below the limit %d", u.job.name, e.Lane, u.limitAt)
				}
				if u.state == fqRunning {
					if other, ok := lanes[e.Lane]; ok {
						m.fail("%s and %s run on the same lane %d", u.job.name, other, e.Lane)
					}
					lanes[e.Lane] = u.job.name
				}
			}
		}
	}
	for name, es := range byName {
		m.fail("events %+v of unknown task %q", es, name)
	}
	want := 0
	if m.stopped {
		want = 1
	}
	if closed != want {
		m.fail("%d Closed events, want %d", closed, want)
	}
	if !slices.Equal(resized, m.resized) {
		m.fail("Resized events %v, want %v", resized, m.resized)
	}
}
