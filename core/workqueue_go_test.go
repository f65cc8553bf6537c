package core_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"sluice/core"
)

func TestWorkQueueGo(t *testing.T) {
	t.Run("outcomes are counted", func(t *testing.T) {
		q := core.NewWorkQueue(3)
		var ran atomic.Int64
		ctx := context.Background()
		for i := range 300 {
			err := q.Go(ctx, func(context.Context) error {
				ran.Add(1)
				switch i % 4 {
				case 1:
					return errors.New("failed")
				case 2:
					panic("boom")
				case 3:
					return context.Canceled // not the task context's error: a failure
				}
				return nil
			})
			if err != nil {
				t.Fatalf("Go = %v, want nil", err)
			}
		}
		if err := q.Drain(ctx); err != nil {
			t.Fatalf("Drain = %v, want nil", err)
		}
		s := q.Stats()
		wqCheckStats(t, s)
		if got := ran.Load(); got != 300 {
			t.Errorf("ran %d functions, want 300", got)
		}
		if s.Submitted != 300 || s.Succeeded != 75 || s.Failed != 150 || s.Panicked != 75 {
			t.Errorf("stats = %+v, want 300 submitted, 75 succeeded, 150 failed, 75 panicked", s)
		}
		if s.MaxRunning > 3 {
			t.Errorf("MaxRunning = %d, want at most 3", s.MaxRunning)
		}
	})
	t.Run("Go and Submit share one order", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx := context.Background()
			q := core.NewWorkQueue(1)
			defer q.Close()
			g := newWQGate()
			q.Submit(ctx, g.fn)
			<-g.started
			var order []string
			add := func(name string) func(context.Context) error {
				return func(context.Context) error {
					order = append(order, name)
					return nil
				}
			}
			q.Go(ctx, add("go-0"))
			q.Submit(ctx, add("submit-0"))
			q.Go(ctx, add("go-high"), core.WithPriority(core.High))
			q.Go(ctx, add("go-1"))
			q.Submit(ctx, add("submit-high"), core.WithPriority(core.High))
			q.Go(ctx, add("go-low"), core.WithPriority(core.Low))
			q.Go(ctx, add("go-2"))
			close(g.release)
			q.Drain(ctx)
			want := []string{"go-high", "submit-high", "go-0", "submit-0", "go-1", "go-2", "go-low"}
			if !slices.Equal(order, want) {
				t.Errorf("order = %v, want %v", order, want)
			}
		})
	})
	t.Run("Close cancels pending ones and their shared context", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx := context.Background()
			q := core.NewWorkQueue(1)
			started := make(chan context.Context)
			q.Go(ctx, func(ctx context.Context) error {
				started <- ctx
				<-ctx.Done()
				return ctx.Err()
			})
			taskCtx := <-started
			if err := taskCtx.Err(); err != nil {
				t.Errorf("task context Err = %v before Close, want nil", err)
			}
			child, cancel := context.WithCancel(taskCtx)
			defer cancel()
			fired := make(chan struct{})
			context.AfterFunc(taskCtx, func() { close(fired) })
			ran := false
			for range 5 {
				q.Go(ctx, func(context.Context) error { ran = true; return nil })
			}
			q.Close()
			<-fired
			if ran {
				t.Error("a pending function ran after Close")
			}
			if err := child.Err(); !errors.Is(err, context.Canceled) {
				t.Errorf("derived context Err = %v, want context.Canceled", err)
			}
			s := q.Stats()
			wqCheckStats(t, s)
			if s.Canceled != 6 {
				t.Errorf("Canceled = %d, want 6 (5 pending, 1 running)", s.Canceled)
			}
			if err := q.Go(ctx, wqNop); !errors.Is(err, core.ErrClosed) {
				t.Errorf("Go after Close = %v, want ErrClosed", err)
			}
			select {
			case <-taskCtx.Done():
			default:
				t.Error("task context not done after Close")
			}
		})
	})
	t.Run("a nested Do runs in the caller's slot", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := core.NewWorkQueue(1, core.WithCapacity(1))
			defer q.Close()
			errc := make(chan error, 1)
			q.Go(context.Background(), func(ctx context.Context) error {
				inner := q.Do(ctx, func(context.Context) error { return errors.New("inner") })
				_, err1 := q.Submit(ctx, wqNop) // takes the one place
				err2 := q.Go(ctx, wqNop)        // finds none, and must not wait for it
				errc <- fmt.Errorf("%v/%v/%v", inner, err1, err2)
				return nil
			})
			synctest.Wait()
			want := fmt.Sprintf("inner/<nil>/%v", core.ErrFull)
			if got := (<-errc).Error(); got != want {
				t.Errorf("nested Do/Submit/Go = %s, want %s", got, want)
			}
		})
	})
	t.Run("a context that can end cancels its tasks", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := core.NewWorkQueue(1)
			defer q.Close()
			g := newWQGate()
			q.Submit(context.Background(), g.fn)
			<-g.started
			ctx, cancel := context.WithCancel(context.Background())
			ran := false
			q.Go(ctx, func(context.Context) error { ran = true; return nil })
			cancel()
			close(g.release)
			q.Drain(context.Background())
			if ran {
				t.Error("function ran after its submitter's context ended before it started")
			}
			if s := q.Stats(); s.Canceled != 1 {
				t.Errorf("Canceled = %d, want 1", s.Canceled)
			}
			if err := q.Go(ctx, wqNop); !errors.Is(err, context.Canceled) {
				t.Errorf("Go with an ended context = %v, want context.Canceled", err)
			}
		})
	})
	t.Run("observed tasks carry events", func(t *testing.T) {
		var rec recorder
		q := core.NewWorkQueue(2, core.WithObserver(rec.observe))
		ctx := context.Background()
		q.Go(ctx, wqNop, core.WithName("a"), core.WithPriority(core.High))
		q.Go(ctx, func(context.Context) error { panic("x") })
		q.Drain(ctx)
		if got := rec.count(core.Finished); got != 1 {
			t.Errorf("Finished events = %d, want 1", got)
		}
		if got := rec.count(core.Panicked); got != 1 {
			t.Errorf("Panicked events = %d, want 1", got)
		}
		for _, e := range rec.all() {
			if e.Kind == core.Finished && (e.Name != "a" || e.Priority != core.High) {
				t.Errorf("Finished event %+v, want name a at High", e)
			}
		}
	})
	t.Run("Goexit gives the slot back", func(t *testing.T) {
		q := core.NewWorkQueue(1)
		ctx := context.Background()
		q.Go(ctx, func(context.Context) error { runtime.Goexit(); return nil })
		q.Go(ctx, wqNop)
		q.Drain(ctx)
		s := q.Stats()
		wqCheckStats(t, s)
		if s.Failed != 1 || s.Succeeded != 1 {
			t.Errorf("stats = %+v, want 1 failed, 1 succeeded", s)
		}
	})
	t.Run("a nil function panics", func(t *testing.T) {
		q := core.NewWorkQueue(1)
		defer q.Close()
		wqMustPanic(t, "Go(nil)", func() { q.Go(context.Background(), nil) })
	})
}

// TestWorkQueueGoOrder covers many short tasks submitted with Go: they
// give way to higher priorities, keep every worker busy, end with Close,
// and lose nothing.
func TestWorkQueueGoOrder(t *testing.T) {
	ctx := context.Background()
	t.Run("a higher priority goes first", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := core.NewWorkQueue(1)
			defer q.Close()
			g := newWQGate()
			q.Go(ctx, g.fn)
			<-g.started
			var order []int
			for i := range 200 {
				q.Go(ctx, func(context.Context) error {
					order = append(order, i)
					if i == 100 {
						q.Go(ctx, func(context.Context) error {
							order = append(order, -1)
							return nil
						}, core.WithPriority(core.High))
					}
					return nil
				})
			}
			close(g.release)
			synctest.Wait() // before Drain, which would refuse the High task
			q.Drain(ctx)
			i := slices.Index(order, 100)
			if i < 0 || i+1 >= len(order) || order[i+1] != -1 {
				t.Errorf("after task 100 ran %v, want the High task (-1) next", order[i+1:min(len(order), i+4)])
			}
			if len(order) != 201 {
				t.Errorf("ran %d tasks, want 201", len(order))
			}
		})
	})
	t.Run("a higher priority goes before queued lower ones", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := core.NewWorkQueue(2)
			defer q.Close()
			g := newWQGate()
			q.Go(ctx, g.fn) // holds the second slot until the end
			<-g.started
			hold := make(chan struct{})
			var mu sync.Mutex
			var order []string
			add := func(name string, block bool) func(context.Context) error {
				return func(context.Context) error {
					mu.Lock()
					order = append(order, name)
					mu.Unlock()
					if block {
						<-hold
					}
					return nil
				}
			}
			// One worker runs the High tasks and blocks in one; the Low
			// ones queue.
			for i := range 32 {
				q.Go(ctx, add(fmt.Sprintf("high-%d", i), i == 20), core.WithPriority(core.High))
			}
			for i := range 8 {
				q.Go(ctx, add(fmt.Sprintf("low-%d", i), false), core.WithPriority(core.Low))
			}
			synctest.Wait()
			close(g.release) // a free worker: High tasks first
			synctest.Wait()
			close(hold)
			q.Drain(ctx)
			lastHigh, firstLow := -1, len(order)
			for i, name := range order {
				if strings.HasPrefix(name, "high") {
					lastHigh = i
				} else if i < firstLow {
					firstLow = i
				}
			}
			if lastHigh > firstLow {
				t.Errorf("order %v: a Low task started before a High one", order)
			}
			if len(order) != 40 {
				t.Errorf("ran %d tasks, want 40", len(order))
			}
		})
	})
	t.Run("an idle worker takes the next task", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := core.NewWorkQueue(2)
			defer q.Close()
			release := make(chan struct{})
			var done atomic.Int64
			for i := range 400 {
				q.Go(ctx, func(context.Context) error {
					if i == 150 {
						<-release // long: whatever its worker holds must move
					}
					done.Add(1)
					return nil
				})
			}
			synctest.Wait()
			if got := done.Load(); got != 399 {
				t.Errorf("%d tasks done while one blocks a worker, want 399", got)
			}
			close(release)
			q.Drain(ctx)
			s := q.Stats()
			wqCheckStats(t, s)
			if s.Succeeded != 400 {
				t.Errorf("Succeeded = %d, want 400", s.Succeeded)
			}
		})
	})
	t.Run("Close cancels what is queued", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := core.NewWorkQueue(1)
			blocked := make(chan struct{})
			var ran atomic.Int64
			for i := range 300 {
				q.Go(ctx, func(ctx context.Context) error {
					ran.Add(1)
					if i == 120 {
						close(blocked)
						<-ctx.Done()
					}
					return nil
				})
			}
			<-blocked
			q.Close()
			s := q.Stats()
			wqCheckStats(t, s)
			if got := ran.Load(); got != 121 {
				t.Errorf("%d functions ran, want 121", got)
			}
			if s.Succeeded != 121 || s.Canceled != 179 {
				t.Errorf("stats = %+v, want 121 succeeded, 179 canceled", s)
			}
		})
	})
	t.Run("a shrink stops further starts", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := core.NewWorkQueue(4)
			defer q.Close()
			var running, over atomic.Int64
			shrunk := atomic.Bool{}
			for i := range 2000 {
				q.Go(ctx, func(context.Context) error {
					n := running.Add(1)
					if i == 500 {
						q.SetParallelism(1)
						shrunk.Store(true)
						for running.Load() > 1 {
							runtime.Gosched()
						}
					} else if shrunk.Load() && i > 500 && n > 1 {
						over.Add(1)
					}
					runtime.Gosched()
					running.Add(-1)
					return nil
				})
			}
			q.Drain(ctx)
			if got := over.Load(); got > 4 {
				t.Errorf("%d tasks started with others running after the shrink to 1, want at most the 3 in flight", got)
			}
			if s := q.Stats(); s.Succeeded != 2000 {
				t.Errorf("Succeeded = %d, want 2000", s.Succeeded)
			}
		})
	})
	t.Run("many tasks with every outcome", func(t *testing.T) {
		q := core.NewWorkQueue(runtime.GOMAXPROCS(0) + 1)
		var ran atomic.Int64
		for i := range 50000 {
			q.Go(ctx, func(context.Context) error {
				ran.Add(1)
				switch i % 50 {
				case 1:
					return errors.New("failed")
				case 2:
					panic("boom")
				}
				return nil
			}, core.WithPriority(core.Priority(i%3)))
			if i%5000 == 0 {
				wqCheckStats(t, q.Stats())
			}
		}
		q.Drain(ctx)
		s := q.Stats()
		wqCheckStats(t, s)
		if ran.Load() != 50000 || s.Failed != 1000 || s.Panicked != 1000 || s.Succeeded != 48000 {
			t.Errorf("ran %d, stats %+v; want 50000 ran, 48000 succeeded, 1000 failed, 1000 panicked", ran.Load(), s)
		}
	})
}

// TestWorkQueueGoStress mixes Go and Submit from several goroutines while
// the parallelism changes and the queue is closed at a random point, and
// checks that every accepted function either ran once or was counted
// canceled, and that no more ran at once than the largest limit.
func TestWorkQueueGoStress(t *testing.T) {
	for seed := range uint64(8) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 11))
			q := core.NewWorkQueue(1 + rng.IntN(4))
			ctx := context.Background()
			var accepted, ran, running, maxRunning atomic.Int64
			fn := func(context.Context) error {
				n := running.Add(1)
				for {
					m := maxRunning.Load()
					if n <= m || maxRunning.CompareAndSwap(m, n) {
						break
					}
				}
				ran.Add(1)
				if n%7 == 0 {
					runtime.Gosched()
				}
				running.Add(-1)
				return nil
			}
			var wg sync.WaitGroup
			for g := range 4 {
				seed := rng.Uint64()
				wg.Go(func() {
					rng := rand.New(rand.NewPCG(seed, uint64(g)))
					for range 3000 {
						prio := core.WithPriority(core.Priority(rng.IntN(3)))
						var err error
						switch rng.IntN(10) {
						case 0:
							_, err = q.Submit(ctx, fn, prio)
						case 1:
							q.SetParallelism(1 + rng.IntN(4))
							continue
						default:
							err = q.Go(ctx, fn, prio)
						}
						if err == nil {
							accepted.Add(1)
						} else if !errors.Is(err, core.ErrClosed) {
							t.Errorf("submit = %v, want nil or ErrClosed", err)
						}
					}
				})
			}
			stop := make(chan struct{})
			checked := make(chan struct{})
			go func() { // Stats adds up at every moment
				defer close(checked)
				for {
					select {
					case <-stop:
						return
					default:
						wqCheckStats(t, q.Stats())
						runtime.Gosched() // js/wasm has one thread and no preemption
					}
				}
			}()
			if rng.IntN(2) == 0 {
				runtime.Gosched()
				q.Close()
			}
			wg.Wait()
			close(stop)
			<-checked
			q.Drain(ctx)
			s := q.Stats()
			wqCheckStats(t, s)
			if got, want := uint64(ran.Load())+s.Canceled, uint64(accepted.Load()); got != want || s.Submitted != want {
				t.Errorf("ran %d + canceled %d = %d, submitted %d; want both %d", ran.Load(), s.Canceled, got, s.Submitted, want)
			}
			if m := maxRunning.Load(); m > 4 {
				t.Errorf("%d functions ran at once, want at most 4", m)
			}
		})
	}
}

// Go is Submit without a handle, for tasks that report their own results.
func ExampleWorkQueue_Go() {
	ctx := context.Background()
	q := core.NewWorkQueue(4)

	var sum atomic.Int64
	for i := 1; i <= 100; i++ {
		if err := q.Go(ctx, func(ctx context.Context) error {
			sum.Add(int64(i))
			return nil
		}); err != nil {
			fmt.Println("go:", err)
			return
		}
	}
	q.Drain(ctx) // every accepted task runs to its end
	s := q.Stats()
	fmt.Println(sum.Load(), s.Succeeded)
	// Output:
	// 5050 100
}
