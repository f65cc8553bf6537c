package bench_test

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"sluice/core"
)

// BenchmarkKeyedEvents runs 1,000,000 events (a tenth in a quick run), each
// a ~1 µs spin, spread round-robin over 10, 10,000 or 1,000,000 keys, with
// at most two running at once and each key's events one at a time, in
// order. One op is one whole run; ns/event is wall time per event, the
// wait for the last one included and the queue's Close after it not, and
// allocs/event the allocations per event.
//
//   - sluice: a KeyedQueue with WithParallelism(2) and its default idle
//     timeout, fed by KeyedQueue.Submit with a cancellable context, the
//     handles dropped.
//   - hash2: the baseline, two worker goroutines, each reading a channel;
//     an event goes to the channel of hash(key) % 2, so a key's events run
//     in order on one worker. The hash spreads every key count evenly.
//   - sluice-evict: the same events with no work, on a KeyedQueue whose
//     idle timeout (a minute) runs on a manual clock: once every task has
//     ended, B/idle-key is the live heap per key the idle lanes hold; then
//     the clock moves on, every lane is evicted, and B-after-evict is what
//     the live heap has grown by since before the queue was made, the queue
//     still referenced. Heap back to baseline reads as near zero.
func BenchmarkKeyedEvents(b *testing.B) {
	events := scaled(1_000_000)
	for _, keys := range []int{10, 10_000, 1_000_000} {
		b.Run("keys="+strconv.Itoa(keys), func(b *testing.B) {
			b.Run("sluice", func(b *testing.B) {
				work := spinFor(spinShort)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				var wg sync.WaitGroup
				fn := func(context.Context) error {
					work()
					wg.Done()
					return nil
				}
				eventRuns(b, events, func() {
					q := core.NewKeyedQueue[int](core.WithParallelism(2))
					defer func() {
						b.StopTimer() // closing, with every lane idle, is not an event's work
						q.Close()
						b.StartTimer()
					}()
					key := 0
					for range events {
						wg.Add(1)
						if _, err := q.Submit(ctx, key, fn); err != nil {
							b.Fatal(err)
						}
						if key++; key == keys {
							key = 0
						}
					}
					wg.Wait()
				})
			})
			b.Run("hash2", func(b *testing.B) {
				work := spinFor(spinShort)
				eventRuns(b, events, func() {
					var workers [2]chan int
					var wg sync.WaitGroup
					for w := range workers {
						// Buffered so that the producer runs ahead of the
						// workers, as it does with the queue, which keeps
						// every pending event.
						workers[w] = make(chan int, 1024)
						wg.Go(func() {
							for range workers[w] {
								work()
							}
						})
					}
					key := 0
					for range events {
						workers[uint64(key)*0x9E3779B97F4A7C15>>63] <- key
						if key++; key == keys {
							key = 0
						}
					}
					for _, ch := range workers {
						close(ch)
					}
					wg.Wait()
				})
			})
			b.Run("sluice-evict", func(b *testing.B) {
				var idle, after float64
				for range b.N {
					base := liveHeap()
					r := newEvictionRun(2)
					for i := range events {
						if _, err := r.q.Submit(context.Background(), i%keys, emptyCtx); err != nil {
							b.Fatal(err)
						}
					}
					r.waitIdle()
					idle = float64(liveHeap()-base) / float64(min(keys, events))
					r.evictAll()
					after = float64(liveHeap() - base)
					runtime.KeepAlive(r)
					if err := r.q.Close(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(idle, "B/idle-key")
				b.ReportMetric(after, "B-after-evict")
			})
		})
	}
}

// eventRuns runs BenchmarkKeyedEvents: b.N runs of events events each, and
// reports the time (what the benchmark's timer measured) and allocations
// per event.
func eventRuns(b *testing.B, events int, run func()) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for range b.N {
		run()
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	n := float64(b.N) * float64(events)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/event")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/n, "allocs/event")
}
