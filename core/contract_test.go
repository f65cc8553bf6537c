package core_test

import (
	"context"
	"math"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"sluice/core"
)

// TestTaskContextErrAfterDone checks the context package's contract on a
// task's context: Err is nil while Done is open, and non-nil once it is
// closed. Many tasks poll Err while they are canceled in every way a task
// can be (Task.Cancel, the submitter's context, Close), and each checks,
// when it first sees an error, that Done is closed.
func TestTaskContextErrAfterDone(t *testing.T) {
	const rounds = 2000
	ways := []struct {
		name string
		run  func(q *core.WorkQueue, fn func(context.Context) error) (*core.Task, error)
	}{
		{"Task.Cancel", func(q *core.WorkQueue, fn func(context.Context) error) (*core.Task, error) {
			task, err := q.Submit(context.Background(), fn)
			if err != nil {
				return nil, err
			}
			runtime.Gosched()
			task.Cancel()
			return task, nil
		}},
		{"submitter context", func(q *core.WorkQueue, fn func(context.Context) error) (*core.Task, error) {
			ctx, cancel := context.WithCancel(context.Background())
			task, err := q.Submit(ctx, fn)
			runtime.Gosched()
			cancel()
			return task, err
		}},
	}
	for _, way := range ways {
		t.Run(way.name, func(t *testing.T) {
			var bad, seen atomic.Int64
			q := core.NewWorkQueue(4)
			fn := func(ctx context.Context) error {
				// Take the Done channel first, as a select on it would,
				// so that a cancellation has a channel to close.
				done := ctx.Done()
				for {
					if ctx.Err() != nil {
						select {
						case <-done:
						default:
							bad.Add(1)
						}
						seen.Add(1)
						return nil
					}
					runtime.Gosched()
				}
			}
			var tasks []*core.Task
			for range rounds {
				task, err := way.run(q, fn)
				if err != nil {
					t.Fatalf("submit = %v", err)
				}
				tasks = append(tasks, task)
			}
			for _, task := range tasks {
				<-task.Done() // canceled before it ran, or ran
			}
			q.Close()
			if n := bad.Load(); n != 0 {
				t.Errorf("Err was non-nil while Done was open in %d of %d cancels, want 0", n, seen.Load())
			}
		})
	}
	t.Run("Close", func(t *testing.T) {
		var bad atomic.Int64
		for range rounds / 20 {
			q := core.NewWorkQueue(8)
			for range 8 {
				q.Go(context.Background(), func(ctx context.Context) error {
					done := ctx.Done()
					for ctx.Err() == nil {
						runtime.Gosched()
					}
					select {
					case <-done:
					default:
						bad.Add(1)
					}
					return nil
				})
			}
			runtime.Gosched()
			q.Close()
		}
		if n := bad.Load(); n != 0 {
			t.Errorf("Err was non-nil while Done was open in %d tasks, want 0", n)
		}
	})
}

// TestDrainEndedContext checks that Drain with a context that has already
// ended returns its error and changes nothing, for every queue.
func TestDrainEndedContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	type queue struct {
		drain  func(context.Context) error
		submit func() error
		close  func() error
	}
	wq := core.NewWorkQueue(1)
	pr := core.NewProcessor(1, func(context.Context, int) (int, error) { return 0, nil })
	kq := core.NewKeyedQueue[int]()
	queues := map[string]queue{
		"WorkQueue":  {wq.Drain, func() error { _, err := wq.TrySubmit(wqNop); return err }, wq.Close},
		"Processor":  {pr.Drain, func() error { _, err := pr.TrySubmit(1); return err }, pr.Close},
		"KeyedQueue": {kq.Drain, func() error { _, err := kq.TrySubmit(1, wqNop); return err }, kq.Close},
	}
	for name, q := range queues {
		t.Run(name, func(t *testing.T) {
			if err := q.drain(ctx); err != context.Canceled {
				t.Errorf("Drain(ended ctx) = %v, want context.Canceled", err)
			}
			if err := q.submit(); err != nil {
				t.Errorf("TrySubmit after Drain(ended ctx) = %v, want nil: the queue should be unchanged", err)
			}
			q.close()
		})
	}
}

// TestConsumeLanesAfterGoexit checks that two handlers running at once
// never report the same Lane, also after handlers called runtime.Goexit
// (which ends their goroutine, whose lane number a new one then takes).
func TestConsumeLanesAfterGoexit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		running := map[int]uint64{} // lane -> task
		var clash []string
		var ended atomic.Int64
		obs := func(e core.Event) {
			if e.Kind.Terminal() {
				defer ended.Add(1)
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case e.Kind == core.Started:
				if other, ok := running[e.Lane]; ok {
					clash = append(clash, "lane "+strconv.Itoa(e.Lane)+" task "+strconv.Itoa(int(e.Task))+" and "+strconv.Itoa(int(other)))
				}
				running[e.Lane] = e.Task
			case e.Kind.Terminal():
				if running[e.Lane] == e.Task {
					delete(running, e.Lane)
				}
			}
		}
		msgs := make(chan int)
		go func() {
			for i := range 60 {
				msgs <- i
			}
			close(msgs)
		}()
		// Consume runs on a goroutine of its own: a handler on the
		// caller's goroutine that calls runtime.Goexit ends that goroutine
		// too, and Consume with it, while the other handlers go on.
		go func() {
			core.Consume(t.Context(), msgs, func(ctx context.Context, m int) error {
				time.Sleep(time.Duration(m%7) * time.Millisecond)
				if m%3 == 1 {
					runtime.Goexit()
				}
				return nil
			}, core.WithConcurrency(4), core.WithObserver(obs), core.OnError(func(int, error) {}))
		}()
		for ended.Load() < 60 {
			time.Sleep(time.Millisecond)
		}
		synctest.Wait()
		for _, c := range clash {
			t.Errorf("two live handlers on one lane: %s", c)
		}
	})
}

// TestTokenWaitRespectsShrink checks that tasks holding a slot while they
// wait for a shared token do not run past a SetParallelism shrink made
// meanwhile: at parallelism 1, one function runs at a time.
func TestTokenWaitRespectsShrink(t *testing.T) {
	for _, name := range []string{"WorkQueue", "KeyedQueue"} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				sem := core.NewSemaphore(1)
				sem.Acquire(t.Context(), 1) // every task waits for this token
				var now, most atomic.Int64
				fn := func(context.Context) error {
					n := now.Add(1)
					for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
					}
					time.Sleep(time.Millisecond)
					now.Add(-1)
					return nil
				}
				var submit func(i int)
				var resize func(int)
				var drain func() error
				if name == "WorkQueue" {
					q := core.NewWorkQueue(4, core.WithSemaphore(sem))
					submit = func(int) { q.Go(t.Context(), fn) }
					resize, drain = q.SetParallelism, func() error { return q.Drain(t.Context()) }
				} else {
					q := core.NewKeyedQueue[int](core.WithParallelism(4), core.WithSemaphore(sem))
					submit = func(i int) { q.Submit(t.Context(), i, fn) }
					resize, drain = q.SetParallelism, func() error { return q.Drain(t.Context()) }
				}
				for i := range 8 {
					submit(i)
				}
				synctest.Wait() // four hold a slot and wait for the token
				resize(1)
				sem.SetLimit(4) // tokens for all: only the parallelism limits now
				sem.Release(1)
				drain()
				if got := most.Load(); got != 1 {
					t.Errorf("most functions running at once after a shrink to 1 = %d, want 1", got)
				}
			})
		})
	}
}

// TestTotalCapacityCountsTokenWaiters checks that tasks holding a slot
// while they wait for a shared token count as pending against
// WithTotalCapacity and WithCapacity.
func TestTotalCapacityCountsTokenWaiters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sem := core.NewSemaphore(1)
		sem.Acquire(t.Context(), 1)
		kq := core.NewKeyedQueue[int](core.WithTotalCapacity(2), core.WithSemaphore(sem))
		wq := core.NewWorkQueue(4, core.WithCapacity(2), core.WithSemaphore(sem))
		var kAccepted, wAccepted int
		for i := range 20 {
			if _, err := kq.TrySubmit(i, wqNop); err == nil {
				kAccepted++
			}
			if _, err := wq.TrySubmit(wqNop); err == nil {
				wAccepted++
			}
		}
		if kAccepted != 2 {
			t.Errorf("KeyedQueue WithTotalCapacity(2) accepted %d of 20 tasks waiting for a token, want 2", kAccepted)
		}
		if wAccepted != 2 {
			t.Errorf("WorkQueue WithCapacity(2) accepted %d of 20 tasks waiting for a token, want 2", wAccepted)
		}
		sem.Release(1)
		kq.Drain(t.Context())
		wq.Drain(t.Context())
	})
}

// TestTotalCapacityLaneWaitDoesNotBlockOthers checks that a Submit waiting
// for room in its own full lane does not hold up other keys while the
// queue as a whole has room.
func TestTotalCapacityLaneWaitDoesNotBlockOthers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		block := make(chan struct{})
		wait := func(context.Context) error { <-block; return nil }
		q := core.NewKeyedQueue[string](core.WithCapacity(1), core.WithTotalCapacity(10))
		q.Submit(t.Context(), "a", wait) // runs
		q.Submit(t.Context(), "a", wait) // fills a's lane
		go q.Submit(t.Context(), "a", wait)
		synctest.Wait() // the third waits for room in a's lane
		if _, err := q.TrySubmit("b", wait); err != nil {
			t.Errorf("TrySubmit for another key while one waits for its lane = %v, want nil", err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		if _, err := q.Submit(ctx, "c", wait); err != nil {
			t.Errorf("Submit for another key while one waits for its lane = %v, want nil", err)
		}
		cancel()
		close(block)
		q.Drain(t.Context())
	})
}

// TestOldestPendingCountsTokenWaiters checks OldestPending while a task
// waits for a shared token, and in a KeyedQueue whose oldest task waits
// behind younger ones in the scheduler.
func TestOldestPendingCountsTokenWaiters(t *testing.T) {
	t.Run("token", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			sem := core.NewSemaphore(1)
			sem.Acquire(t.Context(), 1)
			q := core.NewWorkQueue(1, core.WithSemaphore(sem))
			q.Go(t.Context(), wqNop)
			time.Sleep(10 * time.Second)
			synctest.Wait()
			if got := q.Stats().OldestPending; got != 10*time.Second {
				t.Errorf("OldestPending of a task waiting 10s for a token = %v, want 10s", got)
			}
			sem.Release(1)
			q.Drain(t.Context())
		})
	})
	t.Run("keyed", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			blockA, blockB := make(chan struct{}), make(chan struct{})
			// One shard: keys take their turns task by task there, where
			// shards take turns of several tasks.
			q := core.NewKeyedQueueShards[string](1, core.WithParallelism(1))
			q.Submit(t.Context(), "a", func(context.Context) error { <-blockA; return nil })
			q.Submit(t.Context(), "a", wqNop) // a's second, in a's lane
			time.Sleep(2 * time.Second)
			q.Submit(t.Context(), "b", func(context.Context) error { <-blockB; return nil })
			q.Submit(t.Context(), "c", wqNop)
			time.Sleep(time.Second)
			close(blockA) // b runs; a's second now waits behind c, younger
			time.Sleep(7 * time.Second)
			synctest.Wait()
			if got := q.Stats().OldestPending; got != 10*time.Second {
				t.Errorf("OldestPending = %v, want 10s (a's second task)", got)
			}
			close(blockB)
			q.Drain(t.Context())
		})
	})
}

// TestTokenWaitReported checks that a queue task that waits for a shared
// token is reported Waiting, as a Consume message is.
func TestTokenWaitReported(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{}
		sem := core.NewSemaphore(1)
		sem.Acquire(t.Context(), 1)
		q := core.NewWorkQueue(2, core.WithSemaphore(sem), core.WithObserver(rec.observe))
		task, _ := q.Submit(t.Context(), wqNop)
		synctest.Wait()
		got := rec.kinds(task.ID())
		if len(got) != 2 || got[1] != core.Waiting {
			t.Errorf("events of a task waiting for a token = %v, want [enqueued waiting]", got)
		}
		sem.Release(1)
		q.Drain(t.Context())
	})
}

// TestSemaphoreMinPriority checks that the lowest priority is served last
// (negating it must not overflow into the highest).
func TestSemaphoreMinPriority(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := core.NewSemaphore(1)
		s.Acquire(t.Context(), 1)
		var order []core.Priority
		var mu sync.Mutex
		for _, p := range []core.Priority{core.Priority(math.MinInt), core.Normal} {
			go func() {
				s.AcquirePriority(t.Context(), 1, p)
				mu.Lock()
				order = append(order, p)
				mu.Unlock()
				s.Release(1)
			}()
			synctest.Wait()
		}
		s.Release(1)
		synctest.Wait()
		if len(order) != 2 || order[0] != core.Normal {
			t.Errorf("served %v, want Normal before MinInt", order)
		}
	})
}

// TestWaitNilContext checks that Task.Wait and Future.Wait panic with a
// core: message on a nil context, as every other blocking call does.
func TestWaitNilContext(t *testing.T) {
	block := make(chan struct{})
	q := core.NewWorkQueue(1)
	defer q.Close()
	p := core.NewProcessor(1, func(_ context.Context, i int) (int, error) {
		if i == 0 {
			<-block
		}
		return 0, nil
	})
	defer p.Close()
	defer close(block) // before the Closes, which wait for the functions
	q.Go(context.Background(), func(context.Context) error { <-block; return nil })
	p.Submit(context.Background(), 0)
	task, _ := q.Submit(context.Background(), wqNop) // pending
	fut, _ := p.Submit(context.Background(), 1)
	for name, wait := range map[string]func(){
		"Task.Wait":   func() { task.Wait(nil) },
		"Future.Wait": func() { fut.Wait(nil) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				v := recover()
				s, ok := v.(string)
				if !ok || len(s) < 5 || s[:5] != "core:" {
					t.Errorf("%s(nil) panicked with %v, want a core: message", name, v)
				}
			}()
			wait()
		})
	}
}

// heapAfter returns the live heap after fn, less the live heap before it,
// both after a collection.
func heapAfter(fn func()) int64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

// TestIdleQueueMemory checks that an idle queue gives back the memory of
// its peaks: an observed queue its event buffers after a large batch, and
// a KeyedQueue its lane numbers after a mass eviction.
func TestIdleQueueMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a few hundred MiB")
	}
	t.Run("event buffers", func(t *testing.T) {
		var q *core.WorkQueue
		grown := heapAfter(func() {
			q = core.NewWorkQueue(1, core.WithObserver(func(core.Event) {}))
			block := make(chan struct{})
			q.Go(context.Background(), func(context.Context) error { <-block; return nil })
			for range 100_000 {
				q.Go(context.Background(), wqNop)
			}
			// One batch: every pending task ends at once, with its event.
			ctx, cancel := context.WithCancel(context.Background())
			for range 100_000 {
				q.Go(ctx, wqNop)
			}
			cancel()
			close(block)
			for q.Stats().Pending > 0 {
				runtime.Gosched()
			}
		})
		runtime.KeepAlive(q)
		if grown > 1<<20 {
			t.Errorf("an idle observed queue holds %d B more than before its batch, want under 1 MiB", grown)
		}
		q.Close()
	})
	t.Run("lane numbers", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			// The runtime keeps the descriptors of ended goroutines for
			// reuse: start as many as the queue will first, so that they
			// are not counted against it.
			var wg sync.WaitGroup
			for range 100_000 {
				wg.Go(func() { time.Sleep(time.Millisecond) })
			}
			wg.Wait()
			var q *core.KeyedQueue[int]
			grown := heapAfter(func() {
				q = core.NewKeyedQueue[int](core.WithIdleTimeout(time.Second))
				for i := range 100_000 {
					q.Submit(t.Context(), i, wqNop)
				}
				time.Sleep(time.Second / 2)
				q.Submit(t.Context(), 99_999, wqNop) // the last lane stays
				time.Sleep(time.Second * 3 / 4)
				synctest.Wait()
				if got := q.Stats().Lanes; got != 1 {
					t.Errorf("lanes = %d, want 1", got)
				}
			})
			runtime.KeepAlive(q)
			if grown > 64<<10 {
				t.Errorf("a KeyedQueue with 1 of 100,000 lanes left holds %d B more than before, want under 64 KiB", grown)
			}
			q.Close()
		})
	})
}

// TestObserverOneCallAtATime checks that a Semaphore's and a Consume's
// observer, like a queue's, is never called from two goroutines at once.
func TestObserverOneCallAtATime(t *testing.T) {
	var in, overlaps atomic.Int64
	obs := func(core.Event) {
		if in.Add(1) > 1 {
			overlaps.Add(1)
		}
		runtime.Gosched()
		in.Add(-1)
	}
	t.Run("Semaphore", func(t *testing.T) {
		overlaps.Store(0)
		s := core.NewSemaphore(4, core.WithObserver(obs))
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for range 200 {
					s.Do(context.Background(), 1, func(context.Context) error { return nil })
				}
			})
		}
		wg.Wait()
		if n := overlaps.Load(); n != 0 {
			t.Errorf("observer calls overlapped %d times, want 0", n)
		}
	})
	t.Run("Consume", func(t *testing.T) {
		overlaps.Store(0)
		msgs := make(chan int)
		go func() {
			for i := range 2000 {
				msgs <- i
			}
			close(msgs)
		}()
		core.Consume(context.Background(), msgs, func(context.Context, int) error { return nil },
			core.WithConcurrency(8), core.WithObserver(obs))
		if n := overlaps.Load(); n != 0 {
			t.Errorf("observer calls overlapped %d times, want 0", n)
		}
	})
}

// TestEventTimesInOrder checks that a queue's events, as its observer gets
// them, never go back in time, however many goroutines submit and run.
func TestEventTimesInOrder(t *testing.T) {
	for _, name := range []string{"WorkQueue", "KeyedQueue"} {
		t.Run(name, func(t *testing.T) {
			var last time.Time
			var back int
			obs := func(e core.Event) { // called one at a time
				if e.Time.Before(last) {
					back++
				}
				last = e.Time
			}
			var submit func(i int)
			var drain func()
			if name == "WorkQueue" {
				q := core.NewWorkQueue(2, core.WithObserver(obs))
				submit = func(int) { q.Go(context.Background(), func(context.Context) error { return nil }) }
				drain = func() { q.Drain(context.Background()) }
			} else {
				q := core.NewKeyedQueue[int](core.WithParallelism(2), core.WithObserver(obs))
				submit = func(i int) { q.Submit(context.Background(), i%7, func(context.Context) error { return nil }) }
				drain = func() { q.Drain(context.Background()) }
			}
			var wg sync.WaitGroup
			for g := range 4 {
				wg.Go(func() {
					for i := range 2000 {
						submit(g*2000 + i)
					}
				})
			}
			wg.Wait()
			drain()
			if back != 0 {
				t.Errorf("events earlier than the one before them: %d, want 0", back)
			}
		})
	}
}

// TestQueueObserverDelivery checks a queue's delivery of events under
// many submitters and an observer slow enough that goroutines wait for
// one another's events: the observer is never called from two goroutines
// at once, sees each task's events in order, has seen a task's Enqueued
// when its Submit returns and its Started when its function runs.
func TestQueueObserverDelivery(t *testing.T) {
	const submitters, tasks = 16, 300
	var in, overlaps atomic.Int64
	var mu sync.Mutex
	last := map[string]core.EventKind{} // by task name: the latest event seen
	var calls int
	var disorder []string
	obs := func(e core.Event) {
		if in.Add(1) > 1 {
			overlaps.Add(1)
		}
		mu.Lock()
		calls++
		slow := calls%7 == 0
		if e.Task != 0 {
			if prev, want := last[e.Name], map[core.EventKind]core.EventKind{core.Enqueued: 0, core.Waiting: core.Enqueued, core.Started: core.Waiting, core.Finished: core.Started}[e.Kind]; prev != want && !(e.Kind == core.Started && prev == core.Enqueued) {
				disorder = append(disorder, e.Name+": "+prev.String()+" then "+e.Kind.String())
			}
			last[e.Name] = e.Kind
		}
		mu.Unlock()
		if slow {
			time.Sleep(time.Microsecond) // others' batches queue, and some park
		}
		in.Add(-1)
	}
	seen := func(name string, want core.EventKind) bool {
		mu.Lock()
		defer mu.Unlock()
		return last[name] >= want
	}
	q := core.NewWorkQueue(4, core.WithObserver(obs))
	var errs atomic.Int64
	var wg sync.WaitGroup
	for g := range submitters {
		wg.Go(func() {
			for i := range tasks {
				name := strconv.Itoa(g) + "/" + strconv.Itoa(i)
				_, err := q.Submit(context.Background(), func(context.Context) error {
					if !seen(name, core.Started) {
						t.Errorf("task %s runs before the observer saw it start", name)
					}
					return nil
				}, core.WithName(name))
				if err != nil {
					t.Error(err)
					return
				}
				if !seen(name, core.Enqueued) {
					errs.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if err := q.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := errs.Load(); n != 0 {
		t.Errorf("%d Submit calls returned before the observer saw their task enqueued, want 0", n)
	}
	if n := overlaps.Load(); n != 0 {
		t.Errorf("observer calls overlapped %d times, want 0", n)
	}
	if len(disorder) > 0 {
		t.Errorf("%d tasks' events out of order, first %s", len(disorder), disorder[0])
	}
	for name, k := range last {
		if k != core.Finished {
			t.Errorf("task %s: last event %v, want finished", name, k)
			break
		}
	}
	if got, want := len(last), submitters*tasks; got != want {
		t.Errorf("observer saw %d tasks, want %d", got, want)
	}
}

// TestTaskContextAfterFuncWhenDone checks that a task's context, asked
// through its AfterFunc method (as context.AfterFunc and context.WithCancel
// ask it) to call f once it is done, calls f in a goroutine of its own when
// it is done already, as context.AfterFunc does: the context package makes
// that call holding the lock that f takes, so f called on the caller's
// goroutine deadlocks a WithCancel racing the task's end.
func TestTaskContextAfterFuncWhenDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := core.NewWorkQueue(1)
		defer q.Close()
		var tctx context.Context
		if err := q.Do(context.Background(), func(ctx context.Context) error { tctx = ctx; return nil }); err != nil {
			t.Fatal(err)
		}
		if tctx.Err() == nil {
			t.Fatal("the task's context is not done once its function returned")
		}
		af, ok := tctx.(interface{ AfterFunc(func()) func() bool })
		if !ok {
			t.Fatal("a task's context has no AfterFunc method")
		}
		called := make(chan struct{})
		var returned atomic.Bool
		go func() {
			af.AfterFunc(func() { called <- struct{}{} })
			returned.Store(true)
		}()
		synctest.Wait()
		if !returned.Load() {
			t.Error("AfterFunc on a done context called f before returning, on the caller's goroutine")
		}
		<-called
	})
}
