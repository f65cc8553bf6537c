package bench_test

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sync/semaphore"

	"sluice/core"
)

// weighted is the API core.Semaphore shares with x/sync's Weighted: the
// drop-in promise, checked at compile time.
type weighted interface {
	Acquire(ctx context.Context, n int64) error
	TryAcquire(n int64) bool
	Release(n int64)
}

var (
	_ weighted = (*core.Semaphore)(nil)
	_ weighted = (*semaphore.Weighted)(nil)
	_ weighted = (*chanSemaphore)(nil)
)

// chanSemaphore is the hand-written channel semaphore Go programs often
// use instead of a library: a buffered channel of tokens. Weights other
// than 1 are taken one token at a time.
type chanSemaphore chan struct{}

func (c chanSemaphore) Acquire(ctx context.Context, n int64) error {
	for range n {
		select {
		case c <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (c chanSemaphore) TryAcquire(n int64) bool {
	select {
	case c <- struct{}{}:
		return true
	default:
		return false
	}
}

func (c chanSemaphore) Release(n int64) {
	for range n {
		<-c
	}
}

var semaphores = []struct {
	name string
	new  func(n int64) weighted
}{
	{"sluice", func(n int64) weighted { return core.NewSemaphore(n) }},
	{"xsync", func(n int64) weighted { return semaphore.NewWeighted(n) }},
	{"channel", func(n int64) weighted { return make(chanSemaphore, n) }},
}

// contenders is the number of goroutines in the contended benchmarks.
const contenders = 8

func BenchmarkSemaphore(b *testing.B) {
	ctx := context.Background()
	// Uncontended calls each implementation directly, as its users do, so
	// that no interface call hides the difference.
	b.Run("Uncontended", func(b *testing.B) {
		b.Run("sluice", func(b *testing.B) {
			s := core.NewSemaphore(1)
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Acquire(ctx, 1); err != nil {
					b.Fatal(err)
				}
				s.Release(1)
			}
		})
		b.Run("sluice-observed", func(b *testing.B) {
			s := core.NewSemaphore(1, core.WithObserver(func(core.Event) {}))
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Acquire(ctx, 1); err != nil {
					b.Fatal(err)
				}
				s.Release(1)
			}
		})
		b.Run("xsync", func(b *testing.B) {
			s := semaphore.NewWeighted(1)
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Acquire(ctx, 1); err != nil {
					b.Fatal(err)
				}
				s.Release(1)
			}
		})
		b.Run("channel", func(b *testing.B) {
			s := make(chanSemaphore, 1)
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Acquire(ctx, 1); err != nil {
					b.Fatal(err)
				}
				s.Release(1)
			}
		})
	})
	b.Run("Contended", func(b *testing.B) {
		for _, sem := range semaphores {
			b.Run(sem.name, func(b *testing.B) {
				s := sem.new(1)
				contend(b, func(int) error {
					if err := s.Acquire(ctx, 1); err != nil {
						return err
					}
					s.Release(1)
					return nil
				})
			})
		}
	})
	b.Run("ContendedPriority", func(b *testing.B) {
		// Three priority levels, one per goroutine in turn.
		b.Run("sluice", func(b *testing.B) {
			s := core.NewSemaphore(1)
			contend(b, func(g int) error {
				if err := s.AcquirePriority(ctx, 1, core.Priority(g%3-1)); err != nil {
					return err
				}
				s.Release(1)
				return nil
			})
		})
	})
}

// contend runs op b.N times in all from contenders goroutines, each passing
// its own index.
func contend(b *testing.B, op func(g int) error) {
	b.ReportAllocs()
	b.SetParallelism((contenders + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	var next atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		g := int(next.Add(1))
		for pb.Next() {
			if err := op(g); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkSemaphoreHold measures a semaphore under contention on real
// work: at limit 1 and 4, 2, 8, 64 or 1,024 goroutines each loop on
// Acquire(1), a ~1 µs spin while holding the token, and Release(1). One op
// is one such turn, by any goroutine; ns/op is wall time per turn.
//
//   - sluice: core.Semaphore.
//   - sluice-observed: the same with WithObserver(func(core.Event){}).
//   - xsync: golang.org/x/sync/semaphore.Weighted.
func BenchmarkSemaphoreHold(b *testing.B) {
	ctx := context.Background()
	impls := []struct {
		name string
		new  func(n int64) weighted
	}{
		{"sluice", func(n int64) weighted { return core.NewSemaphore(n) }},
		{"sluice-observed", func(n int64) weighted {
			return core.NewSemaphore(n, core.WithObserver(func(core.Event) {}))
		}},
		{"xsync", func(n int64) weighted { return semaphore.NewWeighted(n) }},
	}
	for _, limit := range []int64{1, 4} {
		b.Run("limit="+strconv.FormatInt(limit, 10), func(b *testing.B) {
			for _, g := range []int{2, 8, 64, 1024} {
				b.Run("goroutines="+strconv.Itoa(g), func(b *testing.B) {
					for _, impl := range impls {
						b.Run(impl.name, func(b *testing.B) {
							work := spinFor(spinShort)
							s := impl.new(limit)
							hold(b, g, func() error {
								if err := s.Acquire(ctx, 1); err != nil {
									return err
								}
								work()
								s.Release(1)
								return nil
							})
						})
					}
				})
			}
		})
	}
}

// hold runs turn b.N times in all from g goroutines, started before the
// timing begins and released at once.
func hold(b *testing.B, g int, turn func() error) {
	b.ReportAllocs()
	var left atomic.Int64
	left.Store(int64(b.N))
	start := make(chan struct{})
	var ready, done sync.WaitGroup
	errc := make(chan error, 1) // the first failure; later ones are dropped
	for range g {
		ready.Add(1)
		done.Go(func() {
			ready.Done()
			<-start
			for left.Add(-1) >= 0 {
				if err := turn(); err != nil {
					select {
					case errc <- err:
					default:
					}
					return
				}
			}
		})
	}
	ready.Wait()
	b.ResetTimer()
	close(start)
	done.Wait()
	b.StopTimer()
	select {
	case err := <-errc:
		b.Fatal(err)
	default:
	}
}
