package prom_test

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"sluice/core"
	"sluice/metrics/prom"
)

var sink atomic.Uint64

// spin does about d of CPU work, calibrated once.
func spin(d time.Duration) func() {
	const rounds = 100_000
	best := time.Hour
	for range 10 {
		start := time.Now()
		mix(rounds)
		best = min(best, time.Since(start))
	}
	n := max(1, int(float64(rounds)*float64(d)/float64(best)))
	return func() { mix(n) }
}

func mix(n int) {
	h := uint64(n) | 1
	for range n {
		h ^= h >> 33
		h *= 0xff51afd7ed558ccd
	}
	if h == 0 {
		sink.Add(1)
	}
}

// BenchmarkObserved runs ~1 µs tasks through WorkQueue.Go at parallelism
// GOMAXPROCS, in batches of 10,000, unobserved and observed through a
// Collector (scraped by nobody: the observer's cost alone). One op is one
// task; the ratio of the two is the collector's cost.
func BenchmarkObserved(b *testing.B) {
	work := spin(time.Microsecond)
	for _, form := range []struct {
		name string
		opts func() []core.Option
	}{
		{"unobserved", func() []core.Option { return nil }},
		{"empty-observer", func() []core.Option { return []core.Option{core.WithObserver(func(core.Event) {})} }},
		{"collector", func() []core.Option {
			c := prom.New("bench")
			return []core.Option{c.Option()}
		}},
	} {
		b.Run(form.name, func(b *testing.B) {
			var wg sync.WaitGroup
			fn := func(context.Context) error { work(); wg.Done(); return nil }
			q := core.NewWorkQueue(runtime.GOMAXPROCS(0), form.opts()...)
			defer q.Close()
			ctx := context.Background()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				wg.Add(1)
				if err := q.Go(ctx, fn); err != nil {
					b.Fatal(err)
				}
				if i++; i%10_000 == 0 {
					wg.Wait()
				}
			}
			wg.Wait()
		})
	}
}
