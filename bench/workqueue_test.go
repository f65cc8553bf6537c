package bench_test

import (
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/alitto/pond/v2"
	"github.com/panjf2000/ants/v2"
	"github.com/sourcegraph/conc/pool"
	"golang.org/x/sync/errgroup"

	"sluice/core"
)

// Empty tasks, one per calling convention, made once so that no benchmark
// counts a closure allocation per task.
var (
	emptyFunc = func() {}
	emptyErr  = func() error { return nil }
	emptyCtx  = func(context.Context) error { return nil }
)

// BenchmarkWorkQueue compares running functions with bounded parallelism.
// Every pool runs at parallelism GOMAXPROCS; one op is one task.
//
//   - Throughput: submit b.N empty tasks, then wait for all of them.
//     sluice-go and pond-go submit without a handle (WorkQueue.Go, pond's
//     Go), as conc, errgroup and ants do; sluice and pond return one per
//     task (WorkQueue.Submit's *Task, pond's Submit's Task).
//   - RoundTrip: submit one task and wait for it, b.N times.
//   - Do: run one task through the queue and return its error, b.N times.
func BenchmarkWorkQueue(b *testing.B) {
	n := runtime.GOMAXPROCS(0)
	ctx := context.Background()
	b.Run("Throughput", func(b *testing.B) {
		b.Run("sluice", func(b *testing.B) {
			b.ReportAllocs()
			q := core.NewWorkQueue(n)
			for b.Loop() {
				if _, err := q.Submit(ctx, emptyCtx); err != nil {
					b.Fatal(err)
				}
			}
			if err := q.Drain(ctx); err != nil {
				b.Fatal(err)
			}
		})
		b.Run("sluice-go", func(b *testing.B) {
			b.ReportAllocs()
			q := core.NewWorkQueue(n)
			for b.Loop() {
				if err := q.Go(ctx, emptyCtx); err != nil {
					b.Fatal(err)
				}
			}
			if err := q.Drain(ctx); err != nil {
				b.Fatal(err)
			}
		})
		b.Run("conc", func(b *testing.B) {
			b.ReportAllocs()
			p := pool.New().WithMaxGoroutines(n)
			for b.Loop() {
				p.Go(emptyFunc)
			}
			p.Wait()
		})
		b.Run("errgroup", func(b *testing.B) {
			b.ReportAllocs()
			var g errgroup.Group
			g.SetLimit(n)
			for b.Loop() {
				g.Go(emptyErr)
			}
			if err := g.Wait(); err != nil {
				b.Fatal(err)
			}
		})
		b.Run("pond", func(b *testing.B) {
			b.ReportAllocs()
			p := pond.NewPool(n)
			for b.Loop() {
				p.Submit(emptyFunc)
			}
			p.StopAndWait()
		})
		b.Run("pond-go", func(b *testing.B) {
			b.ReportAllocs()
			p := pond.NewPool(n)
			for b.Loop() {
				if err := p.Go(emptyFunc); err != nil {
					b.Fatal(err)
				}
			}
			p.StopAndWait()
		})
		b.Run("ants", func(b *testing.B) {
			b.ReportAllocs()
			p, err := ants.NewPool(n)
			if err != nil {
				b.Fatal(err)
			}
			defer p.Release()
			var wg sync.WaitGroup
			done := func() { wg.Done() }
			for b.Loop() {
				wg.Add(1)
				if err := p.Submit(done); err != nil {
					b.Fatal(err)
				}
			}
			wg.Wait()
		})
	})
	b.Run("RoundTrip", func(b *testing.B) {
		b.Run("sluice", func(b *testing.B) {
			b.ReportAllocs()
			q := core.NewWorkQueue(n)
			defer q.Close()
			for b.Loop() {
				t, err := q.Submit(ctx, emptyCtx)
				if err != nil {
					b.Fatal(err)
				}
				if err := t.Wait(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("pond", func(b *testing.B) {
			b.ReportAllocs()
			p := pond.NewPool(n)
			defer p.StopAndWait()
			for b.Loop() {
				if err := p.Submit(emptyFunc).Wait(); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	b.Run("Do", func(b *testing.B) {
		b.Run("sluice", func(b *testing.B) {
			b.ReportAllocs()
			q := core.NewWorkQueue(n)
			defer q.Close()
			for b.Loop() {
				if err := q.Do(ctx, emptyCtx); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

// BenchmarkProcessor measures a typed call through a Processor, to compare
// with BenchmarkWorkQueue/Do: one op is one Process call.
func BenchmarkProcessor(b *testing.B) {
	n := runtime.GOMAXPROCS(0)
	ctx := context.Background()
	b.Run("Process", func(b *testing.B) {
		b.Run("sluice", func(b *testing.B) {
			b.ReportAllocs()
			p := core.NewProcessor(n, func(_ context.Context, in int) (int, error) { return in, nil })
			defer p.Close()
			for i := 0; b.Loop(); i++ {
				out, err := p.Process(ctx, i)
				if err != nil || out != i {
					b.Fatalf("Process(%d) = %d, %v", i, out, err)
				}
			}
		})
	})
}
