package core_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"sluice/core"
)

// The Consume model runs one to three consumers, each with its own
// channel (fed in order by a feeder goroutine), context, WithConcurrency
// and, when they share a Semaphore, priority on it; the program sends
// messages whose handlers wait, sleep or wait for the context and then
// succeed, fail or panic, closes channels, cancels contexts, opens gates,
// lets virtual time pass, and takes, gives back and resizes tokens of the
// semaphore itself. After every step it checks:
//
//   - each consumer has received exactly the messages the contract says
//     (in order, as many as it has handlers free: a consumer with messages
//     waiting and a handler free is a failure);
//   - no consumer runs more handlers than its concurrency, and the
//     consumers and the program together never hold more tokens than the
//     semaphore's limit (exactly, in the order the handlers recorded);
//   - the semaphore hands tokens out by priority, then arrival: a handler
//     that started while a message ahead of it (higher priority, or same
//     priority and received in an earlier step) still waited is a
//     failure; messages received in the same step are not ordered, since
//     the order in which their goroutines reached the semaphore is not
//     the contract's;
//   - every received message is handled exactly once, or, if the context
//     ended first, reported to OnError with the context's error; every
//     handler error and panic is reported to OnError exactly once;
//   - Consume returns when, and what, the contract says; the semaphore's
//     Stats match; with an observer, the events form one life per message.

type cmState uint8

const (
	cmQueued  cmState = iota // sent, not received
	cmWaiting                // received, waiting for a semaphore token
	cmRunning
	cmDone
	cmDropped // received, not handled: the context ended
)

type cmMsg struct {
	job      *fzJob
	c        *cmConsumer
	state    cmState
	arrival  int  // the step it was received in
	floating bool // received during this step
	startAt  time.Duration
	err      error // what its handler returned, or the context's error if dropped
	panicked bool
	byCtx    bool // its handler ended because the context did
}

// cmConsumer is one Consume call and its model.
type cmConsumer struct {
	i       int
	n       int
	buf     int
	prio    core.Priority
	msgs    chan *fzJob
	toSend  chan *fzJob // nil is the close
	stop    chan struct{}
	ctx     context.Context
	cancel  context.CancelFunc
	ev      *fzEvents
	res     chan error
	onErrMu sync.Mutex
	onErrs  []cmOnErr
	handed  int // messages the feeder handed to msgs; guarded by onErrMu

	canceled, closeSent, drained, dropped bool
	queue                                 []*cmMsg // sent, not received, in order
	received                              []*cmMsg
	busy, running                         int // received not finished; running handlers
	returned, got                         bool
	wantErr                               error
}

type cmOnErr struct {
	job *fzJob
	err error
}

type cmModel struct {
	fzRun

	cons   []*cmConsumer
	msgs   []*cmMsg
	byJob  map[*fzJob]*cmMsg
	sem    *core.Semaphore
	limit  int64
	inUse  int64 // tokens held: by running handlers and by the program
	held   int64 // by the program
	semCxl uint64
}

const (
	cmOpSend = iota
	cmOpClose
	cmOpCancel
	cmOpGate
	cmOpSleep
	cmOpTry
	cmOpRelease
	cmOpSetLimit
)

var cmOps = [32]int{
	cmOpSend, cmOpClose, cmOpCancel, cmOpGate, cmOpSleep, cmOpTry, cmOpRelease, cmOpSetLimit,
	cmOpSend, cmOpSend, cmOpSend, cmOpSend, cmOpSend, cmOpSend, cmOpSend, cmOpSend,
	cmOpGate, cmOpGate, cmOpGate, cmOpGate, cmOpGate, cmOpGate, cmOpGate,
	cmOpSleep, cmOpSleep, cmOpSleep, cmOpSleep,
	cmOpTry, cmOpRelease, cmOpSetLimit,
	cmOpSend, cmOpGate,
}

// FuzzConsume decodes its input into the programs described above, runs
// them against real Consume calls inside a synctest bubble, and checks the
// model after every step. Each program ends by opening every gate and
// closing every channel; every Consume must then return within a bound of
// virtual time.
func FuzzConsume(f *testing.F) {
	for _, seed := range cmSeeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) < 4 || len(prog) > 600 {
			return
		}
		synctest.Test(t, func(t *testing.T) { runConsumeProgram(t, prog) })
	})
}

// cmSeeds cover every operation. Header: consumers less one, semaphore
// limit (0: none), observer; then for each consumer its concurrency less
// one, its buffer and its priority plus one. Send: consumer, job.
var cmSeeds = [][]byte{
	// One serial consumer, no semaphore: order, outcomes, close.
	{0, 0, 1, 0, 0, 1,
		cmOpSend, 0, 1, cmOpSend, 0, 6, cmOpSend, 0, 11, cmOpSend, 0, 0, cmOpSend, 0, 3, 2,
		cmOpGate, 0, cmOpGate, 0, cmOpGate, 0, cmOpClose, 0, cmOpSleep, 5},
	// Three consumers sharing a semaphore of 2, with priorities.
	{2, 2, 1, 1, 0, 0, 1, 1, 1, 2, 0, 2,
		cmOpSend, 0, 1, cmOpSend, 1, 1, cmOpSend, 2, 1, cmOpSend, 0, 1, cmOpSend, 1, 1, cmOpSend, 2, 1,
		cmOpGate, 0, cmOpGate, 0, cmOpGate, 0, cmOpGate, 0, cmOpClose, 0, cmOpClose, 1, cmOpClose, 2},
	// Cancel with handlers running, waiting for tokens, and messages left.
	{1, 1, 1, 2, 1, 1, 1, 0, 1,
		cmOpSend, 0, 2, cmOpSend, 0, 1, cmOpSend, 1, 2, cmOpSend, 0, 1, cmOpSend, 0, 1,
		cmOpCancel, 0, cmOpGate, 0, cmOpCancel, 1, cmOpSend, 1, 1},
	// The program takes, gives back and resizes tokens.
	{1, 1, 0, 1, 0, 1, 0, 0, 1,
		cmOpTry, 0, cmOpSend, 0, 1, cmOpSend, 1, 1, cmOpSetLimit, 2, cmOpRelease, 0, cmOpTry, 0,
		cmOpSetLimit, 0, cmOpGate, 0, cmOpRelease, 0, cmOpGate, 0, cmOpClose, 0},
	// Concurrency 4 with sleeps, then close while busy.
	{0, 0, 1, 3, 2, 1,
		cmOpSend, 0, 3, 1, cmOpSend, 0, 3, 4, cmOpSend, 0, 4, 2, cmOpSend, 0, 3, 7, cmOpSend, 0, 8, cmOpSend, 0, 3, 1,
		cmOpClose, 0, cmOpSleep, 3, cmOpSleep, 20},
}

func runConsumeProgram(t *testing.T, prog []byte) {
	r := &fzReader{b: prog}
	m := &cmModel{fzRun: newFzRun(t), byJob: map[*fzJob]*cmMsg{}}
	ncons := 1 + r.intn(3)
	if l := r.intn(4); l > 0 {
		m.limit = int64(l)
		m.sem = core.NewSemaphore(m.limit)
	}
	observed := r.intn(2) == 1
	for i := range ncons {
		ctx, cancel := context.WithCancel(context.Background())
		c := &cmConsumer{
			i: i, n: 1 + r.intn(4), buf: r.intn(3), prio: core.Priority(r.intn(4) - 1),
			toSend: make(chan *fzJob, 2*len(prog)), stop: make(chan struct{}),
			ctx: ctx, cancel: cancel, res: make(chan error, 1),
		}
		c.msgs = make(chan *fzJob, c.buf)
		m.cons = append(m.cons, c)
		opts := []core.Option{core.WithConcurrency(c.n), core.WithPriority(c.prio), core.OnError(func(j *fzJob, err error) {
			c.onErrMu.Lock()
			c.onErrs = append(c.onErrs, cmOnErr{j, err})
			c.onErrMu.Unlock()
		})}
		if m.sem != nil {
			opts = append(opts, core.WithSemaphore(m.sem))
		}
		if observed {
			c.ev = new(fzEvents)
			opts = append(opts, core.WithObserver(c.ev.observe))
		}
		m.wg.Go(func() { c.feed() })
		m.wg.Go(func() {
			c.res <- core.Consume(ctx, c.msgs, func(ctx context.Context, j *fzJob) error {
				return m.log.run(ctx, j)
			}, opts...)
		})
	}
	defer m.cleanup()

	m.step++
	m.did = "start"
	m.settle()
	for r.more() && m.step < fqMaxSteps {
		m.step++
		m.op(r)
		m.settle()
	}
	m.step++
	m.did = "open every gate, give back every token, close every channel"
	for _, u := range m.msgs {
		u.job.open()
	}
	for ; m.held > 0; m.held-- {
		m.inUse--
		m.sem.Release(1)
	}
	for _, c := range m.cons {
		m.close(c)
	}
	m.settle()
	for bound := 0; ; bound++ {
		left := 0
		for _, c := range m.cons {
			if !c.returned {
				left++
			}
		}
		if left == 0 {
			break
		}
		if bound == 200 {
			t.Fatalf("%d consumers did not return within %v of virtual time", left, m.now)
		}
		m.step++
		m.did = "sleep 16ms"
		time.Sleep(16 * time.Millisecond)
		m.settle()
	}
	if m.sem != nil {
		if st := m.sem.Stats(); st.InUse != 0 || st.Waiters != 0 {
			t.Fatalf("semaphore Stats after every consumer returned = %+v, want no tokens held and no waiters", st)
		}
	}
}

// feed hands the messages the program sends to c's channel, in order, and
// closes it when the program says.
func (c *cmConsumer) feed() {
	for {
		select {
		case j := <-c.toSend:
			if j == nil {
				close(c.msgs)
				return
			}
			select {
			case c.msgs <- j:
				c.onErrMu.Lock()
				c.handed++
				c.onErrMu.Unlock()
			case <-c.stop:
				return
			}
		case <-c.stop:
			return
		}
	}
}

func (m *cmModel) cleanup() {
	for _, u := range m.msgs {
		u.job.open()
	}
	for _, c := range m.cons {
		c.cancel()
		close(c.stop)
	}
	m.wg.Wait()
}

func (m *cmModel) op(r *fzReader) {
	switch cmOps[r.intn(len(cmOps))] {
	case cmOpSend:
		c := m.cons[r.intn(len(m.cons))]
		j := fzNewJob(r, len(m.msgs))
		u := &cmMsg{job: j, c: c}
		m.msgs = append(m.msgs, u)
		m.byJob[j] = u
		m.did = fmt.Sprintf("send %s (how %d, end %d) to consumer %d", j.name, j.how, j.end, c.i)
		if c.closeSent {
			m.did += ", closed: not sent"
			u.state = cmDone // never sent; nothing to check
			return
		}
		c.queue = append(c.queue, u)
		c.toSend <- j
	case cmOpClose:
		c := m.cons[r.intn(len(m.cons))]
		m.close(c)
	case cmOpCancel:
		c := m.cons[r.intn(len(m.cons))]
		m.did = fmt.Sprintf("cancel consumer %d", c.i)
		if !c.canceled {
			c.canceled = true
			for _, u := range c.received {
				switch u.state {
				case cmWaiting:
					u.state = cmDropped
					u.err = context.Canceled
					c.busy--
					c.dropped = true
					m.semCxl++
				case cmRunning:
				}
			}
		}
		c.cancel()
	case cmOpGate:
		u := fzPick(m.msgs, r.next(), func(u *cmMsg) bool { return u.job.shut() && u.state != cmDone && u.state != cmDropped })
		if u == nil {
			m.did = "open no gate"
			return
		}
		m.did = "open " + u.job.name
		u.job.open()
	case cmOpSleep:
		m.sleep(r)
	case cmOpTry:
		m.did = "TryAcquire(1)"
		if m.sem == nil {
			m.did = "no semaphore to try"
			return
		}
		want := m.waiters() == 0 && m.inUse < m.limit
		if got := m.sem.TryAcquire(1); got != want {
			m.fail("TryAcquire(1) = %v, want %v (%d in use of %d, %d waiting)", got, want, m.inUse, m.limit, m.waiters())
		}
		if want {
			m.held++
			m.inUse++
		}
	case cmOpRelease:
		m.did = "Release(1)"
		if m.held == 0 {
			m.did = "nothing to release"
			return
		}
		m.held--
		m.inUse--
		m.sem.Release(1)
	case cmOpSetLimit:
		n := int64(1 + r.intn(3))
		m.did = fmt.Sprintf("SetLimit(%d)", n)
		if m.sem == nil {
			m.did = "no semaphore to resize"
			return
		}
		m.limit = n
		m.sem.SetLimit(n)
	}
	m.receive()
}

func (m *cmModel) close(c *cmConsumer) {
	m.did = fmt.Sprintf("close consumer %d", c.i)
	if !c.closeSent {
		c.closeSent = true
		c.toSend <- nil
	}
}

func (m *cmModel) waiters() int {
	n := 0
	for _, u := range m.msgs {
		if u.state == cmWaiting {
			n++
		}
	}
	return n
}

// receive lets each consumer receive the messages it can: in order, while
// it has a handler free and its context has not ended.
func (m *cmModel) receive() {
	for _, c := range m.cons {
		for !c.canceled && !c.returned && c.busy < c.n && len(c.queue) > 0 {
			u := c.queue[0]
			c.queue = c.queue[1:]
			c.received = append(c.received, u)
			u.state = cmWaiting
			u.arrival = m.step
			u.floating = true
			c.busy++
		}
	}
}

func (m *cmModel) settle() {
	m.t.Helper()
	synctest.Wait()
	m.now = time.Since(m.log.t0)
	m.batch = m.log.take()
	var ahead, started []*cmMsg
	for _, u := range m.msgs {
		if u.state == cmWaiting && !u.floating {
			ahead = append(ahead, u)
		}
	}
	for _, e := range m.batch {
		u := m.byJob[e.job]
		m.entryAt = e.at
		if e.start {
			m.replayStart(u)
			started = append(started, u)
		} else {
			m.replayEnd(u, e)
		}
	}
	if m.sem != nil {
		for _, u := range started {
			for _, v := range ahead {
				if v.state == cmWaiting && (v.c.prio > u.c.prio || v.c.prio == u.c.prio && v.arrival < u.arrival) {
					m.fail("%s (consumer %d, priority %d) got a token while %s (consumer %d, priority %d), ahead of it, waited", u.job.name, u.c.i, u.c.prio, v.job.name, v.c.i, v.c.prio)
				}
			}
		}
	}
	for _, u := range m.msgs {
		u.floating = false
	}
	for _, c := range m.cons {
		if !c.canceled && c.closeSent && len(c.queue) == 0 && c.busy < c.n {
			c.drained = true
		}
		if !c.returned && c.busy == 0 && (c.canceled || c.drained) {
			c.returned = true
			switch {
			case c.drained && !c.dropped:
				c.wantErr = nil
			case c.canceled:
				c.wantErr = context.Canceled
			}
		}
	}
	m.checkRest()
	m.checkConsumers()
}

func (m *cmModel) replayStart(u *cmMsg) {
	c := u.c
	if u.state != cmWaiting {
		m.fail("%s's handler started in model state %d", u.job.name, u.state)
	}
	if c.running+1 > c.n {
		m.fail("%s's handler started with %d of consumer %d's handlers running, its concurrency is %d", u.job.name, c.running, c.i, c.n)
	}
	if m.sem != nil {
		if m.inUse+1 > m.limit {
			m.fail("%s's handler started with %d tokens in use of %d", u.job.name, m.inUse, m.limit)
		}
		m.inUse++
	}
	c.running++
	u.state = cmRunning
	u.startAt = m.entryAt
}

func (m *cmModel) replayEnd(u *cmMsg, e fzEntry) {
	c := u.c
	if u.state != cmRunning {
		m.fail("%s's handler ended in model state %d", u.job.name, u.state)
	}
	var ctxErr error
	if c.canceled {
		ctxErr = context.Canceled
	}
	if p := fzEndProblem(e, u.startAt, ctxErr); p != "" {
		m.fail("%s", p)
	}
	u.state = cmDone
	u.err = e.err
	u.panicked = e.panicked
	u.byCtx = e.byCtx
	c.running--
	c.busy--
	if m.sem != nil {
		m.inUse--
	}
	m.receive()
}

// checkRest checks what must hold at rest: no handler runs that should
// have ended, no message waits for a token while one is free, and the
// semaphore's counters.
func (m *cmModel) checkRest() {
	for _, u := range m.msgs {
		if u.state == cmRunning && u.job.due(u.startAt, m.now, u.c.canceled) {
			m.fail("%s's handler (how %d, started at %v) still runs at %v", u.job.name, u.job.how, u.startAt, m.now)
		}
		if u.state == cmWaiting && (m.sem == nil || m.inUse < m.limit) {
			m.fail("%s waits for a handler with %d of %d tokens in use", u.job.name, m.inUse, m.limit)
		}
	}
	if m.sem == nil {
		return
	}
	want := core.SemaphoreStats{Limit: m.limit, InUse: m.inUse, Waiters: m.waiters(), Canceled: m.semCxl}
	if got := m.sem.Stats(); got != want {
		m.fail("semaphore Stats = %+v, want %+v", got, want)
	}
}

func (m *cmModel) checkConsumers() {
	for _, c := range m.cons {
		c.onErrMu.Lock()
		onErrs := append([]cmOnErr(nil), c.onErrs...)
		handed := c.handed
		c.onErrMu.Unlock()
		if got := handed - len(c.msgs); got != len(c.received) {
			m.fail("consumer %d received %d messages, want %d", c.i, got, len(c.received))
		}
		// OnError: each failed, panicked or dropped message, once.
		want := map[*fzJob]*cmMsg{}
		for _, u := range c.received {
			if u.state == cmDropped || u.state == cmDone && (u.err != nil || u.panicked) {
				want[u.job] = u
			}
		}
		seen := map[*fzJob]bool{}
		for _, oe := range onErrs {
			u := want[oe.job]
			switch {
			case seen[oe.job]:
				m.fail("OnError called twice for %s", oe.job.name)
			case u == nil:
				m.fail("OnError(%s, %v) for a message that did not fail", oe.job.name, oe.err)
			case u.panicked && !fzErrIs(oe.err, core.TaskPanicked, nil, u.job):
				m.fail("OnError(%s, %v), want its *PanicError", oe.job.name, oe.err)
			case !u.panicked && oe.err != u.err:
				m.fail("OnError(%s, %v), want %v", oe.job.name, oe.err, u.err)
			}
			seen[oe.job] = true
		}
		if len(seen) != len(want) {
			m.fail("consumer %d: OnError called for %d messages, want %d", c.i, len(seen), len(want))
		}
		if !c.got {
			var err error
			select {
			case err = <-c.res:
				c.got = true
			default:
			}
			if c.got != c.returned || c.got && err != c.wantErr {
				m.fail("consumer %d: Consume returned %v (%v), want %v (%v)", c.i, c.got, err, c.returned, c.wantErr)
			}
		}
		if c.ev != nil {
			m.checkEvents(c)
		}
	}
}

// checkEvents checks consumer c's events: one life per received message,
// Started on a lane below the concurrency, and as many lives of each end
// as the model has, since the order in which the handlers' goroutines
// number messages is not the receiving order.
func (m *cmModel) checkEvents(c *cmConsumer) {
	byTask := map[uint64][]core.Event{}
	for _, e := range c.ev.all() {
		if e.Task == 0 || e.Priority != c.prio || e.Weight != 1 {
			m.fail("consumer %d: event %+v, want a Task, Priority %d and Weight 1", c.i, e, c.prio)
		}
		if e.Kind == core.Started && (e.Lane < 0 || e.Lane >= c.n) {
			m.fail("consumer %d: handler started on lane %d, want below %d", c.i, e.Lane, c.n)
		}
		byTask[e.Task] = append(byTask[e.Task], e)
	}
	count := map[string]int{}
	for id, es := range byTask {
		k := ""
		for i, e := range es {
			if i > 0 {
				k += " "
			}
			k += e.Kind.String()
		}
		if last := es[len(es)-1]; last.Kind.Terminal() && last.Kind != core.Finished && last.Err == nil {
			m.fail("consumer %d: task %d's %v event has no Err", c.i, id, last.Kind)
		}
		count[k]++
	}
	want := map[string]int{}
	for _, u := range c.received {
		k := "enqueued"
		if m.sem != nil {
			k = "enqueued waiting" // may also have waited for nothing: see below
		}
		switch u.state {
		case cmRunning:
			k += " started"
		case cmDone:
			st, _ := fzOutcomeOf(fzEntry{job: u.job, err: u.err, panicked: u.panicked, byCtx: u.byCtx})
			k += " started " + fzKind(st).String()
		case cmDropped:
			k += " canceled"
		}
		want[k]++
	}
	// With a semaphore, a handler that got its token at once has no
	// Waiting event: fold those lives into the ones with it.
	if m.sem != nil {
		for k, n := range count {
			if rest, ok := strings.CutPrefix(k, "enqueued"); ok && !strings.HasPrefix(rest, " waiting") {
				delete(count, k)
				count["enqueued waiting"+rest] += n
			}
		}
	}
	if len(count) != len(want) {
		m.fail("consumer %d: lives %v, want %v", c.i, count, want)
	}
	for k, n := range want {
		if count[k] != n {
			m.fail("consumer %d: lives %v, want %v", c.i, count, want)
		}
	}
}
