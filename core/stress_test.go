package core_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"sluice/core"
)

// The stress tests of this file run in real time on every core, except
// where they need virtual time (synctest). They assert nothing about
// timing: only that nothing hangs, leaks (goleak runs after the package's
// tests), panics, breaks a limit, or loses or doubles a task.

// The size of a cancellation storm: stStormSize waiters or tasks in all
// (stress_race_test.go and stress_norace_test.go: a quarter under the race
// detector, which slows each many times), stStormWave in flight at once,
// since the race detector allows 8128 live goroutines.
const stStormWave = 2000

// stStormTotal returns how many waiters or tasks a cancellation storm
// runs: stStormSize, a quarter of it on single-threaded js/wasm.
func stStormTotal() int {
	if runtime.GOOS == "js" {
		return stStormSize / 4
	}
	return stStormSize
}

// stErr is the error of a task planned to fail.
var stErr = errors.New("planned failure")

// TestStressSemaphoreCancelStorm runs waves of Semaphore waiters with
// random weights and priorities, with aging, whose contexts are canceled
// before the call, at random points while they wait or are being
// granted, or never, while holders release and others try to acquire.
// Every waiter whose context was never canceled must get its tokens; no
// more than the limit is ever held; and after each wave nothing is held,
// nobody waits, and Stats counted every canceled wait.
func TestStressSemaphoreCancelStorm(t *testing.T) {
	const limit = 8
	s := core.NewSemaphore(limit, core.WithAging(time.Microsecond))
	rng := rand.New(rand.NewPCG(1, 1))
	var held atomic.Int64
	var canceled uint64
	for wave := 0; wave < stStormTotal()/stStormWave; wave++ {
		var wg sync.WaitGroup
		var waveCanceled atomic.Uint64
		var cancels []context.CancelFunc
		for range stStormWave {
			ctx, cancel := context.WithCancel(context.Background())
			n := int64(1 + rng.IntN(3))
			p := core.Priority(rng.IntN(5) - 2)
			plan := rng.IntN(4) // 0: canceled first; 1, 2: at a random point; 3: never
			switch plan {
			case 0:
				cancel()
			case 1, 2:
				cancels = append(cancels, cancel)
			}
			try := rng.IntN(8) == 0
			wg.Go(func() {
				defer cancel()
				if try {
					if s.TryAcquire(n) {
						s.Release(n)
					}
				}
				err := s.AcquirePriority(ctx, n, p)
				switch {
				case err == nil:
					if h := held.Add(n); h > limit {
						t.Errorf("%d tokens held, over the limit %d", h, limit)
					}
					if plan == 0 {
						t.Errorf("AcquirePriority with a context canceled before the call succeeded")
					}
					runtime.Gosched()
					held.Add(-n)
					s.Release(n)
				case err == context.Canceled && plan != 3:
					waveCanceled.Add(1)
				default:
					t.Errorf("AcquirePriority (plan %d) = %v", plan, err)
				}
			})
		}
		rng.Shuffle(len(cancels), func(i, j int) { cancels[i], cancels[j] = cancels[j], cancels[i] })
		for i, cancel := range cancels {
			cancel()
			if i%8 == 0 {
				runtime.Gosched()
			}
		}
		wg.Wait()
		canceled += waveCanceled.Load()
		want := core.SemaphoreStats{Limit: limit, Canceled: canceled}
		if got := s.Stats(); got != want {
			t.Fatalf("wave %d: Stats = %+v, want %+v", wave, got, want)
		}
		if t.Failed() {
			t.FailNow()
		}
	}
}

// stPlan is what a storm task's function does.
type stPlan uint8

const (
	stOK      stPlan = iota // returns nil
	stFail                  // returns stErr
	stPanic                 // panics
	stWaitCtx               // waits for its context (then returns its error) or the end of its wave
	stYield                 // yields, then returns nil
	stPlans
)

// stTask is one task of a storm, and what became of it.
type stTask struct {
	plan    stPlan
	key     int
	seq     int // its place among its key's tasks, for KeyedQueue
	ran     atomic.Int32
	task    *core.Task
	doErr   chan error    // for a Do call: its result
	release chan struct{} // closed at the end of its wave
}

// fn returns the task's function. running counts the functions running
// at once (for the limit), and perKey, if not nil, those of the task's key.
func (st *stTask) fn(running *atomic.Int32, limit int32, perKey []atomic.Int32, order [][]int, t *testing.T) func(context.Context) error {
	return func(ctx context.Context) error {
		st.ran.Add(1)
		if n := running.Add(1); limit > 0 && n > limit {
			t.Errorf("%d functions running, over the limit %d", n, limit)
		}
		defer running.Add(-1)
		if perKey != nil {
			if n := perKey[st.key].Add(1); n != 1 {
				t.Errorf("%d functions of key %d running at once", n, st.key)
			}
			defer perKey[st.key].Add(-1)
			order[st.key] = append(order[st.key], st.seq) // one at a time per key
		}
		switch st.plan {
		case stFail:
			return stErr
		case stPanic:
			panic(st)
		case stWaitCtx:
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-st.release:
			}
		case stYield:
			runtime.Gosched()
		}
		return nil
	}
}

// check checks how the task ended against its plan.
func (st *stTask) check(t *testing.T, state core.TaskState, err error) {
	t.Helper()
	ran := st.ran.Load()
	ok := false
	switch state {
	case core.TaskSucceeded:
		ok = ran == 1 && err == nil && (st.plan == stOK || st.plan == stYield || st.plan == stWaitCtx)
	case core.TaskFailed:
		ok = ran == 1 && err == stErr && st.plan == stFail
	case core.TaskPanicked:
		var pe *core.PanicError
		ok = ran == 1 && errors.As(err, &pe) && pe.Value == st && st.plan == stPanic
	case core.TaskCanceled:
		ok = (ran == 0 || ran == 1 && st.plan == stWaitCtx) && errors.Is(err, context.Canceled)
	}
	if !ok {
		t.Errorf("task (plan %d) ended %v with %v after running %d times", st.plan, state, err, ran)
	}
}

// stStats checks a queue's counters after a wave: nothing pending or
// running, and every task counted once.
func stStats(t *testing.T, st core.QueueStats, submitted uint64) {
	t.Helper()
	if st.Pending != 0 || st.Running != 0 || st.Submitted != submitted ||
		st.Submitted != st.Succeeded+st.Failed+st.Canceled+st.Panicked {
		t.Fatalf("Stats = %+v, want nothing pending or running and %d submitted, each counted once", st, submitted)
	}
}

// stStorm submits waves of tasks with random plans, priorities and
// submitter contexts through submit (from several goroutines at once) and
// do (Do calls, each on its own goroutine), cancels a third of them at
// random points (Task.Cancel, and the end of their submitter contexts)
// while they are being submitted, wait or run, lets the rest end, and
// checks after each wave that each task ended once, as its plan and
// cancellation allow, and that the counters add up.
func stStorm(t *testing.T, keys int,
	submit func(ctx context.Context, st *stTask, p core.Priority) (*core.Task, error),
	do func(ctx context.Context, st *stTask, p core.Priority) error,
	stats func() core.QueueStats,
) {
	const submitters, doers, groupSize = 4, 50, 40
	rng := rand.New(rand.NewPCG(2, uint64(keys)))
	seqs := make([]int, max(keys, 1))
	var tally [6]int // by terminal state; refused at index 0
	defer func() {
		t.Logf("%d tasks: %d refused (context ended first), %d succeeded, %d failed, %d canceled (%d while running), %d panicked",
			stStormTotal(), tally[0], tally[core.TaskSucceeded], tally[core.TaskFailed], tally[core.TaskCanceled], tally[1], tally[core.TaskPanicked])
	}()
	for wave := 0; wave < stStormTotal()/stStormWave; wave++ {
		tasks := make([]*stTask, stStormWave)
		groups := make([]context.CancelFunc, stStormWave/groupSize)
		ctxs := make([]context.Context, len(groups))
		for i := range groups {
			ctxs[i], groups[i] = context.WithCancel(context.Background())
		}
		base := stats().Submitted
		release := make(chan struct{})
		for i := range tasks {
			st := &stTask{plan: stPlan(rng.IntN(int(stPlans))), seq: -1, release: release}
			if i < doers {
				st.doErr = make(chan error, 1)
			}
			if keys > 0 {
				// Each submitter owns the keys equal to its number
				// modulo submitters, so that each key's submission
				// order is known; Do calls, made on goroutines of their
				// own, are not ordered.
				st.key = (rng.IntN(keys/submitters)*submitters + i%submitters) % keys
				if st.doErr == nil {
					st.seq = seqs[st.key]
					seqs[st.key]++
				}
			}
			tasks[i] = st
		}
		prios := make([]core.Priority, len(tasks))
		for i := range prios {
			prios[i] = core.Priority(rng.IntN(5) - 2)
		}
		var wg, doing sync.WaitGroup // the submitters; the Do calls
		var mu sync.Mutex            // guards the tasks' handles while they are submitted
		for w := range submitters {
			wg.Go(func() {
				for i := w; i < len(tasks); i += submitters {
					st := tasks[i]
					ctx := ctxs[i/groupSize]
					if st.doErr != nil {
						doing.Go(func() { st.doErr <- do(ctx, st, prios[i]) })
						continue
					}
					task, err := submit(ctx, st, prios[i])
					if err != nil && !errors.Is(err, context.Canceled) {
						t.Errorf("Submit = %v", err)
					}
					mu.Lock()
					st.task = task
					mu.Unlock()
				}
			})
		}
		// Cancel at random points while the wave is submitted and runs.
		order := rng.Perm(len(tasks))
		for n, i := range order[:len(order)/3] {
			if n%64 == 0 {
				groups[i/groupSize]()
			} else {
				mu.Lock()
				task := tasks[i].task
				mu.Unlock()
				if task != nil {
					task.Cancel()
				}
			}
			if n%16 == 0 {
				runtime.Gosched()
			}
		}
		wg.Wait()
		close(release) // end what waits for its context
		doing.Wait()
		for _, cancel := range groups {
			cancel()
		}
		accepted := uint64(0)
		for _, st := range tasks {
			switch {
			case st.doErr != nil:
				err := <-st.doErr
				state := core.TaskSucceeded
				var pe *core.PanicError
				switch {
				case errors.Is(err, context.Canceled):
					state = core.TaskCanceled
				case err == stErr:
					state = core.TaskFailed
				case errors.As(err, &pe):
					state = core.TaskPanicked
				}
				st.check(t, state, err)
				tally[state]++
				if state == core.TaskCanceled && st.ran.Load() > 0 {
					tally[1]++
				}
			case st.task == nil:
				// Refused: its context ended before Submit.
				if st.ran.Load() != 0 {
					t.Errorf("a refused task ran")
				}
				tally[0]++
			default:
				<-st.task.Done()
				st.check(t, st.task.State(), st.task.Err())
				accepted++
				tally[st.task.State()]++
				if st.task.State() == core.TaskCanceled && st.ran.Load() > 0 {
					tally[1]++
				}
			}
		}
		// A Do call refused because its context had ended looks like one
		// canceled while pending, but is not counted as submitted.
		st := stats()
		if st.Submitted < base+accepted || st.Submitted > base+accepted+doers {
			t.Fatalf("wave %d: Stats = %+v, want %d to %d submitted", wave, st, base+accepted, base+accepted+doers)
		}
		stStats(t, st, st.Submitted)
		if t.Failed() {
			t.FailNow()
		}
	}
}

// TestStressWorkQueueCancelStorm is stStorm on a WorkQueue of 8.
func TestStressWorkQueueCancelStorm(t *testing.T) {
	const limit = 8
	q := core.NewWorkQueue(limit)
	defer q.Close()
	var running atomic.Int32
	stStorm(t, 0,
		func(ctx context.Context, st *stTask, p core.Priority) (*core.Task, error) {
			return q.Submit(ctx, st.fn(&running, limit, nil, nil, t), core.WithPriority(p))
		},
		func(ctx context.Context, st *stTask, p core.Priority) error {
			return q.Do(ctx, st.fn(&running, limit, nil, nil, t), core.WithPriority(p))
		},
		q.Stats)
	if err := q.Drain(context.Background()); err != nil {
		t.Fatalf("Drain = %v", err)
	}
}

// TestStressKeyedQueueCancelStorm is stStorm on a KeyedQueue of 64 keys,
// with a cap of 8 and without, and an idle timeout so short that lanes
// are evicted and created again between most tasks. It also checks that
// each key's tasks run one at a time, in submission order.
func TestStressKeyedQueueCancelStorm(t *testing.T) {
	const keys = 64
	for _, par := range []int{8, 0} {
		t.Run(fmt.Sprint("parallelism=", par), func(t *testing.T) {
			q := core.NewKeyedQueue[int](core.WithParallelism(par), core.WithIdleTimeout(time.Microsecond))
			defer q.Close()
			var running atomic.Int32
			perKey := make([]atomic.Int32, keys)
			order := make([][]int, keys)
			stStorm(t, keys,
				func(ctx context.Context, st *stTask, p core.Priority) (*core.Task, error) {
					return q.Submit(ctx, st.key, st.fn(&running, int32(par), perKey, order, t), core.WithPriority(p))
				},
				func(ctx context.Context, st *stTask, p core.Priority) error {
					return q.Do(ctx, st.key, st.fn(&running, int32(par), perKey, order, t), core.WithPriority(p))
				},
				q.Stats)
			if err := q.Drain(context.Background()); err != nil {
				t.Fatalf("Drain = %v", err)
			}
			for key, seqs := range order {
				last := -1
				for _, seq := range seqs {
					if seq < 0 {
						continue // a Do call
					}
					if seq <= last {
						t.Fatalf("key %d ran task %d after task %d", key, seq, last)
					}
					last = seq
				}
			}
			if st := q.Stats(); st.Lanes != 0 {
				t.Errorf("Lanes after Drain = %d, want 0", st.Lanes)
			}
		})
	}
}

// stJump returns a random jump for a clock that is off from its start
// time: small steps either way, and now and then a huge one, up to a
// quarter of the range of time.Duration, back towards the start once the
// clock is more than a century away.
func stJump(rng *rand.Rand, off time.Duration) time.Duration {
	const century = 100 * 365 * 24 * time.Hour
	switch rng.IntN(10) {
	case 0, 1:
		if off > century || off > -century && rng.IntN(2) == 0 {
			return -math.MaxInt64 / 4
		}
		return math.MaxInt64 / 4
	case 2, 3:
		return -time.Duration(rng.Int64N(int64(time.Hour)))
	}
	return time.Duration(rng.Int64N(int64(3 * time.Second)))
}

// TestStressJumpingClockSemaphore runs a Semaphore with aging on a clock
// that jumps forwards and backwards, by up to a quarter of the range of
// time.Duration. Nothing may panic, no more than the limit may be held,
// every waiter must get its tokens once the holders let go, and waiters
// that queued at the same clock time are still served by priority, then
// arrival, whatever the clock does meanwhile. Event times may go
// backwards.
func TestStressJumpingClockSemaphore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const limit = 2
		start := time.Now()
		clk := newJumpClock(start)
		var ev fzEvents
		s := core.NewSemaphore(limit, core.WithAging(10*time.Millisecond), core.WithClock(clk), core.WithObserver(ev.observe))
		rng := rand.New(rand.NewPCG(3, 3))
		type waiter struct {
			round, seq int
			p          core.Priority
			n, held    int64
			queued     bool // it waited: not granted as it arrived
		}
		granted := make(chan *waiter, 1024)
		var holders []*waiter
		var order []*waiter // grants, in order
		var wg sync.WaitGroup
		total := 0
		collect := func() {
			synctest.Wait()
			for len(granted) > 0 {
				w := <-granted
				w.held = w.n
				order = append(order, w)
				holders = append(holders, w)
			}
			var sum int64
			for _, w := range holders {
				sum += w.held
			}
			if st := s.Stats(); sum > limit || st.InUse != sum {
				t.Fatalf("holders hold %d tokens, Stats %+v, limit %d", sum, st, limit)
			}
		}
		// release gives back one token of holder i: with waiters asking for
		// at most the limit, one token wakes at most one waiter, so that
		// the order of grants is seen.
		release := func(i int) {
			w := holders[i]
			w.held--
			if w.held == 0 {
				holders = append(holders[:i], holders[i+1:]...)
			}
			s.Release(1)
			collect()
		}
		for round := range 1000 {
			// A few waiters, all arriving at the same clock time.
			for seq := range rng.IntN(4) {
				w := &waiter{round: round, seq: seq, p: core.Priority(rng.IntN(5) - 2), n: int64(1 + rng.IntN(limit))}
				total++
				wg.Go(func() {
					if err := s.AcquirePriority(context.Background(), w.n, w.p); err != nil {
						t.Errorf("AcquirePriority = %v", err)
					}
					granted <- w
				})
				collect()
				w.queued = len(order) == 0 || order[len(order)-1] != w
			}
			clk.Add(stJump(rng, clk.Now().Sub(start)))
			for range rng.IntN(3) {
				if len(holders) > 0 {
					release(rng.IntN(len(holders)))
				}
			}
		}
		for len(order) < total {
			if len(holders) == 0 {
				t.Fatalf("%d waiters still wait with no tokens held: Stats %+v", total-len(order), s.Stats())
			}
			release(0)
		}
		for len(holders) > 0 {
			release(0)
		}
		wg.Wait()
		if st := s.Stats(); st.InUse != 0 || st.Waiters != 0 {
			t.Fatalf("Stats after every holder released = %+v, want none in use or waiting", st)
		}
		last := map[int]*waiter{}
		for _, w := range order {
			if !w.queued {
				continue
			}
			if prev := last[w.round]; prev != nil && (prev.p < w.p || prev.p == w.p && prev.seq > w.seq) {
				t.Errorf("round %d: waiter %d (priority %d) served before waiter %d (priority %d)", w.round, prev.seq, prev.p, w.seq, w.p)
			}
			last[w.round] = w
		}
		back := false
		es := ev.all()
		for i := 1; i < len(es); i++ {
			back = back || es[i].Time.Before(es[i-1].Time)
		}
		if !back {
			t.Errorf("no event time went backwards: the clock did not jump as planned")
		}
	})
}

// TestStressJumpingClockKeyedQueue runs a KeyedQueue on a clock that
// jumps forwards and backwards. A lane must never be evicted while its key
// has a task in flight, and idle lanes must be evicted once the clock has
// passed their idle timeout (the queue never lets its own time go back);
// each key's tasks run one at a time, in order; and everything drains.
func TestStressJumpingClockKeyedQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const (
			idle = time.Second
			keys = 8
		)
		start := time.Now()
		clk := newJumpClock(start)
		var ev fzEvents
		q := core.NewKeyedQueue[int](core.WithIdleTimeout(idle), core.WithClock(clk), core.WithObserver(ev.observe), core.WithParallelism(3))

		// First, exactly: a lane idle since start is not evicted when the
		// clock goes back, nor when it comes forward short of start+idle,
		// and is evicted at start+idle.
		q.Do(context.Background(), 100, func(context.Context) error { return nil })
		clk.Set(start.Add(-time.Hour))
		synctest.Wait()
		clk.Set(start.Add(idle - time.Nanosecond))
		synctest.Wait()
		if got := q.Stats().Lanes; got != 1 {
			t.Fatalf("Lanes before the idle timeout, after a jump back = %d, want 1", got)
		}
		clk.Set(start.Add(idle))
		synctest.Wait()
		if got := q.Stats().Lanes; got != 0 {
			t.Fatalf("Lanes at the idle timeout = %d, want 0", got)
		}

		// Then at random.
		rng := rand.New(rand.NewPCG(4, 4))
		var perKey [keys]atomic.Int32
		var order [keys][]int
		var gates []chan struct{}
		seqs := make([]int, keys)
		var tasks []*core.Task
		for range 1000 {
			for range rng.IntN(4) {
				key := rng.IntN(keys)
				seq := seqs[key]
				seqs[key]++
				var gate chan struct{}
				if rng.IntN(2) == 0 {
					gate = make(chan struct{})
					gates = append(gates, gate)
				}
				task, err := q.Submit(context.Background(), key, func(context.Context) error {
					if n := perKey[key].Add(1); n != 1 {
						t.Errorf("%d tasks of key %d run at once", n, key)
					}
					defer perKey[key].Add(-1)
					order[key] = append(order[key], seq)
					if gate != nil {
						<-gate
					}
					return nil
				})
				if err != nil {
					t.Fatalf("Submit = %v", err)
				}
				tasks = append(tasks, task)
			}
			if len(gates) > 0 && rng.IntN(2) == 0 {
				i := rng.IntN(len(gates))
				close(gates[i])
				gates = append(gates[:i], gates[i+1:]...)
			}
			clk.Add(stJump(rng, clk.Now().Sub(start)))
			synctest.Wait()
		}
		for _, g := range gates {
			close(g)
		}
		synctest.Wait()
		clk.Add(idle)
		if err := q.Drain(context.Background()); err != nil {
			t.Fatalf("Drain = %v", err)
		}
		for _, task := range tasks {
			if task.State() != core.TaskSucceeded {
				t.Fatalf("task %d ended %v, want succeeded", task.ID(), task.State())
			}
		}
		for key, seqs := range order {
			for i, seq := range seqs {
				if seq != i {
					t.Fatalf("key %d's run %d was its task %d", key, i, seq)
				}
			}
		}
		if st := q.Stats(); st.Lanes != 0 || st.Submitted != uint64(len(tasks)+1) || st.Succeeded != st.Submitted {
			t.Fatalf("Stats after Drain = %+v, want no lanes and %d tasks succeeded", st, len(tasks)+1)
		}
		// From the events: no eviction while the key has a task in flight.
		inflight := map[string]int{}
		evictions := 0
		for _, e := range ev.all() {
			switch {
			case e.Kind == core.Enqueued:
				inflight[e.Key]++
			case e.Kind.Terminal():
				inflight[e.Key]--
			case e.Kind == core.LaneEvicted:
				evictions++
				if inflight[e.Key] != 0 {
					t.Fatalf("key %s's lane evicted with %d tasks in flight", e.Key, inflight[e.Key])
				}
			}
		}
		if evictions < 10 {
			t.Errorf("%d evictions, want many: the clock did not jump as planned", evictions)
		}
	})
}

// stRounds is how many times each reentrancy test runs, with other
// seeds.
const stRounds = 10

// stBound waits for done for up to an hour of virtual time, and fails the
// test if it is not closed by then.
func stBound(t *testing.T, what string, done <-chan struct{}) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(time.Hour):
		t.Fatalf("%s did not return within an hour of virtual time", what)
	}
}

// stNest is the behaviour of a task function that may call back into its
// own queue, decided from its seed: it calls back with do (Do or Process,
// which must run at once in its slot) or submit (Submit, which must not
// wait for room, perhaps then waiting for the task), panics, waits for its
// context to end, or returns.
func stNest(seed uint64, depth int, do func(ctx context.Context, seed uint64, depth int) error,
	submit func(ctx context.Context, seed uint64, depth int, wait bool) error) func(context.Context) error {
	return func(ctx context.Context) error {
		rng := rand.New(rand.NewPCG(seed, uint64(depth)))
		calls := rng.IntN(3)
		if depth >= 3 {
			calls = 0
		}
		for range calls {
			var err error
			if rng.IntN(2) == 0 {
				err = do(ctx, rng.Uint64(), depth+1)
			} else {
				err = submit(ctx, rng.Uint64(), depth+1, rng.IntN(2) == 0)
			}
			var pe *core.PanicError
			if err != nil && err != stErr && err != core.ErrFull && err != core.ErrClosed && !errors.As(err, &pe) &&
				!errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
				return fmt.Errorf("depth %d: unexpected %w", depth, err)
			}
		}
		switch rng.IntN(6) {
		case 0:
			panic("planned panic")
		case 1:
			<-ctx.Done()
			return ctx.Err()
		case 2:
			return stErr
		}
		return nil
	}
}

// stUnexpected fails t if err is none of the errors a task that may call
// back into its primitive may end with.
func stUnexpected(t *testing.T, err error) {
	t.Helper()
	var pe *core.PanicError
	if err != nil && err != stErr && !errors.As(err, &pe) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("task ended with %v", err)
	}
}

// TestStressReentrantWorkQueue runs tasks on a full WorkQueue that call
// back into it from inside (Do, which runs at once in the caller's slot;
// Submit, which returns ErrFull rather than wait for room; Task.Wait on the
// submitted task, which runs it at once if it is still pending), panic,
// or wait for their context. Nothing may hang: once the bubble is quiet,
// Close must cancel what waits and return.
func TestStressReentrantWorkQueue(t *testing.T) {
	for round := range stRounds {
		synctest.Test(t, func(t *testing.T) {
			q := core.NewWorkQueue(2, core.WithCapacity(3))
			var do func(ctx context.Context, seed uint64, depth int) error
			var submit func(ctx context.Context, seed uint64, depth int, wait bool) error
			do = func(ctx context.Context, seed uint64, depth int) error {
				return q.Do(ctx, stNest(seed, depth, do, submit))
			}
			submit = func(ctx context.Context, seed uint64, depth int, wait bool) error {
				task, err := q.Submit(ctx, stNest(seed, depth, do, submit))
				if err != nil || !wait {
					return err
				}
				return task.Wait(ctx)
			}
			var wg sync.WaitGroup
			var accepted atomic.Int32
			for i := range 40 {
				wg.Go(func() {
					// Functions that wait for their context end at its
					// deadline, and let others in.
					ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i+1)*10*time.Millisecond)
					defer cancel()
					task, err := q.Submit(ctx, stNest(uint64(round)<<32|uint64(i), 0, do, submit))
					if err == nil {
						accepted.Add(1)
						<-task.Done()
						err = task.Err()
					}
					stUnexpected(t, err)
				})
			}
			stWait(t, "the tasks", &wg)
			synctest.Wait() // nested tasks whose submitter ended end too
			st := q.Stats()
			stStats(t, st, st.Submitted)
			if n := accepted.Load(); n < 10 || st.Submitted <= uint64(n) {
				t.Errorf("%d of 40 tasks accepted, Stats %+v: want most, with nested tasks besides", n, st)
			}
			closed := make(chan struct{})
			go func() {
				q.Close()
				close(closed)
			}()
			stBound(t, "Close", closed)
		})
	}
}

// stWait waits for wg for up to an hour of virtual time, and fails the
// test if it has not returned by then.
func stWait(t *testing.T, what string, wg *sync.WaitGroup) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	stBound(t, what, done)
}

// TestStressReentrantProcessor is TestStressReentrantWorkQueue on a
// Processor: Process and Submit, then Future.Wait, from inside its
// function.
func TestStressReentrantProcessor(t *testing.T) {
	for round := range stRounds {
		synctest.Test(t, func(t *testing.T) {
			type in struct {
				seed  uint64
				depth int
			}
			var p *core.Processor[in, int]
			var do func(ctx context.Context, seed uint64, depth int) error
			var submit func(ctx context.Context, seed uint64, depth int, wait bool) error
			do = func(ctx context.Context, seed uint64, depth int) error {
				_, err := p.Process(ctx, in{seed, depth})
				return err
			}
			submit = func(ctx context.Context, seed uint64, depth int, wait bool) error {
				f, err := p.Submit(ctx, in{seed, depth})
				if err != nil || !wait {
					return err
				}
				out, err := f.Wait(ctx)
				if err == nil && out != depth {
					return fmt.Errorf("Wait = %d, want %d", out, depth)
				}
				return err
			}
			p = core.NewProcessor(2, func(ctx context.Context, x in) (int, error) {
				return x.depth, stNest(x.seed, x.depth, do, submit)(ctx)
			}, core.WithCapacity(3))
			var wg sync.WaitGroup
			for i := range 40 {
				wg.Go(func() {
					ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i+1)*10*time.Millisecond)
					defer cancel()
					out, err := p.Process(ctx, in{uint64(round)<<32 | uint64(i), 0})
					if err == nil && out != 0 {
						t.Errorf("Process = %d, want 0", out)
					}
					stUnexpected(t, err)
				})
			}
			stWait(t, "the calls", &wg)
			synctest.Wait() // nested tasks whose submitter ended end too
			st := p.Stats()
			stStats(t, st, st.Submitted)
			if st.Submitted < 20 {
				t.Errorf("Stats = %+v, want most of the 40 calls, and nested ones, submitted", st)
			}
			closed := make(chan struct{})
			go func() {
				p.Close()
				close(closed)
			}()
			stBound(t, "Close", closed)
		})
	}
}

// TestStressReentrantKeyedQueue runs KeyedQueue tasks that call back into
// the queue (TrySubmit, then perhaps Task.Wait, and Do, on random keys),
// panic, or wait for their context. Waiting for another task can wait,
// directly or through a cycle of keys, for a later task of the waiter's
// own key, or under the cap hold every slot: the contract warns against
// both, but Close must still end everything once the bubble is quiet.
func TestStressReentrantKeyedQueue(t *testing.T) {
	for _, par := range []int{0, 2} {
		t.Run(fmt.Sprint("parallelism=", par), func(t *testing.T) {
			for round := range stRounds {
				synctest.Test(t, func(t *testing.T) {
					const keys = 5
					q := core.NewKeyedQueue[int](core.WithParallelism(par), core.WithCapacity(2), core.WithIdleTimeout(time.Millisecond))
					var do func(ctx context.Context, seed uint64, depth int) error
					var submit func(ctx context.Context, seed uint64, depth int, wait bool) error
					key := func(seed uint64, depth int) int { return int(seed%keys+uint64(depth)) % keys }
					do = func(ctx context.Context, seed uint64, depth int) error {
						return q.Do(ctx, key(seed, depth), stNest(seed, depth, do, submit))
					}
					submit = func(ctx context.Context, seed uint64, depth int, wait bool) error {
						task, err := q.TrySubmit(key(seed, depth), stNest(seed, depth, do, submit))
						if err != nil || !wait {
							return err
						}
						return task.Wait(ctx)
					}
					var wg sync.WaitGroup
					for i := range 30 {
						wg.Go(func() {
							ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i+1)*10*time.Millisecond)
							defer cancel()
							stUnexpected(t, q.Do(ctx, i%keys, stNest(uint64(round)<<32|uint64(i), 0, do, submit)))
						})
					}
					// Some tasks wait for one another and for their own key,
					// until their deadlines: Close ends the others.
					synctest.Wait()
					time.Sleep(time.Second)
					closed := make(chan struct{})
					go func() {
						q.Close()
						close(closed)
					}()
					stBound(t, "Close", closed)
					stWait(t, "the calls", &wg)
					st := q.Stats()
					stStats(t, st, st.Submitted)
					if st.Lanes != 0 || st.Submitted < 15 {
						t.Errorf("Stats after Close = %+v, want no lanes and most of the 30 calls, and nested ones, submitted", st)
					}
				})
			}
		})
	}
}

// TestStressReentrantSemaphore runs Semaphore.Do functions that call back
// into the semaphore: TryAcquire and Release, giving their own tokens back
// and taking them again, a nested Do (which can wait for tokens held by
// its own caller, until its context ends), panics, and waits for their
// context. Nothing may hang, and every token comes back.
func TestStressReentrantSemaphore(t *testing.T) {
	for round := range stRounds {
		synctest.Test(t, func(t *testing.T) {
			const limit = 3
			s := core.NewSemaphore(limit, core.WithAging(time.Millisecond))
			var nest func(seed uint64, depth int) func(context.Context) error
			nest = func(seed uint64, depth int) func(context.Context) error {
				return func(ctx context.Context) error {
					rng := rand.New(rand.NewPCG(seed, uint64(depth)))
					for range rng.IntN(3) {
						switch rng.IntN(4) {
						case 0:
							if s.TryAcquire(1) {
								s.Release(1)
							}
						case 1:
							// Tokens are not tied to who took them: give this
							// one back and take one again, whatever the
							// context does, since Do releases one.
							s.Release(1)
							if err := s.Acquire(context.WithoutCancel(ctx), 1); err != nil {
								t.Errorf("Acquire without cancellation = %v", err)
							}
						default:
							if depth < 3 {
								nctx, cancel := context.WithTimeout(ctx, time.Duration(1+rng.IntN(10))*time.Millisecond)
								err := s.Do(nctx, 1, nest(rng.Uint64(), depth+1), core.WithPriority(core.Priority(depth)))
								cancel()
								stUnexpected(t, err)
							}
						}
					}
					switch rng.IntN(5) {
					case 0:
						panic("planned panic")
					case 1:
						<-ctx.Done()
						return ctx.Err()
					}
					return nil
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			var wg sync.WaitGroup
			for i := range 30 {
				wg.Go(func() {
					stUnexpected(t, s.Do(ctx, 1, nest(uint64(round)<<32|uint64(i), 0)))
				})
			}
			done := make(chan struct{})
			go func() {
				wg.Wait()
				close(done)
			}()
			stBound(t, "Do calls", done)
			if st := s.Stats(); st.InUse != 0 || st.Waiters != 0 {
				t.Fatalf("Stats after every Do returned = %+v, want none in use or waiting", st)
			}
		})
	}
}

// TestStressConsumeSharedSemaphoreReentrant runs two consumers sharing a
// semaphore of 2, whose handlers use the semaphore themselves: TryAcquire
// and Release, and a nested Semaphore.Do that can wait for the tokens the
// handlers hold, until the consumer's context ends. Handlers also panic
// and wait for the context. Both Consume calls must return, every message
// must be handled or reported, and every token must come back.
func TestStressConsumeSharedSemaphoreReentrant(t *testing.T) {
	for round := range stRounds {
		synctest.Test(t, func(t *testing.T) {
			sem := core.NewSemaphore(2)
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			const messages = 50
			var handled, reported atomic.Int32
			var wg sync.WaitGroup
			for c := range 2 {
				msgs := make(chan int)
				wg.Go(func() {
					defer close(msgs)
					for i := range messages {
						select {
						case msgs <- c*messages + i + round:
						case <-ctx.Done():
							return
						}
					}
				})
				wg.Go(func() {
					err := core.Consume(ctx, msgs, func(ctx context.Context, m int) error {
						handled.Add(1)
						switch m % 5 {
						case 0:
							if sem.TryAcquire(1) {
								sem.Release(1)
							}
						case 1:
							return sem.Do(ctx, 1, func(context.Context) error { return nil })
						case 2:
							panic("planned panic")
						case 3:
							<-ctx.Done()
							return ctx.Err()
						}
						return nil
					}, core.WithConcurrency(3), core.WithSemaphore(sem), core.WithPriority(core.Priority(c)),
						core.OnError(func(int, error) { reported.Add(1) }))
					if err != nil && err != context.DeadlineExceeded {
						t.Errorf("Consume = %v, want nil or %v", err, context.DeadlineExceeded)
					}
				})
			}
			done := make(chan struct{})
			go func() {
				wg.Wait()
				close(done)
			}()
			stBound(t, "Consume", done)
			if st := sem.Stats(); st.InUse != 0 || st.Waiters != 0 {
				t.Fatalf("Stats after the consumers returned = %+v, want none in use or waiting", st)
			}
			if handled.Load() == 0 || reported.Load() == 0 {
				t.Errorf("handled %d messages and reported %d, want some of each", handled.Load(), reported.Load())
			}
		})
	}
}
