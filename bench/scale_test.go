package bench_test

import (
	"context"
	"hash/maphash"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/alitto/pond/v2"
	"golang.org/x/sync/semaphore"

	"sluice/core"
)

// scaleProcs are the GOMAXPROCS values BenchmarkScale runs at, capped by
// the cores present.
func scaleProcs() []int {
	var ps []int
	for _, p := range []int{2, 4, 8, 16} {
		if p <= runtime.NumCPU() {
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		ps = []int{runtime.NumCPU()}
	}
	return ps
}

// BenchmarkScale runs the real-work benchmarks at GOMAXPROCS 2, 4, 8 and
// 16 (as many as the machine has cores), so that a table per core count
// shows how each primitive scales against hand-written baselines. One op
// is one task (or one Semaphore hold); ns/op is wall time per task, the
// wait for the last one included; tasks/s is 1e9 / ns/op. Tasks spin for
// a calibrated ~1 µs or ~20 µs. Parallelism is GOMAXPROCS, and the tasks
// are submitted by 1 or GOMAXPROCS goroutines (subs=), each submitting its
// share of b.N as fast as the pool takes it.
//
// WorkQueue (parallelism P):
//   - sluice-go, sluice-go-cancel, sluice-submit, sluice-processor: as in
//     BenchmarkTasks (a shared context.Background or cancellable context).
//   - sluice-go-owncancel: each task submitted with its own
//     context.WithCancel, canceled when the task ends: a request's context.
//   - sluice-go-observed: sluice-go with WithObserver(func(core.Event){}).
//   - pond-go: pond's Go; channel: P workers reading one channel of
//     functions; channel-owncancel: channel with each task's own
//     context.WithCancel, as sluice-go-owncancel, to show what those
//     contexts cost by themselves; static: P goroutines each running
//     b.N/P tasks directly, the ideal.
//
// KeyedQueue (parallelism P), keys= 10, 10,000, 1,000,000; task i has key
// i % keys:
//   - sluice: KeyedQueue.Submit with a cancellable context.
//   - sluice-bounded: the same with WithTotalCapacity(64*P), the room of
//     hashN's channels, so that submitters wait for room as hashN's do
//     (every submit finds the queue full).
//   - hashN: P workers on channels; an event goes to hash(key) % P, so a
//     key's events run in order on one worker.
//   - goroutine-per-key: each key with work has a goroutine draining its
//     FIFO, which exits when the FIFO is empty.
//
// Semaphore, limit= 1 and 4, g= 2 to 1,024 goroutines, each taking a
// token, spinning ~1 µs, and releasing it: sluice against x/sync's
// Weighted (as BenchmarkSemaphoreHold, at each core count).
func BenchmarkScale(b *testing.B) {
	for _, procs := range scaleProcs() {
		b.Run("procs="+strconv.Itoa(procs), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			for _, w := range []struct {
				name string
				d    func() func()
			}{{"1us", func() func() { return spinFor(spinShort) }}, {"20us", func() func() { return spinFor(spinLong) }}} {
				b.Run("work="+w.name, func(b *testing.B) {
					for _, subs := range []int{1, procs} {
						b.Run("subs="+strconv.Itoa(subs), func(b *testing.B) {
							scaleWorkQueue(b, w.d, procs, subs)
						})
					}
				})
			}
			for _, keys := range []int{10, 10_000, 1_000_000} {
				b.Run("keyed/keys="+strconv.Itoa(keys), func(b *testing.B) {
					for _, subs := range []int{1, procs} {
						b.Run("subs="+strconv.Itoa(subs), func(b *testing.B) {
							scaleKeyed(b, spinFor(spinShort), procs, subs, keys)
						})
					}
				})
			}
			for _, limit := range []int64{1, 4} {
				for _, g := range []int{2, 8, 64, 1024} {
					b.Run("semaphore/limit="+strconv.FormatInt(limit, 10)+"/g="+strconv.Itoa(g), func(b *testing.B) {
						work := spinFor(spinShort)
						b.Run("sluice", func(b *testing.B) {
							s := core.NewSemaphore(limit)
							hold(b, g, func() error {
								if err := s.Acquire(context.Background(), 1); err != nil {
									return err
								}
								work()
								s.Release(1)
								return nil
							})
						})
						b.Run("xsync", func(b *testing.B) {
							s := semaphore.NewWeighted(limit)
							hold(b, g, func() error {
								if err := s.Acquire(context.Background(), 1); err != nil {
									return err
								}
								work()
								s.Release(1)
								return nil
							})
						})
					})
				}
			}
		})
	}
}

// submitAll calls submit b.N times, spread over subs goroutines, and waits
// for the tasks through wg, which each task marks done.
func submitAll(b *testing.B, subs int, wg *sync.WaitGroup, submit func(i int) error) {
	b.ReportAllocs()
	wg.Add(b.N)
	b.ResetTimer()
	var sg sync.WaitGroup
	for s := range subs {
		sg.Go(func() {
			for i := s; i < b.N; i += subs {
				if err := submit(i); err != nil {
					b.Error(err)
					wg.Done()
				}
			}
		})
	}
	sg.Wait()
	wg.Wait()
	b.StopTimer()
}

func scaleWorkQueue(b *testing.B, mk func() func(), procs, subs int) {
	wq := func(opts ...core.Option) func(b *testing.B, submit func(q *core.WorkQueue, fn func(context.Context) error) error) {
		return func(b *testing.B, submit func(q *core.WorkQueue, fn func(context.Context) error) error) {
			work := mk()
			var wg sync.WaitGroup
			fn := func(context.Context) error { work(); wg.Done(); return nil }
			q := core.NewWorkQueue(procs, opts...)
			defer q.Close()
			submitAll(b, subs, &wg, func(int) error { return submit(q, fn) })
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.Run("sluice-go", func(b *testing.B) {
		wq()(b, func(q *core.WorkQueue, fn func(context.Context) error) error { return q.Go(context.Background(), fn) })
	})
	b.Run("sluice-go-cancel", func(b *testing.B) {
		wq()(b, func(q *core.WorkQueue, fn func(context.Context) error) error { return q.Go(ctx, fn) })
	})
	b.Run("sluice-submit", func(b *testing.B) {
		wq()(b, func(q *core.WorkQueue, fn func(context.Context) error) error {
			_, err := q.Submit(ctx, fn)
			return err
		})
	})
	b.Run("sluice-go-owncancel", func(b *testing.B) {
		work := mk()
		var wg sync.WaitGroup
		q := core.NewWorkQueue(procs)
		defer q.Close()
		submitAll(b, subs, &wg, func(int) error {
			rctx, rcancel := context.WithCancel(ctx)
			return q.Go(rctx, func(context.Context) error {
				work()
				rcancel()
				wg.Done()
				return nil
			})
		})
	})
	b.Run("sluice-go-observed", func(b *testing.B) {
		wq(core.WithObserver(func(core.Event) {}))(b, func(q *core.WorkQueue, fn func(context.Context) error) error {
			return q.Go(context.Background(), fn)
		})
	})
	b.Run("sluice-processor", func(b *testing.B) {
		work := mk()
		var wg sync.WaitGroup
		p := core.NewProcessor(procs, func(context.Context, int) (int, error) { work(); wg.Done(); return 0, nil })
		defer p.Close()
		submitAll(b, subs, &wg, func(i int) error {
			_, err := p.Submit(ctx, i)
			return err
		})
	})
	b.Run("pond-go", func(b *testing.B) {
		work := mk()
		var wg sync.WaitGroup
		task := func() { work(); wg.Done() }
		p := pond.NewPool(procs)
		defer p.StopAndWait()
		submitAll(b, subs, &wg, func(int) error { return p.Go(task) })
	})
	b.Run("channel", func(b *testing.B) {
		work := mk()
		var wg sync.WaitGroup
		task := func() { work(); wg.Done() }
		ch, stop := channelPool(procs)
		defer stop()
		submitAll(b, subs, &wg, func(int) error { ch <- task; return nil })
	})
	b.Run("channel-owncancel", func(b *testing.B) {
		work := mk()
		var wg sync.WaitGroup
		ch, stop := channelPool(procs)
		defer stop()
		submitAll(b, subs, &wg, func(int) error {
			rctx, rcancel := context.WithCancel(ctx)
			ch <- func() {
				if rctx.Err() == nil {
					work()
				}
				rcancel()
				wg.Done()
			}
			return nil
		})
	})
	b.Run("static", func(b *testing.B) {
		work := mk()
		b.ReportAllocs()
		b.ResetTimer()
		var wg sync.WaitGroup
		for w := range procs {
			wg.Go(func() {
				for i := w; i < b.N; i += procs {
					work()
				}
			})
		}
		wg.Wait()
	})
}

// channelPool starts n workers that run the functions sent on ch; stop
// closes ch and waits for them.
func channelPool(n int) (ch chan func(), stop func()) {
	ch = make(chan func(), n)
	var workers sync.WaitGroup
	for range n {
		workers.Go(func() {
			for f := range ch {
				f()
			}
		})
	}
	return ch, func() { close(ch); workers.Wait() }
}

func scaleKeyed(b *testing.B, work func(), procs, subs, keys int) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.Run("sluice", func(b *testing.B) {
		var wg sync.WaitGroup
		fn := func(context.Context) error { work(); wg.Done(); return nil }
		q := core.NewKeyedQueue[int](core.WithParallelism(procs))
		defer q.Close()
		submitAll(b, subs, &wg, func(i int) error {
			_, err := q.Submit(ctx, i%keys, fn)
			return err
		})
	})
	b.Run("sluice-bounded", func(b *testing.B) {
		var wg sync.WaitGroup
		fn := func(context.Context) error { work(); wg.Done(); return nil }
		q := core.NewKeyedQueue[int](core.WithParallelism(procs), core.WithTotalCapacity(64*procs))
		defer q.Close()
		submitAll(b, subs, &wg, func(i int) error {
			_, err := q.Submit(ctx, i%keys, fn)
			return err
		})
	})
	b.Run("hashN", func(b *testing.B) {
		var wg sync.WaitGroup
		seed := maphash.MakeSeed()
		chs := make([]chan int, procs)
		var workers sync.WaitGroup
		for i := range chs {
			chs[i] = make(chan int, 64)
			workers.Go(func() {
				for range chs[i] {
					work()
					wg.Done()
				}
			})
		}
		submitAll(b, subs, &wg, func(i int) error {
			k := i % keys
			chs[maphash.Comparable(seed, k)%uint64(procs)] <- k
			return nil
		})
		for _, ch := range chs {
			close(ch)
		}
		workers.Wait()
	})
	b.Run("goroutine-per-key", func(b *testing.B) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		fifos := map[int][]int{} // keys with a goroutine, and their backlog
		var drains sync.WaitGroup
		submitAll(b, subs, &wg, func(i int) error {
			k := i % keys
			mu.Lock()
			q, running := fifos[k]
			fifos[k] = append(q, i)
			mu.Unlock()
			if running {
				return nil
			}
			drains.Go(func() {
				for {
					mu.Lock()
					q := fifos[k]
					if len(q) == 0 {
						delete(fifos, k)
						mu.Unlock()
						return
					}
					fifos[k] = q[1:]
					mu.Unlock()
					work()
					wg.Done()
				}
			})
			return nil
		})
		drains.Wait()
	})
}
