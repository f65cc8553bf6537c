package core_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"sluice/core"
)

// acquire starts an AcquirePriority in a goroutine owned by wg and returns
// the channel its result arrives on. The channel has room for the result so
// that the goroutine never blocks on a test that stopped listening.
func acquire(ctx context.Context, wg *sync.WaitGroup, s *core.Semaphore, n int64, p core.Priority) <-chan error {
	res := make(chan error, 1)
	wg.Go(func() { res <- s.AcquirePriority(ctx, n, p) })
	return res
}

// ready reports whether a result has arrived on res, and what it was.
func ready(res <-chan error) (error, bool) {
	select {
	case err := <-res:
		return err, true
	default:
		return nil, false
	}
}

func mustPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		v := recover()
		if v == nil {
			t.Errorf("%s did not panic", name)
			return
		}
		if msg := fmt.Sprint(v); !strings.HasPrefix(msg, "core:") {
			t.Errorf("%s panicked with %q, want a message prefixed \"core:\"", name, msg)
		}
	}()
	f()
}

func TestSemaphorePanics(t *testing.T) {
	ctx := context.Background()
	mustPanic(t, "NewSemaphore(-1)", func() { core.NewSemaphore(-1) })
	mustPanic(t, "Acquire(-1)", func() { core.NewSemaphore(1).Acquire(ctx, -1) })
	mustPanic(t, "AcquirePriority(-1)", func() { core.NewSemaphore(1).AcquirePriority(ctx, -1, core.High) })
	mustPanic(t, "TryAcquire(-1)", func() { core.NewSemaphore(1).TryAcquire(-1) })
	mustPanic(t, "Release(-1)", func() { core.NewSemaphore(1).Release(-1) })
	mustPanic(t, "SetLimit(-1)", func() { core.NewSemaphore(1).SetLimit(-1) })
	mustPanic(t, "Release more than held", func() {
		s := core.NewSemaphore(2)
		s.Acquire(ctx, 1)
		s.Release(2)
	})
	mustPanic(t, "Release with nothing held", func() { core.NewSemaphore(1).Release(1) })
	t.Run("release more than held while waiters queue", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := core.NewSemaphore(2)
			s.Acquire(ctx, 1)
			ctx, cancel := context.WithCancel(ctx)
			var wg sync.WaitGroup
			res := acquire(ctx, &wg, s, 2, core.Normal)
			synctest.Wait()
			mustPanic(t, "Release(2)", func() { s.Release(2) })
			cancel()
			wg.Wait()
			if err := <-res; !errors.Is(err, context.Canceled) {
				t.Errorf("waiter's Acquire = %v, want context.Canceled", err)
			}
		})
	})
}

// TestSemaphoreWeighted checks the behaviour shared with
// golang.org/x/sync/semaphore.Weighted.
func TestSemaphoreWeighted(t *testing.T) {
	ctx := context.Background()

	t.Run("try acquire", func(t *testing.T) {
		s := core.NewSemaphore(2)
		for i, want := range []bool{true, true, false} {
			if got := s.TryAcquire(1); got != want {
				t.Errorf("TryAcquire(1) #%d = %v, want %v", i, got, want)
			}
		}
		s.Release(1)
		if !s.TryAcquire(1) {
			t.Errorf("TryAcquire(1) after Release(1) = false, want true")
		}
		if got, want := s.Stats().InUse, int64(2); got != want {
			t.Errorf("InUse = %d, want %d", got, want)
		}
	})

	t.Run("zero size", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := core.NewSemaphore(0)
			if err := s.Acquire(ctx, 0); err != nil {
				t.Errorf("Acquire(0) = %v, want nil", err)
			}
			if !s.TryAcquire(0) {
				t.Errorf("TryAcquire(0) = false, want true")
			}
			if s.TryAcquire(1) {
				t.Errorf("TryAcquire(1) = true, want false")
			}
			ctx, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			if err := s.Acquire(ctx, 1); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Acquire(1) = %v, want context.DeadlineExceeded", err)
			}
		})
	})

	t.Run("canceled context fails even when tokens are free", func(t *testing.T) {
		s := core.NewSemaphore(5)
		ctx, cancel := context.WithCancel(ctx)
		cancel()
		if err := s.Acquire(ctx, 1); !errors.Is(err, context.Canceled) {
			t.Errorf("Acquire = %v, want context.Canceled", err)
		}
		if err := s.AcquirePriority(ctx, 1, core.High); !errors.Is(err, context.Canceled) {
			t.Errorf("AcquirePriority = %v, want context.Canceled", err)
		}
		if got := s.Stats().InUse; got != 0 {
			t.Errorf("InUse = %d, want 0", got)
		}
	})

	t.Run("waiter at head blocks smaller later ones", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := core.NewSemaphore(2)
			s.Acquire(ctx, 1)
			var wg sync.WaitGroup
			big := acquire(ctx, &wg, s, 2, core.Normal)
			synctest.Wait()
			if s.TryAcquire(1) {
				t.Fatalf("TryAcquire(1) barged ahead of a waiting Acquire(2)")
			}
			small := acquire(ctx, &wg, s, 1, core.Normal)
			synctest.Wait()
			if _, ok := ready(small); ok {
				t.Fatalf("Acquire(1) barged ahead of the waiting Acquire(2)")
			}
			s.Release(1)
			synctest.Wait()
			if err, ok := ready(big); !ok || err != nil {
				t.Fatalf("Acquire(2) after Release = (%v, done %v), want (nil, done)", err, ok)
			}
			if _, ok := ready(small); ok {
				t.Fatalf("Acquire(1) granted while Acquire(2) holds every token")
			}
			s.Release(2)
			wg.Wait()
			if err := <-small; err != nil {
				t.Errorf("Acquire(1) = %v, want nil", err)
			}
			s.Release(1)
		})
	})

	t.Run("large acquire does not starve", func(t *testing.T) {
		s := core.NewSemaphore(4)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					if err := s.Acquire(ctx, 1); err != nil {
						t.Errorf("Acquire(1) = %v", err)
						return
					}
					runtime.Gosched()
					s.Release(1)
				}
			})
		}
		if err := s.Acquire(ctx, 4); err != nil {
			t.Errorf("Acquire(4) = %v", err)
		}
		s.Release(4)
		close(stop)
		wg.Wait()
	})

	t.Run("canceled head does not block the others", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := core.NewSemaphore(10)
			s.Acquire(ctx, 1)
			bigCtx, cancelBig := context.WithCancel(ctx)
			var wg sync.WaitGroup
			big := acquire(bigCtx, &wg, s, 10, core.Normal)
			synctest.Wait()
			small := acquire(ctx, &wg, s, 1, core.Normal)
			synctest.Wait()
			if _, ok := ready(small); ok {
				t.Fatalf("Acquire(1) barged ahead of Acquire(10)")
			}
			cancelBig()
			wg.Wait()
			if err := <-big; !errors.Is(err, context.Canceled) {
				t.Errorf("canceled Acquire(10) = %v, want context.Canceled", err)
			}
			if err := <-small; err != nil {
				t.Errorf("Acquire(1) = %v, want nil", err)
			}
			if got, want := s.Stats(), (core.SemaphoreStats{Limit: 10, InUse: 2, Canceled: 1}); got != want {
				t.Errorf("Stats = %+v, want %+v", got, want)
			}
		})
	})

	t.Run("request above the limit does not block others", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := core.NewSemaphore(2)
			ctx, cancel := context.WithCancel(ctx)
			var wg sync.WaitGroup
			huge := acquire(ctx, &wg, s, 3, core.High)
			synctest.Wait()
			if !s.TryAcquire(1) {
				t.Errorf("TryAcquire(1) = false behind a request above the limit")
			}
			if err := s.Acquire(ctx, 1); err != nil {
				t.Errorf("Acquire(1) = %v behind a request above the limit", err)
			}
			if got := s.Stats().Waiters; got != 1 {
				t.Errorf("Waiters = %d, want 1", got)
			}
			cancel()
			wg.Wait()
			if err := <-huge; !errors.Is(err, context.Canceled) {
				t.Errorf("Acquire(3) = %v, want context.Canceled", err)
			}
		})
	})

	t.Run("release from another goroutine", func(t *testing.T) {
		s := core.NewSemaphore(1)
		if err := s.Acquire(ctx, 1); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		wg.Go(func() { s.Release(1) })
		wg.Wait()
		if err := s.Acquire(ctx, 1); err != nil {
			t.Errorf("Acquire after another goroutine's Release = %v", err)
		}
	})
}

// order runs one waiter per priority, queued in the given order behind a
// held token, and returns the order in which they were served.
func order(t *testing.T, s *core.Semaphore, prios []core.Priority) []core.Priority {
	t.Helper()
	var got []core.Priority
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s.Acquire(ctx, 1)
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, p := range prios {
			wg.Go(func() {
				if err := s.AcquirePriority(ctx, 1, p); err != nil {
					t.Errorf("AcquirePriority(%v) = %v", p, err)
					return
				}
				mu.Lock()
				got = append(got, p)
				mu.Unlock()
				s.Release(1)
			})
			synctest.Wait() // queue them in this order
		}
		s.Release(1)
		wg.Wait()
	})
	return got
}

func TestSemaphorePriority(t *testing.T) {
	t.Run("higher first, FIFO within a level", func(t *testing.T) {
		type tagged struct {
			p core.Priority
			i int
		}
		synctest.Test(t, func(t *testing.T) {
			ctx := context.Background()
			s := core.NewSemaphore(1)
			s.Acquire(ctx, 1)
			in := []tagged{{core.Low, 0}, {core.Normal, 1}, {core.High, 2}, {core.Normal, 3}, {7, 4}, {core.High, 5}, {-9, 6}, {core.Low, 7}}
			var got []tagged
			var mu sync.Mutex
			var wg sync.WaitGroup
			for _, w := range in {
				wg.Go(func() {
					s.AcquirePriority(ctx, 1, w.p)
					mu.Lock()
					got = append(got, w)
					mu.Unlock()
					s.Release(1)
				})
				synctest.Wait()
			}
			s.Release(1)
			wg.Wait()
			want := []tagged{{7, 4}, {core.High, 2}, {core.High, 5}, {core.Normal, 1}, {core.Normal, 3}, {core.Low, 0}, {core.Low, 7}, {-9, 6}}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("served %v, want %v", got, want)
			}
		})
	})

	t.Run("a long line with cancels, an overtaker and a waiter back from parked", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx := context.Background()
			s := core.NewSemaphore(1)
			s.Acquire(ctx, 1)
			var mu sync.Mutex
			var got []string
			var wg sync.WaitGroup
			wait := func(ctx context.Context, name string, n int64, p core.Priority) {
				wg.Go(func() {
					if s.AcquirePriority(ctx, n, p) != nil {
						return
					}
					mu.Lock()
					got = append(got, name)
					mu.Unlock()
					if n > 1 {
						s.SetLimit(1) // one holder at a time again, so that got is in grant order
					}
					s.Release(n)
				})
				synctest.Wait()
			}
			wait(ctx, "big", 2, core.Normal) // parked: more than the limit
			var want []string
			var cancels []context.CancelFunc
			for i := range 100 {
				c, cancel := context.WithCancel(ctx)
				wait(c, strconv.Itoa(i), 1, core.Normal)
				if i%3 == 0 {
					cancels = append(cancels, cancel)
				} else {
					want = append(want, strconv.Itoa(i))
					defer cancel()
				}
			}
			for _, cancel := range cancels {
				cancel()
			}
			synctest.Wait()
			wait(ctx, "high", 1, core.High)
			s.SetLimit(2) // big is back, ahead of every later arrival of its priority
			s.Release(1)
			wg.Wait()
			want = append([]string{"high", "big"}, want...)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("served %v, want %v", got, want)
			}
		})
	})

	t.Run("Acquire is Normal", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx := context.Background()
			s := core.NewSemaphore(1)
			s.Acquire(ctx, 1)
			var mu sync.Mutex
			var got []string
			var wg sync.WaitGroup
			run := func(name string, acquire func() error) {
				wg.Go(func() {
					acquire()
					mu.Lock()
					got = append(got, name)
					mu.Unlock()
					s.Release(1)
				})
				synctest.Wait()
			}
			run("low", func() error { return s.AcquirePriority(ctx, 1, core.Low) })
			run("plain", func() error { return s.Acquire(ctx, 1) })
			run("high", func() error { return s.AcquirePriority(ctx, 1, core.High) })
			s.Release(1)
			wg.Wait()
			if want := "[high plain low]"; fmt.Sprint(got) != want {
				t.Errorf("served %v, want %v", got, want)
			}
		})
	})

	t.Run("a higher priority that fits goes ahead of a head that does not", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx := context.Background()
			s := core.NewSemaphore(3)
			s.Acquire(ctx, 1)
			cctx, cancel := context.WithCancel(ctx)
			var wg sync.WaitGroup
			big := acquire(cctx, &wg, s, 3, core.Normal)
			synctest.Wait()
			high := acquire(ctx, &wg, s, 1, core.High)
			synctest.Wait()
			if err, ok := ready(high); !ok || err != nil {
				t.Errorf("High Acquire(1) with 2 tokens free = (%v, done %v), want (nil, done)", err, ok)
			}
			if _, ok := ready(big); ok {
				t.Errorf("Normal Acquire(3) granted with 1 token free")
			}
			cancel()
			wg.Wait()
		})
	})

	t.Run("no barging across the head", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx := context.Background()
			s := core.NewSemaphore(3)
			s.Acquire(ctx, 2)
			var wg sync.WaitGroup
			head := acquire(ctx, &wg, s, 3, core.High)
			synctest.Wait()
			low := acquire(ctx, &wg, s, 1, core.Low)
			synctest.Wait()
			if _, ok := ready(low); ok {
				t.Fatalf("Low Acquire(1) barged ahead of High Acquire(3)")
			}
			s.Release(2)
			synctest.Wait()
			if err, ok := ready(head); !ok || err != nil {
				t.Fatalf("High Acquire(3) = (%v, done %v), want (nil, done)", err, ok)
			}
			s.Release(3)
			wg.Wait()
			if err := <-low; err != nil {
				t.Errorf("Low Acquire(1) = %v", err)
			}
		})
	})
}

// starve queues one Low waiter behind a stream of High waiters that never
// lets up, and returns how long the Low waiter waited, or false if it was
// still waiting after limit.
func starve(t *testing.T, opts []core.Option, limit time.Duration) (time.Duration, bool) {
	t.Helper()
	var waited time.Duration
	var served bool
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		defer cancel()
		s := core.NewSemaphore(1, opts...)
		const hold = 10 * time.Millisecond
		s.Acquire(ctx, 1)
		var wg sync.WaitGroup
		lowDone := make(chan struct{})
		start := time.Now()
		wg.Go(func() {
			defer close(lowDone)
			if err := s.AcquirePriority(ctx, 1, core.Low); err != nil {
				return
			}
			waited, served = time.Since(start), true
			s.Release(1)
		})
		synctest.Wait()
		// A new High waiter arrives every hold/2, each holding the token
		// for hold: there is always a High waiter queued.
		wg.Go(func() {
			tick := time.NewTicker(hold / 2)
			defer tick.Stop()
			for {
				select {
				case <-lowDone:
					return
				case <-tick.C:
				}
				wg.Go(func() {
					if s.AcquirePriority(ctx, 1, core.High) == nil {
						time.Sleep(hold)
						s.Release(1)
					}
				})
			}
		})
		time.Sleep(hold)
		s.Release(1)
		wg.Wait()
	})
	return waited, served
}

func TestSemaphoreAging(t *testing.T) {
	const d = 100 * time.Millisecond
	t.Run("without aging Low starves", func(t *testing.T) {
		if waited, served := starve(t, nil, 10*time.Second); served {
			t.Errorf("Low waiter served after %v behind a stream of High ones, want starved without aging", waited)
		}
	})
	t.Run("with aging Low is served in bounded time", func(t *testing.T) {
		waited, served := starve(t, []core.Option{core.WithAging(d)}, 10*time.Second)
		// Low's effective priority passes new High arrivals after 2d; the
		// 40 Highs that arrived before then (one every 5ms) run 10ms each.
		const bound = 2*d + 40*10*time.Millisecond + 20*time.Millisecond
		if !served || waited > bound {
			t.Errorf("Low waiter = (waited %v, served %v), want served within %v", waited, served, bound)
		}
	})
	t.Run("aging keeps priority order for equal waits", func(t *testing.T) {
		got := order(t, core.NewSemaphore(1, core.WithAging(d)), []core.Priority{core.Low, core.Normal, core.High})
		if want := "[high normal low]"; fmt.Sprint(got) != want {
			t.Errorf("served %v, want %v", got, want)
		}
	})
	t.Run("a long wait outranks a higher priority", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx := context.Background()
			s := core.NewSemaphore(1, core.WithAging(d))
			s.Acquire(ctx, 1)
			var wg sync.WaitGroup
			var mu sync.Mutex
			var got []core.Priority
			for _, p := range []core.Priority{core.Low, core.High} {
				wg.Go(func() {
					s.AcquirePriority(ctx, 1, p)
					mu.Lock()
					got = append(got, p)
					mu.Unlock()
					s.Release(1)
				})
				synctest.Wait()
				time.Sleep(2*d + time.Millisecond) // Low has waited more than two levels' worth
			}
			s.Release(1)
			wg.Wait()
			if want := "[low high]"; fmt.Sprint(got) != want {
				t.Errorf("served %v, want %v", got, want)
			}
		})
	})
	t.Run("extreme priorities do not overflow", func(t *testing.T) {
		got := order(t, core.NewSemaphore(1, core.WithAging(time.Hour)), []core.Priority{-1 << 62, 1 << 62, 0})
		if want := fmt.Sprint([]core.Priority{1 << 62, 0, -1 << 62}); fmt.Sprint(got) != want {
			t.Errorf("served %v, want %v", got, want)
		}
	})
}

func TestSemaphoreSetLimit(t *testing.T) {
	ctx := context.Background()
	t.Run("grow wakes waiters at once", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := core.NewSemaphore(1)
			s.Acquire(ctx, 1)
			var wg sync.WaitGroup
			var res []<-chan error
			for range 3 {
				res = append(res, acquire(ctx, &wg, s, 1, core.Normal))
				synctest.Wait()
			}
			s.SetLimit(3)
			synctest.Wait()
			var granted int
			for _, r := range res {
				if _, ok := ready(r); ok {
					granted++
				}
			}
			if granted != 2 {
				t.Errorf("granted %d waiters after SetLimit(3), want 2", granted)
			}
			s.Release(3)
			wg.Wait()
			if got, want := s.Stats(), (core.SemaphoreStats{Limit: 3, InUse: 1}); got != want {
				t.Errorf("Stats = %+v, want %+v", got, want)
			}
		})
	})
	t.Run("shrink waits for releases", func(t *testing.T) {
		s := core.NewSemaphore(4)
		s.Acquire(ctx, 4)
		s.SetLimit(2)
		for _, want := range []bool{false, false, true} {
			s.Release(1)
			st := s.Stats()
			if got := s.TryAcquire(1); got != want {
				t.Fatalf("with %d of %d held, TryAcquire(1) = %v, want %v", st.InUse, st.Limit, got, want)
			}
		}
		if got, want := s.Stats(), (core.SemaphoreStats{Limit: 2, InUse: 2}); got != want {
			t.Errorf("Stats = %+v, want %+v", got, want)
		}
	})
	t.Run("shrink unblocks the queue behind a request above the new limit", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := core.NewSemaphore(4)
			s.Acquire(ctx, 1)
			ctxBig, cancelBig := context.WithCancel(ctx)
			var wg sync.WaitGroup
			big := acquire(ctxBig, &wg, s, 4, core.Normal)
			synctest.Wait()
			small := acquire(ctx, &wg, s, 1, core.Normal)
			synctest.Wait()
			if _, ok := ready(small); ok {
				t.Fatalf("Acquire(1) barged ahead of Acquire(4)")
			}
			s.SetLimit(3)
			synctest.Wait()
			if err, ok := ready(small); !ok || err != nil {
				t.Fatalf("Acquire(1) after SetLimit(3) = (%v, done %v), want (nil, done)", err, ok)
			}
			s.SetLimit(4) // the request fits again, but two tokens are held
			synctest.Wait()
			if _, ok := ready(big); ok {
				t.Fatalf("Acquire(4) granted with 2 of 4 held")
			}
			s.Release(2)
			synctest.Wait()
			if err, ok := ready(big); !ok || err != nil {
				t.Fatalf("Acquire(4) after releases = (%v, done %v), want (nil, done)", err, ok)
			}
			cancelBig()
			wg.Wait()
			if got, want := s.Stats(), (core.SemaphoreStats{Limit: 4, InUse: 4}); got != want {
				t.Errorf("Stats = %+v, want %+v", got, want)
			}
		})
	})
}

func TestSemaphoreObserver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		var mu sync.Mutex
		var got []string
		s := core.NewSemaphore(1, core.WithObserver(func(e core.Event) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, fmt.Sprintf("%v#%d/%v/%d", e.Kind, e.Task, e.Priority, e.Weight))
			if e.Time.IsZero() {
				t.Errorf("%v event has no time", e.Kind)
			}
		}))
		s.Acquire(ctx, 1)
		var wg sync.WaitGroup
		res := acquire(ctx, &wg, s, 1, core.High)
		synctest.Wait()
		cctx, cancel := context.WithCancel(ctx)
		canceled := acquire(cctx, &wg, s, 1, core.Low)
		synctest.Wait()
		cancel()
		synctest.Wait()
		s.Release(1)
		wg.Wait()
		<-res
		<-canceled
		s.Release(1)
		s.SetLimit(5)
		want := []string{
			"enqueued#1/normal/1", "started#1/normal/1",
			"enqueued#2/high/1", "waiting#2/high/1",
			"enqueued#3/low/1", "waiting#3/low/1", "canceled#3/low/1",
			"finished#0/normal/1", "started#2/high/1",
			"finished#0/normal/1", "resized#0/normal/5",
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("events:\n got %v\nwant %v", got, want)
		}
	})
}

// jitterClock is the wall clock, but reading it yields the processor a
// random number of times: it shuffles the order in which goroutines report
// events, so that a test sees the orders a loaded machine would produce.
type jitterClock struct{}

func (jitterClock) Now() time.Time {
	for range rand.IntN(20) {
		runtime.Gosched()
	}
	return time.Now()
}

func (jitterClock) AfterFunc(d time.Duration, f func()) core.Timer { return time.AfterFunc(d, f) }

// TestSemaphoreObservedLimit checks that an observer counting tokens from
// events never sees more in use than the last limit it was told of while
// SetLimit grows the semaphore under load: a growth is reported before the
// waiters it wakes start.
func TestSemaphoreObservedLimit(t *testing.T) {
	var mu sync.Mutex
	limit, inUse := int64(1), int64(0)
	s := core.NewSemaphore(1, core.WithClock(jitterClock{}), core.WithObserver(func(e core.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch e.Kind {
		case core.Resized:
			limit = e.Weight
		case core.Started:
			inUse += e.Weight
			if inUse > limit {
				t.Errorf("task %d started with %d tokens in use, limit %d", e.Task, inUse, limit)
			}
		case core.Finished:
			inUse -= e.Weight
		}
	}))
	ctx := context.Background()
	var wg sync.WaitGroup
	for range 400 {
		wg.Go(func() {
			s.Do(ctx, 1, func(context.Context) error {
				runtime.Gosched()
				return nil
			})
		})
	}
	for n := range int64(16) {
		s.SetLimit(2 + n)
		runtime.Gosched()
	}
	wg.Wait()
}

// TestSemaphoreStress runs many waiters with random weights, priorities and
// cancellations, and checks that the limit always holds and that every token
// comes back.
func TestSemaphoreStress(t *testing.T) {
	const (
		limit   = 10
		waiters = 10000
		wave    = 2000 // live goroutines at once, under the race detector's cap
	)
	ctx := context.Background()
	s := core.NewSemaphore(limit, core.WithAging(time.Microsecond))
	var held, most atomic.Int64
	var granted, canceled atomic.Int64
	for w := 0; w < waiters; w += wave {
		var wg sync.WaitGroup
		for i := range wave {
			r := rand.New(rand.NewPCG(uint64(w), uint64(i)))
			n := int64(1 + r.IntN(3))
			p := core.Priority(r.IntN(3) - 1)
			ctx, cancel := context.WithCancel(ctx)
			wg.Go(func() {
				defer cancel()
				if err := s.AcquirePriority(ctx, n, p); err != nil {
					canceled.Add(1)
					return
				}
				granted.Add(1)
				h := held.Add(n)
				for m := most.Load(); h > m && !most.CompareAndSwap(m, h); m = most.Load() {
				}
				runtime.Gosched()
				held.Add(-n)
				s.Release(n)
			})
			if r.IntN(3) == 0 {
				wg.Go(func() {
					runtime.Gosched()
					cancel()
				})
			}
		}
		wg.Wait()
	}
	if got := granted.Load() + canceled.Load(); got != waiters {
		t.Errorf("granted + canceled = %d, want %d", got, waiters)
	}
	if got := most.Load(); got > limit {
		t.Errorf("most tokens held at once = %d, want at most %d", got, limit)
	}
	if got, want := s.Stats(), (core.SemaphoreStats{Limit: limit, Canceled: uint64(canceled.Load())}); got != want {
		t.Errorf("Stats = %+v, want %+v", got, want)
	}
	if !s.TryAcquire(limit) {
		t.Errorf("TryAcquire(%d) = false after every waiter returned", limit)
	}
}

// TestSemaphoreCancelRacesWake cancels a waiter at the moment its tokens
// are released to it, many times: the tokens are never lost or duplicated.
func TestSemaphoreCancelRacesWake(t *testing.T) {
	s := core.NewSemaphore(1)
	for i := range 2000 {
		if err := s.Acquire(context.Background(), 1); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		res := acquire(ctx, &wg, s, 1, core.Priority(i%3-1))
		for s.Stats().Waiters == 0 && len(res) == 0 {
			runtime.Gosched()
		}
		wg.Go(func() { s.Release(1) })
		wg.Go(cancel)
		wg.Wait()
		if err := <-res; err == nil {
			s.Release(1)
		} else if !errors.Is(err, context.Canceled) {
			t.Fatalf("Acquire = %v, want nil or context.Canceled", err)
		}
		if st := s.Stats(); st.InUse != 0 || st.Waiters != 0 {
			t.Fatalf("round %d: Stats = %+v, want nothing in use or waiting", i, st)
		}
	}
	if !s.TryAcquire(1) {
		t.Errorf("TryAcquire(1) = false at the end")
	}
}

func TestSemaphoreDo(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("boom")
	t.Run("outcomes release the tokens", func(t *testing.T) {
		var mu sync.Mutex
		var got []string
		s := core.NewSemaphore(2, core.WithObserver(func(e core.Event) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, fmt.Sprintf("%v#%d:%s/%v/%d", e.Kind, e.Task, e.Name, e.Priority, e.Weight))
		}))
		cases := []struct {
			name string
			fn   func(context.Context) error
			want func(error) bool
		}{
			{"ok", func(context.Context) error { return nil }, func(err error) bool { return err == nil }},
			{"fail", func(context.Context) error { return boom }, func(err error) bool { return errors.Is(err, boom) }},
			{"panic", func(context.Context) error { panic(boom) }, func(err error) bool {
				var pe *core.PanicError
				return errors.As(err, &pe) && pe.Value == boom && len(pe.Stack) > 0
			}},
		}
		for _, c := range cases {
			held := false
			err := s.Do(ctx, 2, func(ctx context.Context) error {
				held = s.Stats().InUse == 2
				return c.fn(ctx)
			}, core.WithName(c.name), core.WithPriority(core.High))
			if !c.want(err) {
				t.Errorf("Do(%s) = %v", c.name, err)
			}
			if !held {
				t.Errorf("Do(%s) ran fn without holding the tokens", c.name)
			}
			if got := s.Stats().InUse; got != 0 {
				t.Errorf("after Do(%s), InUse = %d, want 0", c.name, got)
			}
		}
		want := []string{
			"enqueued#1:ok/high/2", "started#1:ok/high/2", "finished#1:ok/high/2",
			"enqueued#2:fail/high/2", "started#2:fail/high/2", "failed#2:fail/high/2",
			"enqueued#3:panic/high/2", "started#3:panic/high/2", "panicked#3:panic/high/2",
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("events:\n got %v\nwant %v", got, want)
		}
	})
	t.Run("canceled while waiting never runs", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := core.NewSemaphore(1)
			s.Acquire(ctx, 1)
			ctx, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			ran := false
			err := s.Do(ctx, 1, func(context.Context) error { ran = true; return nil })
			if !errors.Is(err, context.DeadlineExceeded) || ran {
				t.Errorf("Do = (%v, ran %v), want (context.DeadlineExceeded, not run)", err, ran)
			}
			if got, want := s.Stats(), (core.SemaphoreStats{Limit: 1, InUse: 1, Canceled: 1}); got != want {
				t.Errorf("Stats = %+v, want %+v", got, want)
			}
		})
	})
	t.Run("canceled while running", func(t *testing.T) {
		var kinds []core.EventKind
		s := core.NewSemaphore(1, core.WithObserver(func(e core.Event) { kinds = append(kinds, e.Kind) }))
		ctx, cancel := context.WithCancel(ctx)
		err := s.Do(ctx, 1, func(ctx context.Context) error {
			cancel()
			<-ctx.Done()
			return ctx.Err()
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Do = %v, want context.Canceled", err)
		}
		if want := "[enqueued started canceled]"; fmt.Sprint(kinds) != want {
			t.Errorf("events = %v, want %v", kinds, want)
		}
		if got := s.Stats().InUse; got != 0 {
			t.Errorf("InUse = %d, want 0", got)
		}
	})
}

// TestSemaphoreBigLimit checks limits too large for the lock-free count,
// up to the largest int64, around the boundary, and moves between them and
// small limits, where the lock-free paths resume.
func TestSemaphoreBigLimit(t *testing.T) {
	ctx := context.Background()
	for _, lim := range []int64{1<<40 - 1, 1 << 40, 1 << 62, math.MaxInt64} {
		t.Run(fmt.Sprint(lim), func(t *testing.T) {
			s := core.NewSemaphore(lim)
			if err := s.Acquire(ctx, 1); err != nil {
				t.Fatalf("Acquire(1) = %v, want nil", err)
			}
			if !s.TryAcquire(1) {
				t.Errorf("TryAcquire(1) with 1 token held = false, want true")
			}
			if got, want := s.Stats(), (core.SemaphoreStats{Limit: lim, InUse: 2}); got != want {
				t.Errorf("Stats = %+v, want %+v", got, want)
			}
			s.Release(2)
			if err := s.Acquire(ctx, lim-1); err != nil {
				t.Fatalf("Acquire(%d) = %v, want nil", lim-1, err)
			}
			if got := s.TryAcquire(2); got {
				t.Errorf("TryAcquire(2) with 1 token free = %v, want false", got)
			}
			if got := s.TryAcquire(1); !got {
				t.Errorf("TryAcquire(1) with 1 token free = %v, want true", got)
			}
			if got, want := s.Stats(), (core.SemaphoreStats{Limit: lim, InUse: lim}); got != want {
				t.Errorf("Stats = %+v, want %+v", got, want)
			}
			s.Release(lim)
			mustPanic(t, "Release(1) with nothing held", func() { s.Release(1) })
			if got, want := s.Stats(), (core.SemaphoreStats{Limit: lim}); got != want {
				t.Errorf("Stats after Release(%d) = %+v, want %+v", lim, got, want)
			}

			// Down to a small limit and back up.
			s.SetLimit(3)
			if err := s.Acquire(ctx, 1); err != nil {
				t.Errorf("at limit 3, Acquire(1) = %v, want nil", err)
			}
			for i, want := range []bool{true, true, false} {
				if got := s.TryAcquire(1); got != want {
					t.Errorf("at limit 3, TryAcquire(1) #%d = %v, want %v", i, got, want)
				}
			}
			mustPanic(t, "at limit 3, Release(4) with 3 held", func() { s.Release(4) })
			s.Release(3)
			if got, want := s.Stats(), (core.SemaphoreStats{Limit: 3}); got != want {
				t.Errorf("at limit 3, Stats = %+v, want %+v", got, want)
			}
			s.SetLimit(lim)
			if got := s.TryAcquire(lim); !got {
				t.Errorf("back at limit %d, TryAcquire(%d) = %v, want true", lim, lim, got)
			}
			if got, want := s.Stats(), (core.SemaphoreStats{Limit: lim, InUse: lim}); got != want {
				t.Errorf("back at limit %d, Stats = %+v, want %+v", lim, got, want)
			}
			s.Release(lim)
		})
	}

	t.Run("waiters", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			const lim = math.MaxInt64
			s := core.NewSemaphore(lim)
			s.Acquire(ctx, lim)
			var wg sync.WaitGroup
			all := acquire(ctx, &wg, s, lim, core.Normal)
			synctest.Wait()
			one := acquire(ctx, &wg, s, 1, core.High)
			synctest.Wait()
			if _, ok := ready(one); ok {
				t.Fatalf("Acquire(1) granted with every token held")
			}
			s.Release(1)
			synctest.Wait()
			if err, ok := ready(one); !ok || err != nil {
				t.Fatalf("Acquire(1) after Release(1) = (%v, done %v), want (nil, done)", err, ok)
			}
			s.Release(lim - 1)
			synctest.Wait()
			if _, ok := ready(all); ok {
				t.Fatalf("Acquire(%d) granted with 1 token held", lim)
			}
			s.Release(1)
			wg.Wait()
			if err := <-all; err != nil {
				t.Errorf("Acquire(%d) = %v, want nil", lim, err)
			}
			if got, want := s.Stats(), (core.SemaphoreStats{Limit: lim, InUse: lim}); got != want {
				t.Errorf("Stats = %+v, want %+v", got, want)
			}
		})
	})
}

// TestSemaphoreShrinkBelowInUse shrinks the limit below the tokens held:
// nothing is granted until releases bring the count under the new limit,
// and then the semaphore behaves as one of the new size.
func TestSemaphoreShrinkBelowInUse(t *testing.T) {
	ctx := context.Background()
	for _, from := range []int64{8, 1 << 41} {
		t.Run(fmt.Sprint(from), func(t *testing.T) {
			s := core.NewSemaphore(from)
			s.Acquire(ctx, 6)
			s.SetLimit(2)
			if got := s.TryAcquire(0); got {
				t.Errorf("TryAcquire(0) over the limit = %v, want false, as x/sync", got)
			}
			s.Release(3)
			if got := s.TryAcquire(1); got {
				t.Errorf("TryAcquire(1) with 3 of 2 held = %v, want false", got)
			}
			s.Release(2)
			if got := s.TryAcquire(2); got {
				t.Errorf("TryAcquire(2) with 1 of 2 held = %v, want false", got)
			}
			if got := s.TryAcquire(1); !got {
				t.Errorf("TryAcquire(1) with 1 of 2 held = %v, want true", got)
			}
			mustPanic(t, "Release(3) with 2 held", func() { s.Release(3) })
			s.Release(2)
			if err := s.Acquire(ctx, 2); err != nil {
				t.Errorf("Acquire(2) with none held = %v, want nil", err)
			}
			if got, want := s.Stats(), (core.SemaphoreStats{Limit: 2, InUse: 2}); got != want {
				t.Errorf("Stats = %+v, want %+v", got, want)
			}
		})
	}
	t.Run("more in use than the lock-free count holds", func(t *testing.T) {
		const held = 1 << 61
		s := core.NewSemaphore(math.MaxInt64)
		s.Acquire(ctx, held)
		s.SetLimit(2)
		if got := s.TryAcquire(1); got {
			t.Errorf("TryAcquire(1) with %d of 2 held = %v, want false", int64(held), got)
		}
		s.Release(held - 1)
		if got := s.TryAcquire(2); got {
			t.Errorf("TryAcquire(2) with 1 of 2 held = %v, want false", got)
		}
		if got := s.TryAcquire(1); !got {
			t.Errorf("TryAcquire(1) with 1 of 2 held = %v, want true", got)
		}
		if got, want := s.Stats(), (core.SemaphoreStats{Limit: 2, InUse: 2}); got != want {
			t.Errorf("Stats = %+v, want %+v", got, want)
		}
	})
}

// TestSemaphoreOverRelease checks that releasing more tokens than are
// held panics and leaves the count as it was, with and without waiters.
func TestSemaphoreOverRelease(t *testing.T) {
	ctx := context.Background()
	t.Run("no waiter", func(t *testing.T) {
		for _, lim := range []int64{5, 1 << 41} {
			s := core.NewSemaphore(lim)
			s.Acquire(ctx, 3)
			mustPanic(t, "Release(4) with 3 held", func() { s.Release(4) })
			if got := s.Stats().InUse; got != 3 {
				t.Errorf("limit %d: InUse after the panic = %d, want 3", lim, got)
			}
			s.Release(0) // releasing nothing never panics
			s.Release(3)
			mustPanic(t, "Release(1) with none held", func() { s.Release(1) })
			if got := s.TryAcquire(lim); !got {
				t.Errorf("limit %d: TryAcquire(%d) after the panics = %v, want true", lim, lim, got)
			}
		}
	})
	t.Run("waiters queued", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := core.NewSemaphore(5)
			s.Acquire(ctx, 4)
			var wg sync.WaitGroup
			res := acquire(ctx, &wg, s, 3, core.Normal)
			synctest.Wait()
			mustPanic(t, "Release(5) with 4 held", func() { s.Release(5) })
			synctest.Wait()
			if got, want := s.Stats(), (core.SemaphoreStats{Limit: 5, InUse: 4, Waiters: 1}); got != want {
				t.Errorf("Stats after the panic = %+v, want %+v", got, want)
			}
			if _, ok := ready(res); ok {
				t.Errorf("Acquire(3) granted by a release that panicked")
			}
			s.Release(4)
			wg.Wait()
			if err := <-res; err != nil {
				t.Errorf("Acquire(3) = %v, want nil", err)
			}
			if got, want := s.Stats(), (core.SemaphoreStats{Limit: 5, InUse: 3}); got != want {
				t.Errorf("Stats = %+v, want %+v", got, want)
			}
		})
	})
}

// recovered runs f and returns the value it panicked with, or nil.
func recovered(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// TestSemaphoreHandBackAfterRelease ends the context of a waiting
// acquire, then grants it the token and releases the token again before
// the acquire wakes. The acquire's hand-back is then a release of more
// than is held: it panics and leaves the count as it was. (When the acquire
// wakes before the grant, it returns the context's error and the second
// release is the excess one.) Exactly one of them panics.
func TestSemaphoreHandBackAfterRelease(t *testing.T) {
	for i := range 50 {
		synctest.Test(t, func(t *testing.T) {
			s := core.NewSemaphore(1)
			s.Acquire(context.Background(), 1)
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			var err error
			var acquirePanic any
			wg.Go(func() { acquirePanic = recovered(func() { err = s.Acquire(ctx, 1) }) })
			synctest.Wait()
			cancel()
			s.Release(1) // grants the waiter, unless it woke first
			releasePanic := recovered(func() { s.Release(1) })
			wg.Wait()
			if (acquirePanic == nil) == (releasePanic == nil) {
				t.Errorf("#%d: Acquire = (%v, panic %v), second Release panic %v; want exactly one panic",
					i, err, acquirePanic, releasePanic)
			}
			want := core.SemaphoreStats{Limit: 1}
			if acquirePanic == nil {
				want.Canceled = 1 // it returned the context's error
			}
			if got := s.Stats(); got != want {
				t.Errorf("#%d: Stats = %+v, want %+v", i, got, want)
			}
		})
	}
}

// TestSemaphoreOverReleaseRace makes two releases race, round after
// round, that together return more tokens than are held, and then acquire
// at once. The lock-free releases can push the count below zero for a
// moment before the excess is put back, and nothing may be granted in that
// moment. So no more than the limit is ever in use, a waiter that fits is
// never left waiting, and every round ends with the count that the
// releases that returned and the acquires that succeeded account for.
func TestSemaphoreOverReleaseRace(t *testing.T) {
	const (
		limit  = 2
		rounds = 10000
	)
	checkPanic := func(what string, v any) {
		if msg := fmt.Sprint(v); !strings.HasPrefix(msg, "core:") {
			t.Errorf("%s panicked with %q, want a message prefixed \"core:\"", what, msg)
		}
	}
	s := core.NewSemaphore(limit)
	// The releasers wait for round to reach their next round, spinning,
	// so that they start at the same moment. tried and acquired are the
	// last rounds whose TryAcquire and Acquire returned.
	var round, tried, acquired atomic.Int64
	var returned, taken atomic.Int64 // tokens, in all rounds
	var roundCtx context.Context     // set before round moves on
	var releasers sync.WaitGroup
	for i, n := range []int64{1, limit} {
		releasers.Go(func() {
			for r := int64(1); r <= rounds; r++ {
				for round.Load() < r {
					runtime.Gosched()
				}
				// Release, then at once TryAcquire or Acquire, in turns.
				v := recovered(func() { s.Release(n) })
				try := int64(i) == r%2
				var err error
				if try {
					if !s.TryAcquire(limit) {
						err = core.ErrFull
					}
				} else if v := recovered(func() { err = s.Acquire(roundCtx, limit) }); v != nil {
					// Granted as the context ended, but a release of
					// the tokens came first: handing them back
					// panicked, and they stay taken.
					checkPanic("Acquire", v)
				}
				if v == nil {
					returned.Add(n)
				} else {
					checkPanic("Release", v)
				}
				if err == nil {
					taken.Add(limit)
				}
				if try {
					tried.Store(r)
				} else {
					acquired.Store(r)
				}
			}
		})
	}
	for r := int64(1); r <= rounds; r++ {
		if !s.TryAcquire(limit) {
			t.Fatalf("round %d: TryAcquire(%d) = false, Stats = %+v", r, limit, s.Stats())
		}
		taken.Add(limit)
		ctx, cancel := context.WithCancel(context.Background())
		roundCtx = ctx
		round.Store(r)
		// Wait for the TryAcquire, and for the Acquire to return or wait.
		for tried.Load() < r {
			runtime.Gosched()
		}
		st := s.Stats()
		for acquired.Load() < r && st.Waiters == 0 {
			runtime.Gosched()
			st = s.Stats()
		}
		if st.InUse > limit || st.InUse < 0 || st.Waiters > 0 && st.InUse == 0 {
			t.Fatalf("round %d: Stats = %+v, want 0 to %d in use and nobody waiting for free tokens", r, st, limit)
		}
		cancel()
		for acquired.Load() < r {
			runtime.Gosched()
		}
		st = s.Stats()
		if want := taken.Load() - returned.Load(); st.InUse != want || st.Waiters != 0 {
			t.Fatalf("round %d: Stats = %+v, want %d in use (%d taken, %d returned) and nobody waiting",
				r, st, want, taken.Load(), returned.Load())
		}
		if st.InUse > 0 {
			s.Release(st.InUse)
			returned.Add(st.InUse)
		}
	}
	releasers.Wait()
}

// TestSemaphoreModeRace runs acquires and releases while SetLimit moves
// the limit between a small one and one too large for the lock-free count,
// and waiters queue and cancel. No more tokens are ever held than the
// larger limit, nor, once a shrink has taken hold, than the smaller; every
// token comes back.
func TestSemaphoreModeRace(t *testing.T) {
	const (
		small   = 3
		big     = 1 << 41
		huge    = 1 << 40 // a weight that fits only the big limit, twice
		holders = 3
		rounds  = 4000 // per holder
	)
	weights := []int64{1, 1, 2, 3, huge}
	ctx := context.Background()
	s := core.NewSemaphore(small)
	var held atomic.Int64 // tokens held by the goroutines below
	// phase counts the changes of limit: it is odd while the small limit
	// is in force and no more than it is in use.
	var phase atomic.Int64
	hold := func(n int64) {
		p := phase.Load()
		h := held.Add(n)
		if h > big {
			t.Errorf("tokens held = %d, want at most %d, the larger limit", h, big)
		}
		if p%2 == 1 && h > small && phase.Load() == p {
			t.Errorf("tokens held = %d while the smaller limit holds, want at most %d", h, small)
		}
		runtime.Gosched()
		held.Add(-n)
		s.Release(n)
	}

	stop := make(chan struct{})
	var wg, others sync.WaitGroup
	for g := range holders {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 0))
			for range rounds {
				n := weights[r.IntN(len(weights))]
				if r.IntN(3) == 0 {
					if s.TryAcquire(n) {
						hold(n)
					}
					continue
				}
				if err := s.Acquire(ctx, n); err != nil {
					t.Errorf("Acquire(%d) = %v, want nil", n, err)
					return
				}
				hold(n)
			}
		})
	}
	others.Go(func() { // resizes
		for {
			select {
			case <-stop:
				return
			default:
			}
			s.SetLimit(small)
			for s.Stats().InUse > small {
				runtime.Gosched()
			}
			phase.Add(1) // odd: the small limit holds
			runtime.Gosched()
			phase.Add(1)
			s.SetLimit(big)
			runtime.Gosched()
		}
	})
	others.Go(func() { // queues waiters and cancels them
		r := rand.New(rand.NewPCG(uint64(holders), 0))
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			ctx, cancel := context.WithCancel(ctx)
			spins := r.IntN(3)
			var canceler sync.WaitGroup
			canceler.Go(func() {
				for range spins {
					runtime.Gosched()
				}
				cancel()
			})
			n := weights[r.IntN(len(weights))]
			if s.AcquirePriority(ctx, n, core.Priority(i%3-1)) == nil {
				hold(n)
			}
			canceler.Wait()
		}
	})
	wg.Wait()
	close(stop)
	others.Wait()
	if st := s.Stats(); st.InUse != 0 || st.Waiters != 0 {
		t.Errorf("Stats at the end = %+v, want nothing in use or waiting", st)
	}
	if lim := s.Stats().Limit; !s.TryAcquire(lim) {
		t.Errorf("TryAcquire(%d) at the end = false, want true", lim)
	}
}

func ExampleSemaphore() {
	ctx := context.Background()
	sem := core.NewSemaphore(3)

	if err := sem.Acquire(ctx, 2); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("room for 2 more:", sem.TryAcquire(2))
	sem.Release(2)
	fmt.Println("room for 3:", sem.TryAcquire(3))
	st := sem.Stats()
	fmt.Printf("%d of %d in use\n", st.InUse, st.Limit)
	// Output:
	// room for 2 more: false
	// room for 3: true
	// 3 of 3 in use
}

func ExampleSemaphore_Do() {
	ctx := context.Background()
	sem := core.NewSemaphore(1)
	err := sem.Do(ctx, 1, func(ctx context.Context) error {
		fmt.Println("holding", sem.Stats().InUse, "token")
		return errors.New("disk full")
	}, core.WithName("backup"))
	fmt.Println(err, "- tokens in use:", sem.Stats().InUse)
	// Output:
	// holding 1 token
	// disk full - tokens in use: 0
}

func ExampleSemaphore_AcquirePriority() {
	ctx := context.Background()
	sem := core.NewSemaphore(1)
	sem.Acquire(ctx, 1) // hold the only token while the others queue

	var mu sync.Mutex
	var served []core.Priority
	var wg sync.WaitGroup
	for i, p := range []core.Priority{core.Low, core.Normal, core.High} {
		wg.Go(func() {
			sem.AcquirePriority(ctx, 1, p)
			mu.Lock()
			served = append(served, p)
			mu.Unlock()
			sem.Release(1)
		})
		for sem.Stats().Waiters <= i { // queue them in this order
			runtime.Gosched()
		}
	}
	sem.Release(1)
	wg.Wait()
	fmt.Println(served)
	// Output: [high normal low]
}
