package core_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"sluice/core"
)

// The KeyedQueue model checks, after every step of a program:
//
//   - per key, tasks start one at a time and in submission order, across
//     the lane's eviction and re-creation (exactly);
//   - never more than WithParallelism tasks run (exactly);
//   - no lane with pending work waits while the queue has a free slot
//     (exactly): with unlimited parallelism this makes the schedule
//     exact, since every key's next task must then be running;
//   - with a cap, which waiting key gets a freed slot (round robin among
//     ready keys) is not modeled, since the order in which keys become
//     ready within a step depends on how the workers interleave: only the
//     invariants above are checked;
//   - the room queue of each key (WithCapacity) lets Submit calls in, in
//     order, as the key's pending tasks start or are canceled;
//   - each task ends once, as its function or its cancellation says; each
//     call returns when and what it should; Stats match, Lanes included: a
//     lane is removed exactly when it has been idle for the idle timeout,
//     never while busy, and every lane is gone once the queue stops;
//   - with an observer, each task's events form its life, inside its lane's
//     LaneCreated and LaneEvicted, and lanes alive at once have distinct
//     numbers.

// kqState is where the model has a keyed task.
type kqState uint8

const (
	kqRoom    kqState = iota // its Submit or Do waits for room in its lane
	kqRefused                // its call returned an error; never accepted
	kqPending
	kqRunning
	kqDone
)

// kqTask is the model of one call and the task it submitted.
type kqTask struct {
	job   *fzJob
	key   int
	lane  *kqLane // the lane it was submitted to
	prio  core.Priority
	group *fzGroup
	call  fqCall
	state kqState

	ctxErr  error
	startAt time.Duration
	waiting int  // want a Waiting event: 1 yes, 0 no, -1 either
	ambig   bool // its call waited for room as its context ended

	final core.TaskState
	err   error
	ran   bool

	res      chan fqResult
	returned bool
	got      bool
	h        *core.Task
}

// kqLane is the model of one lane of a key: from its creation to its
// eviction.
type kqLane struct {
	key     int
	n       int // the key's lanes before it
	pending []*kqTask
	running *kqTask
	rooms   []*kqTask
	idle    bool
	idleAt  time.Duration
	evicted bool
	// roomEnded is the step in which the context of a call waiting for
	// room ended: room may reach it first, and it leaves the lane canceled
	// at a moment the model does not know.
	roomEnded int
}

func (l *kqLane) busy() bool { return len(l.pending) > 0 || l.running != nil || len(l.rooms) > 0 }

type kqModel struct {
	fzRun
	q  *core.KeyedQueue[int]
	ev *fzEvents

	par, capacity int
	idle          time.Duration
	state         fqQState
	stopped       bool
	tasks         []*kqTask
	byJob         map[*fzJob]*kqTask
	lanes         map[int]*kqLane // each key's latest lane
	nlanes        map[int]int     // lanes each key has had
	live          int
	stops         []*fqStop
	groups        [3]*fzGroup

	fzCounts
}

// Operations of a keyed program.
const (
	kqOpSubmit = iota
	kqOpTry
	kqOpDo
	kqOpCancelTask
	kqOpCancelGroup
	kqOpGate
	kqOpSleep
	kqOpClose
	kqOpDrain
)

var kqOps = [32]int{
	kqOpSubmit, kqOpTry, kqOpDo, kqOpCancelTask, kqOpCancelGroup,
	kqOpGate, kqOpSleep, kqOpClose, kqOpDrain,
	kqOpSubmit, kqOpSubmit, kqOpSubmit, kqOpSubmit, kqOpSubmit, kqOpSubmit,
	kqOpTry, kqOpDo, kqOpDo,
	kqOpCancelTask, kqOpCancelTask, kqOpCancelGroup,
	kqOpGate, kqOpGate, kqOpGate, kqOpGate, kqOpGate, kqOpGate,
	kqOpSleep, kqOpSleep, kqOpSleep, kqOpSleep,
	kqOpSubmit,
}

// FuzzKeyedQueue decodes its input into a program of submits, try-submits
// and Do calls on a few keys (with random submitter contexts, priorities
// and task functions), task and context cancellations, gate openings,
// virtual time (for idle eviction), Drain and Close, runs it against a
// real KeyedQueue inside a synctest bubble, and checks the model described
// above after every step. The program ends by opening every gate and
// closing or draining the queue, which must stop within a bound of virtual
// time.
func FuzzKeyedQueue(f *testing.F) {
	for _, seed := range kqSeeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) < 5 || len(prog) > 600 {
			return
		}
		synctest.Test(t, func(t *testing.T) { runKeyedProgram(t, prog) })
	})
}

// kqSeeds cover every operation. Header: parallelism (0 unlimited),
// capacity, observer, idle timeout (2ms steps, less one), how it ends.
// Submit and Do: group (3 is Background), key, job, priority.
var kqSeeds = [][]byte{
	// Per-key order and parallelism across keys, with eviction.
	{0, 0, 1, 4, 0,
		kqOpSubmit, 3, 0, 1, 1, kqOpSubmit, 3, 0, 1, 1, kqOpSubmit, 3, 1, 1, 1, kqOpSubmit, 3, 2, 3, 3, 1,
		kqOpGate, 0, kqOpGate, 0, kqOpSleep, 20, kqOpGate, 0, kqOpSleep, 6, kqOpSubmit, 3, 2, 0, 1, kqOpSleep, 30},
	// A cap of one slot across keys; outcomes.
	{1, 0, 1, 1, 1,
		kqOpSubmit, 3, 0, 6, 1, kqOpSubmit, 3, 1, 11, 1, kqOpDo, 3, 2, 2, 1, kqOpTry, 3, 0, kqOpSubmit, 3, 1, 4, 3, 1,
		kqOpGate, 0, kqOpGate, 0, kqOpCancelTask, 2, kqOpGate, 1, kqOpSleep, 10, kqOpSleep, 10},
	// Capacity: waiting Submit and Do, TrySubmit refused, cancellation.
	{2, 1, 1, 2, 0,
		kqOpSubmit, 3, 0, 1, 1, kqOpSubmit, 3, 0, 1, 1, kqOpSubmit, 0, 0, 1, 1, kqOpDo, 3, 0, 1, 1, kqOpTry, 0, 1,
		kqOpCancelGroup, 0, kqOpGate, 0, kqOpGate, 0, kqOpGate, 0, kqOpGate, 0},
	// Contexts: pending, running and waiting work of a group.
	{0, 1, 0, 3, 0,
		kqOpSubmit, 0, 0, 1, 1, kqOpSubmit, 1, 0, 1, 1, kqOpSubmit, 0, 0, 1, 1, kqOpDo, 1, 1, 4, 6, 1, kqOpSubmit, 0, 2, 2, 1,
		kqOpCancelGroup, 0, kqOpCancelGroup, 1, kqOpCancelGroup, 0, kqOpSubmit, 0, 1, 0, 0, kqOpSleep, 40},
	// Drain with a context, then Close; calls on the stopped queue.
	{2, 0, 1, 9, 1,
		kqOpSubmit, 3, 0, 1, 1, kqOpSubmit, 3, 1, 1, 1, kqOpDrain, 1, kqOpCancelGroup, 1, kqOpSubmit, 3, 0, 0, 0,
		kqOpGate, 0, kqOpClose, kqOpTry, 2, 0, kqOpGate, 0},
	// Close with running, pending and waiting work.
	{1, 1, 1, 0, 0,
		kqOpSubmit, 3, 0, 2, 1, kqOpSubmit, 3, 0, 1, 1, kqOpSubmit, 3, 0, 1, 1, kqOpSubmit, 3, 1, 3, 7, 1,
		kqOpClose, kqOpSleep, 10, kqOpGate, 0},
}

func runKeyedProgram(t *testing.T, prog []byte) {
	r := &fzReader{b: prog}
	m := &kqModel{fzRun: newFzRun(t), byJob: map[*fzJob]*kqTask{}, lanes: map[int]*kqLane{}, nlanes: map[int]int{}}
	m.par = r.intn(4)
	m.capacity = r.intn(3)
	opts := []core.Option{core.WithParallelism(m.par), core.WithCapacity(m.capacity)}
	if r.intn(2) == 1 {
		m.ev = new(fzEvents)
		opts = append(opts, core.WithObserver(m.ev.observe))
	}
	m.idle = time.Duration(2*(1+r.intn(16))) * time.Millisecond
	opts = append(opts, core.WithIdleTimeout(m.idle))
	endWithClose := r.intn(2) == 0
	// Unobserved, the queue has 3 shards (an observed one has 1).
	m.q = core.NewKeyedQueueShards[int](3, opts...)
	for i := range m.groups {
		m.groups[i] = newFzGroup()
	}
	defer m.cleanup()

	for r.more() && m.step < fqMaxSteps {
		m.step++
		m.op(r)
		m.settle()
	}
	m.step++
	m.did = "open every gate"
	for _, u := range m.tasks {
		u.job.open()
	}
	m.settle()
	// Let the lanes go idle and be evicted before the end, sometimes.
	if len(prog)%2 == 0 {
		m.step++
		m.did = "sleep past the idle timeout"
		time.Sleep(m.idle + 40*time.Millisecond)
		m.settle()
	}
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
		if u.state != kqDone && u.state != kqRefused {
			t.Fatalf("%s is still %d after the queue stopped", u.job.name, u.state)
		}
	}
}

func (m *kqModel) cleanup() {
	for _, u := range m.tasks {
		u.job.open()
	}
	for _, g := range m.groups {
		g.cancel()
	}
	m.q.Close()
	m.wg.Wait()
}

func (m *kqModel) op(r *fzReader) {
	switch code := kqOps[r.intn(len(kqOps))]; code {
	case kqOpSubmit, kqOpTry, kqOpDo:
		m.submit(r, code)
	case kqOpCancelTask:
		u := fzPick(m.tasks, r.next(), func(u *kqTask) bool { return u.h != nil })
		if u == nil {
			m.did = "cancel no task"
			return
		}
		m.did = "cancel " + u.job.name
		switch u.state {
		case kqPending:
			m.cancelPending(u, context.Canceled)
		case kqRunning:
			if u.ctxErr == nil {
				u.ctxErr = context.Canceled
			}
		}
		u.h.Cancel()
	case kqOpCancelGroup:
		if g := m.endGroup(r, m.groups[:]); g != nil {
			m.cancelGroup(g)
			g.cancel()
		}
	case kqOpGate:
		u := fzPick(m.tasks, r.next(), func(u *kqTask) bool { return u.job.shut() && u.state != kqDone && u.state != kqRefused })
		if u == nil {
			m.did = "open no gate"
			return
		}
		m.did = "open " + u.job.name
		u.job.open()
	case kqOpSleep:
		m.sleep(r)
	case kqOpClose:
		m.doClose()
	case kqOpDrain:
		m.doDrain(fzPickGroup(r, m.groups[:]))
	}
}

func (m *kqModel) submit(r *fzReader, code int) {
	call := fqDo
	switch code {
	case kqOpSubmit:
		call = fqSubmit
	case kqOpTry:
		call = fqTry
	}
	var g *fzGroup
	if call != fqTry {
		g = fzPickGroup(r, m.groups[:])
	}
	key := r.intn(4)
	j := fzNewJob(r, len(m.tasks))
	u := &kqTask{job: j, key: key, prio: core.Priority(r.intn(4) - 1), group: g, call: call, res: make(chan fqResult, 1)}
	m.tasks = append(m.tasks, u)
	m.byJob[j] = u
	opts := []core.TaskOption{core.WithName(j.name), core.WithPriority(u.prio)}
	m.did = fmt.Sprintf("%v %s on key %d (how %d, end %d)", [...]string{"Submit", "TrySubmit", "Do"}[call], j.name, key, j.how, j.end)

	switch {
	case g.ended():
		m.refuse(u, g.ctx.Err())
	case m.state != fqOpen:
		m.refuse(u, core.ErrClosed)
	default:
		l := m.lanes[key]
		if l == nil || l.evicted {
			l = &kqLane{key: key, n: m.nlanes[key]}
			m.nlanes[key]++
			m.lanes[key] = l
			m.live++
		}
		u.lane = l
		switch {
		case m.capacity > 0 && (len(l.pending) >= m.capacity || len(l.rooms) > 0):
			if call == fqTry {
				m.refuse(u, core.ErrFull)
			} else {
				u.state = kqRoom
				l.rooms = append(l.rooms, u)
			}
		default:
			u.waiting = 1
			if !l.busy() && (m.par == 0 || m.running < m.par) {
				u.waiting = 0
			}
			m.accept(u)
		}
	}

	ctx := g.context()
	fn := func(ctx context.Context) error { return m.log.run(ctx, j) }
	switch call {
	case fqSubmit:
		m.wg.Go(func() {
			h, err := m.q.Submit(ctx, key, fn, opts...)
			u.res <- fqResult{h: kqHandle(h), err: err}
		})
	case fqTry:
		h, err := m.q.TrySubmit(key, fn, opts...)
		u.res <- fqResult{h: kqHandle(h), err: err}
	case fqDo:
		m.wg.Go(func() {
			err := m.q.Do(ctx, key, fn, opts...)
			u.res <- fqResult{err: err}
		})
	}
}

// kqHandle wraps a task, keeping nil nil.
func kqHandle(t *core.Task) fqHandle {
	if t == nil {
		return nil
	}
	return fqTaskHandle{t}
}

func (m *kqModel) refuse(u *kqTask, err error) {
	u.state = kqRefused
	u.err = err
	u.returned = true
}

func (m *kqModel) accept(u *kqTask) {
	u.state = kqPending
	l := u.lane
	l.pending = append(l.pending, u)
	l.idle = false
	m.npending++
	m.submitted++
	if u.call != fqDo {
		u.returned = true
	}
}

// grant lets the calls waiting for room in l in, in order, while there is
// room. A call let in as a task of l starts (started is set) waits behind
// it: Waiting is sure, unless a call whose context ended this step took
// that room first, and left later. One let in as a task leaves l's backlog
// canceled may find l idle, or not, as the step's other ends came first
// or not.
func (m *kqModel) grant(l *kqLane, started bool) {
	for m.capacity > 0 && len(l.rooms) > 0 && len(l.pending) < m.capacity {
		u := l.rooms[0]
		l.rooms = l.rooms[1:]
		u.waiting = -1
		if started && l.roomEnded != m.step {
			u.waiting = 1
		}
		m.accept(u)
	}
}

func (m *kqModel) end(u *kqTask, state core.TaskState, err error) {
	u.state = kqDone
	u.final = state
	u.err = err
	u.returned = true
	m.count(state)
}

// settleLane marks l idle as of at if it has no work left.
func (m *kqModel) settleLane(l *kqLane, at time.Duration) {
	if !l.busy() && !l.idle && m.state == fqOpen {
		l.idle = true
		l.idleAt = at
	}
}

func (m *kqModel) cancelPending(u *kqTask, err error) {
	l := u.lane
	l.pending = slices.DeleteFunc(l.pending, func(v *kqTask) bool { return v == u })
	m.npending--
	m.end(u, core.TaskCanceled, err)
	m.grant(l, false)
	m.settleLane(l, m.now)
}

func (m *kqModel) cancelGroup(g *fzGroup) {
	g.done = true
	err := context.Canceled
	for _, u := range m.tasks {
		if u.group != g {
			continue
		}
		switch u.state {
		case kqRoom:
			// See fqModel.cancelGroup: room may reach it as its context
			// ends.
			u.lane.rooms = slices.DeleteFunc(u.lane.rooms, func(v *kqTask) bool { return v == u })
			u.lane.roomEnded = m.step
			m.refuse(u, err)
			u.ambig = true
			u.waiting = -1
			if u.call == fqDo {
				m.ambig++
			}
		}
	}
	for _, u := range m.tasks {
		if u.group != g {
			continue
		}
		switch u.state {
		case kqPending:
			m.cancelPending(u, err)
		case kqRunning:
			if u.ctxErr == nil {
				u.ctxErr = err
			}
		}
	}
	for _, s := range m.stops {
		if s.drain && s.group == g && !s.returned {
			s.returned = true
			s.err = err
		}
	}
}

func (m *kqModel) doClose() {
	m.did = "Close"
	if m.state != fqClosing {
		m.state = fqClosing
		for _, u := range m.tasks {
			switch u.state {
			case kqRoom:
				m.refuse(u, core.ErrClosed)
			case kqPending:
				m.npending--
				m.end(u, core.TaskCanceled, context.Canceled)
			case kqRunning:
				if u.ctxErr == nil {
					u.ctxErr = context.Canceled
				}
			}
		}
		for _, l := range m.lanes {
			l.rooms, l.pending = nil, nil
		}
	}
	s := &fqStop{res: make(chan error, 1)}
	m.stops = append(m.stops, s)
	m.wg.Go(func() { s.res <- m.q.Close() })
}

func (m *kqModel) doDrain(g *fzGroup) {
	m.did = "Drain"
	if g != nil {
		m.did = "Drain with a group"
	}
	s := &fqStop{drain: true, group: g, res: make(chan error, 1)}
	m.stops = append(m.stops, s)
	switch {
	case m.stopped:
	case g.ended():
		// A context that has ended changes nothing.
		s.returned = true
		s.err = g.ctx.Err()
	case m.state == fqOpen:
		m.state = fqDraining
		for _, u := range m.tasks {
			if u.state == kqRoom {
				m.refuse(u, core.ErrClosed)
			}
		}
		for _, l := range m.lanes {
			l.rooms = nil
		}
	}
	m.checkStop()
	ctx := g.context()
	m.wg.Go(func() { s.res <- m.q.Drain(ctx) })
}

func (m *kqModel) checkStop() {
	if m.state != fqOpen && m.npending == 0 && m.running == 0 && !m.stopped {
		m.stopped = true
		m.live = 0
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

func (m *kqModel) settle() {
	m.t.Helper()
	synctest.Wait()
	m.now = time.Since(m.log.t0)
	m.batch = m.log.take()
	for _, e := range m.batch {
		u := m.byJob[e.job]
		m.entryAt = e.at
		if e.start {
			m.replayStart(u)
		} else {
			m.replayEnd(u, e)
		}
	}
	for _, l := range m.lanes {
		m.grant(l, false)
	}
	// Lanes idle for the idle timeout are gone, while the queue is open.
	if m.state == fqOpen {
		for _, l := range m.lanes {
			if l.idle && !l.evicted && l.idleAt+m.idle <= m.now {
				l.evicted = true
				m.live--
			}
		}
	}
	m.checkStop()
	m.checkRest()
	m.checkCalls()
	m.checkTasks()
	m.checkStats()
	if m.ev != nil {
		m.checkEvents()
	}
}

func (m *kqModel) replayStart(u *kqTask) {
	l := u.lane
	if u.state != kqPending {
		m.fail("%s started in model state %d (a task canceled before it started must never run)", u.job.name, u.state)
	}
	if l.running != nil {
		m.fail("%s started on key %d while %s of the same key runs", u.job.name, u.key, l.running.job.name)
	}
	if l.pending[0] != u {
		m.fail("%s started on key %d before %s, submitted before it", u.job.name, u.key, l.pending[0].job.name)
	}
	if m.par > 0 && m.running+1 > m.par {
		m.fail("%s started with %d running, over the parallelism %d", u.job.name, m.running, m.par)
	}
	l.pending = l.pending[1:]
	l.running = u
	u.state = kqRunning
	u.ran = true
	u.startAt = m.entryAt
	m.npending--
	m.running++
	m.maxBodies = max(m.maxBodies, m.running)
	m.grant(l, true)
}

func (m *kqModel) replayEnd(u *kqTask, e fzEntry) {
	if u.state != kqRunning {
		m.fail("%s ended in model state %d", u.job.name, u.state)
	}
	if p := fzEndProblem(e, u.startAt, u.ctxErr); p != "" {
		m.fail("%s", p)
	}
	u.lane.running = nil
	m.running--
	state, err := fzOutcomeOf(e)
	m.end(u, state, err)
	m.settleLane(u.lane, e.at)
}

func (m *kqModel) checkRest() {
	full := m.par > 0 && m.running >= m.par
	for key, l := range m.lanes {
		if len(l.pending) > 0 && l.running == nil && !full {
			m.fail("key %d has %d pending tasks and none running, with %d running of %d", key, len(l.pending), m.running, m.par)
		}
	}
	for _, u := range m.tasks {
		if u.state == kqRunning && u.job.due(u.startAt, m.now, u.ctxErr != nil) {
			m.fail("%s (how %d, started at %v) still runs at %v; context canceled: %v", u.job.name, u.job.how, u.startAt, m.now, u.ctxErr)
		}
	}
}

func (m *kqModel) checkCalls() {
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
		if u.ambig && u.got && u.call == fqSubmit && res.err == nil {
			// Room reached it as its context ended: accepted, and it
			// must end canceled without running.
			u.state = kqDone
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
			if !fzErrIs(res.err, u.final, u.err, u.job) {
				m.fail("Do %s = %v, want %v (state %v)", u.job.name, res.err, u.err, u.final)
			}
		case u.state == kqRefused:
			if res.h != nil || res.err != u.err {
				m.fail("Submit %s = %v, %v; want nil, %v", u.job.name, res.h, res.err, u.err)
			}
		default:
			if res.h == nil || res.err != nil {
				m.fail("Submit %s = %v, %v; want a task, nil", u.job.name, res.h, res.err)
			}
			u.h = res.h.(fqTaskHandle).Task
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

func (m *kqModel) checkTasks() {
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
		case kqRunning:
			want = core.TaskRunning
		case kqDone:
			want = u.final
		}
		if got := u.h.State(); got != want {
			m.fail("%s's State() = %v, want %v", u.job.name, got, want)
		}
		err := u.h.Wait(fzDoneCtx)
		if u.state != kqDone {
			if u.h.Err() != nil || err != context.Canceled {
				m.fail("%s is not terminal, but Err() = %v, Wait = %v", u.job.name, u.h.Err(), err)
			}
			continue
		}
		if !fzErrIs(u.h.Err(), u.final, u.err, u.job) || !fzErrIs(err, u.final, u.err, u.job) {
			m.fail("%s ended %v: Err() = %v, Wait = %v; want %v", u.job.name, u.final, u.h.Err(), err, u.err)
		}
	}
}

func (m *kqModel) checkStats() {
	st := m.q.Stats()
	m.fzCounts.checkStats(&m.fzRun, st, m.par, m.live)
	if st.MaxRunning < m.maxBodies || m.par > 0 && st.MaxRunning > m.par {
		m.fail("Stats.MaxRunning = %d, want at least %d (seen running) and at most the parallelism %d", st.MaxRunning, m.maxBodies, m.par)
	}
}

// checkEvents checks the observer's events: each task's life, inside its
// lane's LaneCreated and LaneEvicted, in the global order of the events;
// one lane number per live lane; and Closed, after every lane's eviction,
// once the queue has stopped.
func (m *kqModel) checkEvents() {
	events := m.ev.all()
	type laneSeen struct {
		n    int // LaneCreated events of the key
		open bool
		num  int
	}
	seen := map[string]*laneSeen{}
	byName := map[string][]core.Event{}
	nums := map[int]string{}
	closed := false
	for i, e := range events {
		if closed {
			m.fail("event %+v after Closed", e)
		}
		switch e.Kind {
		case core.LaneCreated, core.LaneEvicted:
			if e.Task != 0 {
				m.fail("lane event %+v has a Task", e)
			}
			s := seen[e.Key]
			if s == nil {
				s = new(laneSeen)
				seen[e.Key] = s
			}
			if (e.Kind == core.LaneCreated) == s.open {
				m.fail("event %d: %v for key %s, whose lane is open: %v", i, e.Kind, e.Key, s.open)
			}
			if e.Kind == core.LaneCreated {
				if other, ok := nums[e.Lane]; ok {
					m.fail("lane %d of key %s created while key %s's lane has that number", e.Lane, e.Key, other)
				}
				nums[e.Lane] = e.Key
				s.n++
				s.open, s.num = true, e.Lane
			} else {
				if e.Lane != s.num {
					m.fail("key %s's lane %d evicted as lane %d", e.Key, s.num, e.Lane)
				}
				delete(nums, e.Lane)
				s.open = false
			}
		case core.Closed:
			closed = true
			for key, s := range seen {
				if s.open {
					m.fail("Closed with key %s's lane still open", key)
				}
			}
		default:
			u := m.byJobName(e.Name)
			if u == nil || u.lane == nil {
				m.fail("event %+v of an unknown or never accepted task", e)
			}
			s := seen[strconv.Itoa(u.key)]
			if e.Key != strconv.Itoa(u.key) || s == nil || !s.open || s.n != u.lane.n+1 || e.Lane != s.num {
				m.fail("%s's %v event (key %q, lane %d) outside its lane %d of key %d", u.job.name, e.Kind, e.Key, e.Lane, u.lane.n, u.key)
			}
			if e.Priority != u.prio {
				m.fail("%s's %v event has Priority %d, want %d", u.job.name, e.Kind, e.Priority, u.prio)
			}
			byName[e.Name] = append(byName[e.Name], e)
		}
	}
	if closed != m.stopped {
		m.fail("Closed reported: %v, want %v", closed, m.stopped)
	}
	for key, l := range m.lanes {
		s := seen[strconv.Itoa(key)]
		n := 0
		if s != nil {
			n = s.n
		}
		if n != m.nlanes[key] || !m.stopped && s != nil && s.open == l.evicted {
			m.fail("key %d: %d LaneCreated events, want %d; lane open %v, want %v", key, n, m.nlanes[key], s != nil && s.open, !l.evicted)
		}
	}
	for _, u := range m.tasks {
		es := byName[u.job.name]
		accepted := u.state != kqRoom && u.state != kqRefused
		if u.ambig && u.state == kqRefused && len(es) > 0 {
			if p := fzLifeProblem(es, true, false, true, core.TaskCanceled, context.Canceled, u.job, -1); p != "" {
				m.fail("%s", p)
			}
			continue
		}
		if p := fzLifeProblem(es, accepted, u.ran, u.state == kqDone, u.final, u.err, u.job, u.waiting); p != "" {
			m.fail("%s", p)
		}
		if u.h != nil && len(es) > 0 && es[0].Task != u.h.ID() {
			m.fail("%s's events carry Task %d, want its ID %d", u.job.name, es[0].Task, u.h.ID())
		}
	}
}

func (m *kqModel) byJobName(name string) *kqTask {
	id, err := strconv.Atoi(name[1:])
	if err != nil || id < 0 || id >= len(m.tasks) {
		return nil
	}
	return m.tasks[id]
}

// TestKeyedQueueEndedContextNeverStarts is the regression test of
// testdata/fuzz/FuzzKeyedQueue/6171e5a6caccafbe and 80f62e8bdc5a108c: a
// task pending behind another of its key, whose submitter's context ends
// just as the key's running task returns, must not start: its context
// ended before it started.
func TestKeyedQueueEndedContextNeverStarts(t *testing.T) {
	for _, call := range []string{"Submit", "Do"} {
		t.Run(call, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := core.NewKeyedQueue[string]()
				defer q.Close()
				for range 50 {
					ctx, cancel := context.WithCancel(context.Background())
					// The running task ends the context as it returns, so
					// that its worker takes the next task at once.
					q.Submit(context.Background(), "k", func(context.Context) error {
						cancel()
						return nil
					})
					ran := false
					next := func(context.Context) error {
						ran = true
						return nil
					}
					var err error
					if call == "Submit" {
						var task *core.Task
						if task, err = q.Submit(ctx, "k", next); err == nil {
							err = task.Wait(context.Background())
						}
					} else {
						err = q.Do(ctx, "k", next)
					}
					synctest.Wait()
					if ran || err != context.Canceled {
						t.Fatalf("task submitted with a context that ended before it started: ran %v, %s returned %v; want false, %v", ran, call, err, context.Canceled)
					}
				}
			})
		})
	}
}

// TestKeyedQueueCanceledWaitingLaneGoesIdle is the regression test of
// testdata/fuzz/FuzzKeyedQueue/52d2099e9eac80fe: a lane whose pending
// tasks are all canceled while it waits for a slot (WithParallelism) has
// no work from then on, and must be removed once idle for the idle
// timeout, however long the slots stay busy.
func TestKeyedQueueCanceledWaitingLaneGoesIdle(t *testing.T) {
	const idle = time.Second
	synctest.Test(t, func(t *testing.T) {
		q := core.NewKeyedQueue[string](core.WithParallelism(1), core.WithIdleTimeout(idle))
		defer q.Close()
		release := make(chan struct{})
		defer close(release)
		q.Submit(context.Background(), "busy", func(context.Context) error {
			<-release // holds the only slot
			return nil
		})
		task, err := q.Submit(context.Background(), "waiting", func(context.Context) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		task.Cancel()
		time.Sleep(idle)
		synctest.Wait()
		if got := q.Stats().Lanes; got != 1 {
			t.Errorf("Lanes one idle timeout after the waiting lane's only task was canceled = %d, want 1 (the busy lane)", got)
		}
	})
}

// TestKeyedQueueRoomAndEndedContext is the regression test of a race the
// KeyedQueue model allows for (see kqModel.cancelGroup), which fails when
// it is made to happen often: a Submit waiting for room
// (WithCapacity) whose context ends just as room is handed to it must
// return ctx.Err(), or a task that ends canceled at once, without running;
// and the queue must still stop. Each of many keys has a running task, a
// pending one and a waiting Submit, all but the running one with the
// context that ends.
func TestKeyedQueueRoomAndEndedContext(t *testing.T) {
	for _, observed := range []bool{false, true} {
		t.Run(fmt.Sprint("observed=", observed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { testRoomAndEndedContext(t, observed) })
		})
	}
}

func testRoomAndEndedContext(t *testing.T, observed bool) {
	const keys = 200
	opts := []core.Option{core.WithCapacity(1)}
	if observed {
		opts = append(opts, core.WithObserver(func(core.Event) {}))
	}
	q := core.NewKeyedQueue[int](opts...)
	release := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	var ran sync.Map
	tasks := make([]*core.Task, keys)
	errs := make([]error, keys)
	var wg sync.WaitGroup
	for k := range keys {
		q.Submit(context.Background(), k, func(context.Context) error {
			<-release
			return nil
		})
		q.Submit(ctx, k, func(context.Context) error { return nil })
		wg.Go(func() {
			tasks[k], errs[k] = q.Submit(ctx, k, func(context.Context) error {
				ran.Store(k, true)
				return nil
			})
		})
	}
	synctest.Wait()
	cancel()
	wg.Wait()
	synctest.Wait()
	for k := range keys {
		switch {
		case errs[k] == nil && tasks[k].State() != core.TaskCanceled:
			t.Errorf("key %d: Submit, whose context ended while it waited for room, returned a task in state %v, want %v", k, tasks[k].State(), core.TaskCanceled)
		case errs[k] != nil && errs[k] != context.Canceled:
			t.Errorf("key %d: Submit = %v, want a task or %v", k, errs[k], context.Canceled)
		}
	}
	close(release)
	stopped := make(chan struct{})
	go func() {
		q.Close()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-time.After(time.Hour):
		t.Fatalf("Close still blocks an hour after the tasks ended; Stats = %+v", q.Stats())
	}
	for k := range keys {
		if _, ok := ran.Load(k); ok {
			t.Errorf("key %d: the task of a Submit whose context ended while it waited for room ran", k)
		}
	}
}

// TestKeyedQueueDoneAfterContextEnds is the regression test of a failure
// of TestStressKeyedQueueCancelStorm: a Do task's function that asks for
// its context's Done channel for the first time after Do's context ended
// (here, ended by the function itself), and before the queue noticed,
// must get a closed channel, not a panic.
func TestKeyedQueueDoneAfterContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := core.NewKeyedQueue[string]()
		defer q.Close()
		ctx, cancel := context.WithCancel(context.Background())
		err := q.Do(ctx, "k", func(taskCtx context.Context) error {
			cancel()
			<-taskCtx.Done()
			return taskCtx.Err()
		})
		if err != context.Canceled {
			t.Fatalf("Do = %v, want %v", err, context.Canceled)
		}
	})
}
