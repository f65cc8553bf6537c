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
	"sluice/metrics/prom"
)

// BenchmarkTasks runs tasks that do real work through each pool, at
// parallelism GOMAXPROCS: one op is one task, and ns/op is wall time per
// task. Tasks are submitted in batches (200,000 spins of ~1 µs, 20,000 of
// ~20 µs, 2,000 sleeps of 200 µs): a batch is submitted as fast as the
// pool takes it, then waited for, and the last one is waited for inside
// the timing. Every pool runs the same function, made once, so allocs/op
// is the pool's own: no closure per task.
//
//   - sluice-go-cancel: WorkQueue.Go with a cancellable context
//     (context.WithCancel of Background), what a service passes.
//   - sluice-go: WorkQueue.Go with context.Background.
//   - sluice-submit: WorkQueue.Submit with the cancellable context, the
//     *Task dropped.
//   - sluice-processor: Processor.Submit with the cancellable context, the
//     *Future dropped.
//   - each of them again with -observed: WithObserver(func(core.Event){}).
//   - sluice-go-collector: sluice-go observed by a sluice/metrics/prom
//     Collector (scraped by nobody: the observer's cost alone).
//   - pond-go (pond's Go), conc (pool.Go), errgroup (Go with SetLimit),
//     ants (Submit): the peers' calls without a handle.
func BenchmarkTasks(b *testing.B) {
	n := runtime.GOMAXPROCS(0)
	for _, w := range workloads {
		b.Run(w.name, func(b *testing.B) {
			for _, form := range sluiceForms {
				b.Run("sluice-"+form.name, func(b *testing.B) {
					form.run(b, w.work(), w.batch, n)
				})
				b.Run("sluice-"+form.name+"-observed", func(b *testing.B) {
					form.run(b, w.work(), w.batch, n, core.WithObserver(func(core.Event) {}))
				})
				if form.name == "go" {
					b.Run("sluice-go-collector", func(b *testing.B) {
						form.run(b, w.work(), w.batch, n, prom.New("bench").Option())
					})
				}
			}
			b.Run("pond-go", func(b *testing.B) {
				var wg sync.WaitGroup
				task := doneAfter(w.work(), &wg)
				p := pond.NewPool(n)
				defer p.StopAndWait()
				runBatches(b, w.batch, &wg, func() error { return p.Go(task) })
			})
			b.Run("conc", func(b *testing.B) {
				var wg sync.WaitGroup
				task := doneAfter(w.work(), &wg)
				p := pool.New().WithMaxGoroutines(n)
				defer p.Wait()
				runBatches(b, w.batch, &wg, func() error { p.Go(task); return nil })
			})
			b.Run("errgroup", func(b *testing.B) {
				var wg sync.WaitGroup
				task := doneAfter(w.work(), &wg)
				taskErr := func() error { task(); return nil }
				var g errgroup.Group
				g.SetLimit(n)
				defer g.Wait()
				runBatches(b, w.batch, &wg, func() error { g.Go(taskErr); return nil })
			})
			b.Run("ants", func(b *testing.B) {
				var wg sync.WaitGroup
				task := doneAfter(w.work(), &wg)
				p, err := ants.NewPool(n)
				if err != nil {
					b.Fatal(err)
				}
				defer p.Release()
				runBatches(b, w.batch, &wg, func() error { return p.Submit(task) })
			})
		})
	}
}

// sluiceForm is one way of handing a task to core: it runs a benchmark of
// BenchmarkTasks on a queue of parallelism n made with opts.
type sluiceForm struct {
	name string
	run  func(b *testing.B, work func(), batch, n int, opts ...core.Option)
}

var sluiceForms = []sluiceForm{
	{"go-cancel", func(b *testing.B, work func(), batch, n int, opts ...core.Option) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		runQueue(b, work, batch, n, opts, func(q *core.WorkQueue, fn func(context.Context) error) error {
			return q.Go(ctx, fn)
		})
	}},
	{"go", func(b *testing.B, work func(), batch, n int, opts ...core.Option) {
		ctx := context.Background()
		runQueue(b, work, batch, n, opts, func(q *core.WorkQueue, fn func(context.Context) error) error {
			return q.Go(ctx, fn)
		})
	}},
	{"submit", func(b *testing.B, work func(), batch, n int, opts ...core.Option) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		runQueue(b, work, batch, n, opts, func(q *core.WorkQueue, fn func(context.Context) error) error {
			_, err := q.Submit(ctx, fn)
			return err
		})
	}},
	{"processor", func(b *testing.B, work func(), batch, n int, opts ...core.Option) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var wg sync.WaitGroup
		p := core.NewProcessor(n, func(context.Context, int) (int, error) {
			work()
			wg.Done()
			return 0, nil
		}, opts...)
		defer p.Close()
		runBatches(b, batch, &wg, func() error {
			_, err := p.Submit(ctx, 0)
			return err
		})
	}},
}

// runQueue runs a BenchmarkTasks benchmark on a WorkQueue, through submit.
func runQueue(b *testing.B, work func(), batch, n int, opts []core.Option, submit func(*core.WorkQueue, func(context.Context) error) error) {
	var wg sync.WaitGroup
	task := doneAfter(work, &wg)
	fn := func(context.Context) error { task(); return nil }
	q := core.NewWorkQueue(n, opts...)
	defer q.Close()
	runBatches(b, batch, &wg, func() error { return submit(q, fn) })
}

// doneAfter returns a task that does work, then marks itself done in wg.
func doneAfter(work func(), wg *sync.WaitGroup) func() {
	return func() {
		work()
		wg.Done()
	}
}

// runBatches calls submit b.N times, each call handing the pool one task
// that calls wg.Done when it ends, and waits for the tasks after every
// batch of them and at the end, inside the timing.
func runBatches(b *testing.B, batch int, wg *sync.WaitGroup, submit func() error) {
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		wg.Add(1)
		if err := submit(); err != nil {
			b.Fatal(err)
		}
		if (i+1)%batch == 0 {
			wg.Wait()
		}
	}
	wg.Wait()
	b.StopTimer()
}
