package bench_test

import (
	"context"
	"runtime"
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
