package sim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"sluice/core"
)

// Config is what a [Runner] reports to, besides its methods' results.
type Config struct {
	// Observe receives every event of the run's primitive, as reported to
	// core.WithObserver, after the runner has read it: Task is the number
	// in the task's name ("t7" is Task 7) and Name is that name, for every
	// primitive; for consume, Key is the consumer's name and Lane the
	// handler goroutine within that consumer. It is called from the
	// primitive's goroutines, possibly several at once, in event order for
	// each task. It must not block and must not call the runner's methods
	// other than Stats, Tasks and Messages. It may be nil.
	Observe func(core.Event)
	// OnMessage receives each message as it is logged (see
	// [Runner.Messages]), outside the runner's lock, from whichever
	// goroutine logged it. It must not block. It may be nil.
	OnMessage func(Message)
}

// Message is a line of the run's log: news the page shows, such as a task
// that failed or was refused, a limit that changed, a drain that finished.
type Message struct {
	At    time.Duration // virtual time since the run started
	Error bool          // a failure, refusal or problem, rather than news
	Task  string        // the task it is about, if any
	Text  string        // a sentence for a person
}

// MaxMessages is how many messages [Runner.Messages] keeps.
const MaxMessages = 200

// Runner runs a [Scenario] through the real primitive: it builds the
// primitive with core.WithObserver and core.WithClock (its virtual
// [Clock]), submits each burst's tasks when the clock reaches the burst,
// and runs each task as a real function inside the primitive whose body
// sleeps its duration on the virtual clock, then returns nil, returns
// [ErrSimulated] or panics.
//
// Time moves only through [Runner.Advance] (or [Runner.AdvanceFor]) and
// [Runner.Step], which let the primitive's goroutines come to rest before
// each timer fires and after: every goroutine is then blocked on the
// virtual clock or inside the primitive. So a scenario runs the same way
// every time: the same tasks start and end at the same virtual times,
// whatever the speed of play, the frame rate or the machine. Do not
// advance the clock by itself.
//
// A Runner's methods are safe for concurrent use, but time should be moved
// by one goroutine; the methods that change the run (Advance, AdvanceFor,
// Step, Submit, Cancel, CancelAll, SetLimit, Drain, Close) return once the
// run is at rest again, which takes no virtual time. None of them blocks
// on the virtual clock, and none panics on a primitive's error: those
// become messages ([Runner.Messages], [Config.OnMessage]) or returned
// errors.
//
// Every goroutine a Runner starts is waited for by [Runner.Wait] after
// [Runner.Stop].
type Runner struct {
	sc        Scenario
	kind      *Kind // the scenario's primitive
	clock     *Clock
	observe   func(core.Event)
	onMessage func(Message)
	b         backend
	consume   *consumeBackend // b, for a consume scenario
	goTasks   bool            // each task runs on a goroutine of the runner's (Semaphore.Do)
	wg        sync.WaitGroup  // every goroutine the runner starts (spawn)
	changed   chan struct{}   // size 1: a nudge for settle after any bookkeeping change

	mu       sync.Mutex
	rng      *rand.Rand
	tasks    []*task // every task, by number - 1
	spread   int     // the next consumer for bursts spread over all
	gen      uint64  // counts bookkeeping changes
	busy     int     // tasks that are busy (see isBusy)
	aux      int     // runner goroutines at work that are not tasks (closers, drainers)
	live     int     // tasks in a live phase
	enqueued int     // Enqueued events
	pending  int     // tasks Enqueued and not started or ended
	waiting  int     // tasks in phWaiting
	running  int     // tasks started and not ended
	tokens   int64   // weight held by running tasks
	maxRun   int
	maxTok   int64
	outcomes [4]int // succeeded, failed, canceled, panicked
	sched    int    // tasks in phScheduled
	backlog  int    // tasks in phBacklog
	refused  int
	drawn    int // tasks withdrawn
	lanes    int // keyed: LaneCreated minus LaneEvicted
	keys     map[string]*keyCount
	limit    int // the current limit, from the scenario and Resized events

	closedSeen bool // the primitive reported Closed
	draining   bool
	closing    bool
	stopped    bool
	drained    chan struct{}
	drainDone  bool
	stuck      bool // a settle gave up; reported once

	log    []Message // the last MaxMessages messages, oldest first
	outbox []Message // messages not yet given to onMessage

	replayed int // entries of sc.Log performed so far (or dropped)

	// Of the goroutine that moves time (see AdvanceFor): a burst's tasks
	// not yet submitted, and the real time past which fire stops early.
	firing []*task
	until  time.Time
}

// keyCount is a keyed queue key's tasks, from events.
type keyCount struct{ pending, running int }

// NewRunner validates s and builds its primitive, ready to run from
// virtual time 0: the first Advance or Step submits the bursts due at 0.
// It makes every task of the scenario's bursts up front (drawing their
// priorities, durations, outcomes and keys from the seeded random source)
// so that their names and draws do not depend on how the run is played.
// It starts no goroutine, except one per consumer for consume. It returns
// the *InvalidError of Validate when s cannot run.
func NewRunner(s Scenario, cfg Config) (*Runner, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	s = s.clone()
	r := &Runner{
		sc:        s,
		clock:     NewClock(Epoch),
		observe:   cfg.Observe,
		onMessage: cfg.OnMessage,
		changed:   make(chan struct{}, 1),
		rng:       rand.New(rand.NewPCG(s.Seed, s.Seed^0x9e3779b97f4a7c15)),
		limit:     s.Limit,
		drained:   make(chan struct{}),
	}
	r.kind = KindOf(s.Primitive)
	r.goTasks = r.kind.Tokens
	if r.kind.Keys {
		r.keys = make(map[string]*keyCount)
	}
	r.b = r.kind.newBackend(r)

	// Bursts in order of time, so that task names follow submission.
	for _, i := range burstOrder(s.Bursts) {
		b := s.Bursts[i]
		ts := r.makeTasks(b, i)
		r.clock.AfterFunc(ms(b.AtMS), func() { r.fire(ts) })
	}
	for _, a := range s.Actions {
		r.clock.AfterFunc(ms(a.AtMS), func() { r.act(a) })
	}
	if r.consume != nil {
		r.consume.start(r)
	}
	return r, nil
}

// burstOrder returns the indices of bs in order of time, bursts due at
// the same time in the order given: the order in which a run draws their
// tasks, and so names them.
func burstOrder(bs []Burst) []int {
	order := make([]int, len(bs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(bs[a].AtMS, bs[b].AtMS) })
	return order
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// makeTasks makes the tasks of burst b, drawing their parameters.
func (r *Runner) makeTasks(b Burst, burst int) []*task {
	r.mu.Lock()
	defer r.mu.Unlock()
	ts := make([]*task, 0, b.Count)
	for range b.Count {
		n := len(r.tasks) + 1
		t := &task{
			n: n, name: "t" + strconv.Itoa(n), burst: burst, weight: 1, consumer: -1,
			cancelAfter: ms(b.CancelAfterMS), at: -1, started: -1, ended: -1,
		}
		if len(b.Levels) > 0 {
			t.prio = core.Priority(b.Levels[r.rng.IntN(len(b.Levels))])
		} else {
			t.prio = pick(r.rng, core.Normal, []core.Priority{core.Low, core.Normal, core.High},
				[]int{b.Priority.Low, b.Priority.Normal, b.Priority.High})
		}
		t.outcome = pick(r.rng, OutcomeOK, []Outcome{OutcomeOK, OutcomeFail, OutcomePanic, OutcomeSlow},
			[]int{b.Outcome.OK, b.Outcome.Fail, b.Outcome.Panic, b.Outcome.Slow})
		t.dur = ms(b.MinMS + r.rng.IntN(b.MaxMS-b.MinMS+1))
		if t.outcome == OutcomeSlow {
			t.dur *= SlowFactor
		}
		if r.kind.Keys {
			if len(b.KeyNames) > 0 {
				t.key = b.KeyNames[r.rng.IntN(len(b.KeyNames))]
			} else {
				t.key = KeyName(r.rng.IntN(b.Keys))
			}
		}
		if r.kind.Weights {
			t.weight = int64(max(b.Weight, 1))
		}
		if r.kind.HasGroups() {
			// A consumer's messages, a queue's tasks: its priority.
			if b.Consumer > 0 {
				t.consumer = b.Consumer - 1
			} else {
				t.consumer = r.spread % len(r.sc.Consumers)
				r.spread++
			}
			t.key = r.kind.GroupName(t.consumer)
			t.prio = core.Priority(r.sc.Consumers[t.consumer].Priority)
		}
		r.tasks = append(r.tasks, t)
		r.sched++
		ts = append(ts, t)
	}
	return ts
}

// pick draws one of vs with the relative weights ws, or returns def when
// every weight is zero.
func pick[T any](rng *rand.Rand, def T, vs []T, ws []int) T {
	total := 0
	for _, w := range ws {
		total += w
	}
	if total == 0 {
		return def
	}
	x := rng.IntN(total)
	for i, w := range ws {
		if x < w {
			return vs[i]
		}
		x -= w
	}
	return def
}

// Scenario returns the scenario the runner was made from, without the
// entries of its log dropped by DropLog.
func (r *Runner) Scenario() Scenario {
	r.mu.Lock()
	s := r.sc
	r.mu.Unlock()
	return s.clone()
}

// clone copies s and every list it holds, so that the copy shares nothing
// that can be changed with s.
func (s Scenario) clone() Scenario {
	s.Consumers = slices.Clone(s.Consumers)
	s.Bursts = cloneBursts(s.Bursts)
	s.Actions = slices.Clone(s.Actions)
	s.Log = cloneLog(s.Log)
	return s
}

// cloneLog copies a log and the bursts its entries hold.
func cloneLog(log []Step) []Step {
	log = slices.Clone(log)
	for i := range log {
		if b := log[i].Burst; b != nil {
			c := cloneBursts([]Burst{*b})[0]
			log[i].Burst = &c
		}
	}
	return log
}

// cloneBursts copies bs and the lists its bursts hold.
func cloneBursts(bs []Burst) []Burst {
	bs = slices.Clone(bs)
	for i := range bs {
		bs[i].Levels = slices.Clone(bs[i].Levels)
		bs[i].KeyNames = slices.Clone(bs[i].KeyNames)
	}
	return bs
}

// Clock returns the run's virtual clock, for reading the time. Move time
// with Advance and Step, not with the clock's own methods.
func (r *Runner) Clock() *Clock { return r.clock }

// Now returns the virtual time since the run started.
func (r *Runner) Now() time.Duration { return r.clock.Now().Sub(Epoch) }

// Advance moves virtual time forward by d (a negative d counts as 0),
// firing every timer due within it, one at a time and in order: bursts,
// scripted actions, task sleeps, cancel-afters and the primitive's own
// timers. Once the run has had work and finished it, time stays at its
// last event. Before and after each, it lets the run come to rest. The
// playground calls it on each animation frame while playing, with
// FrameStep(frame, speed), and may call Advance(0) while paused to let
// clicks take effect. It blocks while the run's goroutines catch up,
// never on virtual time; after Stop it does nothing.
func (r *Runner) Advance(d time.Duration) {
	r.advance(d, time.Time{})
}

// AdvanceFor is Advance that hands the thread back once the real time
// until has passed: between two timers, or between two submissions of a
// burst's tasks (a burst of 10,000 tasks takes a page's main thread a
// third of a second), always after at least one. It reports whether it
// moved time all the way; when it did not, the run is at rest midway,
// possibly with a burst partly submitted, and the next Advance,
// AdvanceFor or Step goes on from there before anything else, so that the
// run is the same however it was cut. Until then, call no other method
// that changes the run but Stop. It blocks like Advance.
func (r *Runner) AdvanceFor(d time.Duration, until time.Time) bool {
	return r.advance(d, until)
}

func (r *Runner) advance(d time.Duration, until time.Time) bool {
	r.until = until
	defer func() { r.until = time.Time{} }()
	if !r.fireRest() {
		r.flush()
		return false
	}
	r.settle()
	target := r.clock.Now().Add(max(d, 0))
	for !r.isStopped() {
		if st, ok := r.nextStep(); ok && !Epoch.Add(ms(st.AtMS)).After(target) {
			r.replay(st)
			continue
		}
		if !r.clock.fireNext(target, true) {
			break
		}
		r.settle()
		if len(r.firing) > 0 || r.late() {
			r.flush()
			return false
		}
	}
	if !r.isStopped() && !r.ended() {
		r.clock.advanceTo(target)
	}
	r.flush()
	return true
}

// late reports whether AdvanceFor's time is up.
func (r *Runner) late() bool {
	return !r.until.IsZero() && time.Now().After(r.until)
}

// ended reports whether the run has had work and has finished it: time
// then stays at its last event, so that a run ends at the same time
// whatever the steps it was advanced by (the speed of play).
func (r *Runner) ended() bool {
	r.mu.Lock()
	made := len(r.tasks)
	r.mu.Unlock()
	return made > 0 && r.Finished()
}

// Step lets the run come to rest, jumps to the next timer's deadline and
// fires that timer alone ("step one event at a time"), then lets the run
// come to rest again. It reports false, changing nothing, when no timer is
// pending: the run has nothing left to do until someone submits work. It
// blocks like Advance.
func (r *Runner) Step() bool {
	r.fireRest()
	r.settle()
	for !r.isStopped() {
		st, ok := r.nextStep()
		if !ok {
			break
		}
		next, pending := r.clock.Next()
		if pending && r.clock.Fired() < st.Fired && !next.After(Epoch.Add(ms(st.AtMS))) {
			break // an event of the run comes first
		}
		r.replay(st)
		if st.Do != StepPause && st.Do != StepStep {
			r.flush()
			return true
		}
	}
	if r.isStopped() || !r.clock.Step() {
		r.flush()
		return false
	}
	r.settle()
	r.flush()
	return true
}

// nextStep returns the next entry of the scenario's log to replay.
func (r *Runner) nextStep() (Step, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.replayed >= len(r.sc.Log) {
		return Step{}, false
	}
	return r.sc.Log[r.replayed], true
}

// replay performs st, the next entry of the scenario's log, at the point
// of the run it was taken at: it fires the clock's timers until st.Fired
// of them have fired, or none is left before st's time, moves the clock to
// st's time, and does what st says.
func (r *Runner) replay(st Step) {
	defer func(until time.Time) { r.until = until }(r.until)
	r.until = time.Time{} // a step's timers and action come whole
	at := Epoch.Add(ms(st.AtMS))
	for !r.isStopped() && r.clock.Fired() < st.Fired && r.clock.fireNext(at, true) {
		r.settle()
	}
	// Only a scenario edited by hand can leave events due before st's
	// time: they come first.
	for !r.isStopped() && r.clock.fireNext(at.Add(-1), true) {
		r.settle()
	}
	r.clock.advanceTo(at)
	r.mu.Lock()
	r.replayed++
	entry := r.replayed
	r.mu.Unlock()
	// The person watching did not do it: the log did.
	who := fmt.Sprintf("the recorded action (entry %d of the link's log)", entry)
	switch st.Do {
	case StepBurst:
		if err := r.Submit(*st.Burst); err != nil {
			r.logf(true, "", "a burst of the log could not run: %v", err)
		}
	case StepCancel:
		if err := r.cancelBy(st.Task, who); err != nil {
			r.logf(true, st.Task, "the log cancels %s, but %v", st.Task, err)
		}
	case StepPause, StepStep:
	default:
		// A person's action: the same call, and so the same messages, as
		// when it was taken, but for who took it.
		if err := r.performBy(Action{Do: st.Do, N: st.N}, who); err != nil {
			r.logf(true, "", "the log's %s could not run: %v", st.Do, err)
		}
	}
	r.settle()
}

// LogLeft returns how many entries of the scenario's log are still to be
// replayed.
func (r *Runner) LogLeft() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.sc.Log) - r.replayed
}

// DropLog drops the entries of the scenario's log not yet replayed, so
// that what a person does now follows what has happened, and returns how
// many it dropped. [Runner.Scenario] no longer holds them.
func (r *Runner) DropLog() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.sc.Log) - r.replayed
	r.sc.Log = r.sc.Log[:r.replayed:r.replayed]
	if len(r.sc.Log) == 0 {
		r.sc.Log = nil
	}
	return n
}

// Finished reports whether the run has nothing left to do: every task made
// so far has ended, been refused or withdrawn, and no timer is pending.
func (r *Runner) Finished() bool {
	if r.clock.Pending() > 0 {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.replayed >= len(r.sc.Log) && r.live == 0 && r.sched == 0 && r.backlog == 0
}

// fire submits the tasks of a burst that is due, each once the run is at
// rest, and stops early, keeping the rest in r.firing, when AdvanceFor's
// time is up (see fireRest).
func (r *Runner) fire(ts []*task) {
	r.firing = ts
	r.fireRest()
}

// fireRest submits r.firing's tasks as fire does. It reports false when
// it stopped early, with tasks left. Only the goroutine that moves time
// calls it.
func (r *Runner) fireRest() bool {
	for i, t := range r.firing {
		if r.isStopped() {
			break
		}
		if i > 0 && i%16 == 0 && r.late() {
			r.firing = r.firing[i:]
			return false
		}
		r.submit(t)
		r.settle()
	}
	r.firing = nil
	return true
}

// act performs a scripted action.
func (r *Runner) act(a Action) {
	switch a.Do {
	case ActionLimit:
		r.logf(false, "", "the scenario sets the limit to %d", a.N)
		if err := r.SetLimit(a.N); err != nil {
			r.logf(true, "", "%v", err)
		}
	case ActionCancelAll:
		r.logf(false, "", "the scenario cancels every task")
		r.CancelAll()
	case ActionDrain:
		r.logf(false, "", "the scenario drains the %s", r.noun())
		r.Drain()
	case ActionClose:
		r.logf(false, "", "the scenario closes the %s", r.noun())
		r.Close()
	}
}

func (r *Runner) noun() string { return r.kind.Noun }

// submit hands t, which is due, to the primitive (or, for consume, to its
// consumer's backlog).
func (r *Runner) submit(t *task) {
	r.mu.Lock()
	if t.phase != phScheduled {
		r.mu.Unlock() // withdrawn while scheduled
		return
	}
	r.sched--
	t.at = r.now()
	if why := r.b.refusal(r); why != "" {
		r.set(t, func() {
			t.phase = phRefused
			t.err = why
		})
		r.refused++
		r.logTaskLocked(true, t, "%s refused: %s", t.name, why)
		r.mu.Unlock()
		r.flush()
		return
	}
	if t.cancelAfter > 0 {
		t.deadline = r.clock.AfterFunc(t.cancelAfter, func() { r.expire(t) })
	}
	if r.consume != nil {
		r.set(t, func() { t.phase = phBacklog })
		r.backlog++
		r.mu.Unlock()
		r.b.submit(r, t)
		return
	}
	r.set(t, func() { t.phase = phSubmitting })
	r.mu.Unlock()
	r.b.submit(r, t)
	r.flush()
}

// refuse records that the primitive turned t away with err. r.mu must be
// held.
func (r *Runner) refuseLocked(t *task, err error) {
	why := err.Error()
	switch {
	case errors.Is(err, core.ErrFull):
		why = fmt.Sprintf("%v: the queue already holds its capacity of %s pending tasks", err, num(r.sc.Capacity))
		if r.kind.Keys {
			why = fmt.Sprintf("%v: key %s already has its capacity of %s pending tasks", err, t.key, num(r.sc.Capacity))
		}
	case errors.Is(err, core.ErrClosed):
		why = fmt.Sprintf("%v: the %s is draining or closed and takes no new tasks", err, r.noun())
	}
	r.set(t, func() {
		t.phase = phRefused
		t.err = err.Error()
	})
	r.refused++
	r.logTaskLocked(true, t, "%s refused: %s", t.name, why)
}

// expire cancels t when its cancel-after runs out.
func (r *Runner) expire(t *task) {
	r.mu.Lock()
	t.deadline = nil
	live := t.phase.live() || t.phase == phBacklog
	r.mu.Unlock()
	if live {
		r.logf(false, t.name, "%s: its cancel-after of %s ran out", t.name, seconds(t.cancelAfter))
		r.cancel([]*task{t})
		r.settle()
	}
	r.flush()
}

func (r *Runner) now() time.Duration { return r.clock.Now().Sub(Epoch) }

func (r *Runner) isStopped() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopped
}

// set applies f to t's bookkeeping and keeps the runner's counts of busy
// and live tasks. r.mu must be held.
func (r *Runner) set(t *task, f func()) {
	busy, live := r.isBusy(t), t.phase.live()
	f()
	if b := r.isBusy(t); b != busy {
		if b {
			r.busy++
		} else {
			r.busy--
		}
	}
	if l := t.phase.live(); l != live {
		if l {
			r.live++
		} else {
			r.live--
		}
	}
	if t.phase.final() && t.deadline != nil {
		t.deadline.Stop()
		t.deadline = nil
	}
	r.gen++
	r.nudge()
}

// isBusy reports whether t is doing something that will change the
// bookkeeping without time moving: its goroutine runs, or the primitive
// is about to start or end it. Tasks that wait for the clock, for a slot,
// or for their consumer are not busy. Waits that end without a report to
// the runner (a slot freed, a grant) are caught by comparing the
// primitive's counters with the bookkeeping (backend.quiet). r.mu must be
// held.
func (r *Runner) isBusy(t *task) bool {
	switch t.phase {
	case phSubmitting, phRunning, phWoken:
		return true
	case phQueued:
		// A semaphore's or consumer's task reports Started or Waiting
		// next, from its own goroutine.
		return r.goTasks || r.consume != nil || t.kicked
	case phWaiting:
		// Canceled while waiting: the cancel wakes it. A consumer's
		// message is only flagged, and stops once it has a token, unless
		// its consumer's context was canceled too.
		return t.kicked && (r.consume == nil || r.consume.cons[t.consumer].canceled)
	}
	return false
}

// kick marks t as canceled by the runner, so that its wake-up counts as
// busy, and returns the function that cancels it, if it has one yet.
// r.mu must be held.
func (r *Runner) kick(t *task) func() {
	r.set(t, func() {
		t.kicked = true
		if t.phase == phSleeping {
			t.phase = phWoken
		}
	})
	return t.cancel
}

// setCancel gives t the function that cancels it, once the primitive has
// it, and calls that function at once if the runner has already canceled
// t (kicked), which it could not do before t had one. It takes r.mu, and
// calls cancel without it.
func (r *Runner) setCancel(t *task, cancel func()) {
	r.mu.Lock()
	t.cancel = cancel
	kicked := t.kicked
	r.mu.Unlock()
	if kicked {
		cancel()
	}
}

// withdraw ends t, which has not reached the primitive, as canceled.
// r.mu must be held.
func (r *Runner) withdraw(t *task, why string) {
	switch t.phase {
	case phScheduled:
		r.sched--
	case phBacklog:
		r.backlog--
	}
	r.set(t, func() {
		t.phase = phWithdrawn
		t.err = why
		t.ended = r.now()
	})
	r.drawn++
}

// spawn runs f on a goroutine of the runner's, which Runner.Wait waits
// for. It does not block.
func (r *Runner) spawn(f func()) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		f()
	}()
}

// nudge wakes settle, natively.
func (r *Runner) nudge() {
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

// settle waits until the run is at rest: no task is busy, no runner
// goroutine is at work, and the primitive's counters agree with the
// events it has reported, so that nothing will happen until time moves.
// It waits by yielding to the run's goroutines; it never waits on virtual
// time. If the run does not come to rest within settleTimeout (natively)
// or settleSpins yields (in WebAssembly, where there is one thread), it
// logs an error and returns, so the page never hangs.
func (r *Runner) settle() {
	var deadline time.Time
	var tick *time.Timer
	defer func() {
		if tick != nil {
			tick.Stop()
		}
	}()
	for i := 0; ; i++ {
		if r.atRest() || r.isStopped() {
			return
		}
		if runtime.GOARCH == "wasm" || i < 64 {
			if runtime.GOARCH == "wasm" && i > settleSpins {
				r.giveUp()
				return
			}
			runtime.Gosched()
			continue
		}
		if deadline.IsZero() {
			deadline = time.Now().Add(settleTimeout)
			tick = time.NewTimer(settlePoll)
		} else if time.Now().After(deadline) {
			r.giveUp()
			return
		} else {
			tick.Reset(settlePoll)
		}
		select {
		case <-r.changed:
		case <-tick.C:
		}
	}
}

// Bounds on settle. They only matter if a primitive misbehaves.
const (
	settleTimeout = 10 * time.Second
	settlePoll    = 50 * time.Microsecond
	settleSpins   = 1_000_000
)

// drainAsync calls drain with a context that does not end, on a goroutine
// of the runner's: the run is busy (aux) until the goroutine is about to
// call it, so that settle does not take the run for at rest before the
// queue is draining.
func (r *Runner) drainAsync(drain func(context.Context) error) {
	r.mu.Lock()
	r.aux++
	r.mu.Unlock()
	r.spawn(func() {
		r.mu.Lock()
		r.aux--
		r.gen++
		r.mu.Unlock()
		drain(context.Background())
	})
}

func (r *Runner) giveUp() {
	r.mu.Lock()
	if !r.stuck {
		r.stuck = true
		r.logLocked(Message{At: r.now(), Error: true, Text: fmt.Sprintf(
			"the run did not come to rest (%d tasks busy, %d pending, %d running): time moves on, but what happens next may differ from run to run",
			r.busy, r.pending, r.running)})
	}
	r.mu.Unlock()
	r.flush()
}

// atRest reports whether the run is at rest (see settle). For consume it
// may hand a message to a consumer, and then reports false.
func (r *Runner) atRest() bool {
	r.mu.Lock()
	if r.busy > 0 || r.aux > 0 {
		r.mu.Unlock()
		return false
	}
	gen := r.gen
	r.mu.Unlock()
	snap := r.b.snapshot()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.gen != gen || r.busy > 0 || r.aux > 0 {
		return false
	}
	return r.b.quiet(r, snap)
}

// logf logs a message that is about no task.
func (r *Runner) logf(isErr bool, task string, format string, args ...any) {
	r.mu.Lock()
	r.logLocked(Message{At: r.now(), Error: isErr, Task: task, Text: fmt.Sprintf(format, args...)})
	r.mu.Unlock()
	r.flush()
}

// logTaskLocked logs a message about t. r.mu must be held; flush
// delivers it to OnMessage later.
func (r *Runner) logTaskLocked(isErr bool, t *task, format string, args ...any) {
	r.logLocked(Message{At: r.now(), Error: isErr, Task: t.name, Text: fmt.Sprintf(format, args...)})
}

func (r *Runner) logLocked(m Message) {
	if len(r.log) == MaxMessages {
		copy(r.log, r.log[1:])
		r.log = r.log[:MaxMessages-1]
	}
	r.log = append(r.log, m)
	if r.onMessage != nil {
		r.outbox = append(r.outbox, m)
	}
}

// flush hands queued messages to OnMessage, outside the lock.
func (r *Runner) flush() {
	if r.onMessage == nil {
		return
	}
	r.mu.Lock()
	out := r.outbox
	r.outbox = nil
	r.mu.Unlock()
	for _, m := range out {
		r.onMessage(m)
	}
}

// Messages returns the last MaxMessages messages, oldest first.
func (r *Runner) Messages() []Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.log)
}

// Tasks returns every task made so far, in order of their names.
func (r *Runner) Tasks() []TaskInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]TaskInfo, len(r.tasks))
	for i, t := range r.tasks {
		out[i] = t.info()
	}
	return out
}

// Task returns the task with the given name, and false if there is none.
func (r *Runner) Task(name string) (TaskInfo, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.byName(name)
	if t == nil {
		return TaskInfo{}, false
	}
	return t.info(), true
}

// byName returns the task with the given name, or nil. r.mu must be held.
func (r *Runner) byName(name string) *task {
	n := taskNumber(name)
	if n < 1 || n > len(r.tasks) {
		return nil
	}
	return r.tasks[n-1]
}
