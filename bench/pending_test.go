package bench_test

import (
	"context"
	"testing"

	"github.com/alitto/pond/v2"

	"sluice/core"
)

// BenchmarkPending measures the heap a pending task takes: both workers of
// a pool of parallelism 2 are blocked on a channel, 1,000,000 tasks (a
// tenth in a quick run) are submitted behind them, and B/pending is the
// growth of the live heap after a full collection, per pending task. The
// task function is one made once, and the handles are dropped, so the
// figure is what the pool keeps. One op is one such run, after which the
// workers are released and the pool closed (core) or drained (pond).
//
//   - sluice-submit-cancel: WorkQueue.Submit with a cancellable context,
//     shared by every task.
//   - sluice-go-cancel: WorkQueue.Go with the same context.
//   - pond-go: pond's Go, for reference.
func BenchmarkPending(b *testing.B) {
	pending := scaled(1_000_000)
	b.Run("sluice-submit-cancel", func(b *testing.B) {
		pendingRuns(b, pending, func(ctx context.Context, q *core.WorkQueue) error {
			_, err := q.Submit(ctx, emptyCtx)
			return err
		})
	})
	b.Run("sluice-go-cancel", func(b *testing.B) {
		pendingRuns(b, pending, func(ctx context.Context, q *core.WorkQueue) error {
			return q.Go(ctx, emptyCtx)
		})
	})
	b.Run("pond-go", func(b *testing.B) {
		var perTask float64
		for range b.N {
			p := pond.NewPool(2)
			release, blocked := make(chan struct{}), make(chan struct{})
			for range 2 {
				if err := p.Go(func() { blocked <- struct{}{}; <-release }); err != nil {
					b.Fatal(err)
				}
			}
			<-blocked
			<-blocked
			base := liveHeap()
			for range pending {
				if err := p.Go(emptyFunc); err != nil {
					b.Fatal(err)
				}
			}
			perTask = float64(liveHeap()-base) / float64(pending)
			close(release)
			p.StopAndWait()
		}
		b.ReportMetric(perTask, "B/pending")
	})
}

// pendingRuns runs BenchmarkPending on a WorkQueue, handing it each
// pending task through submit with a cancellable context, and reports the
// last run's B/pending.
func pendingRuns(b *testing.B, pending int, submit func(context.Context, *core.WorkQueue) error) {
	var perTask float64
	for range b.N {
		ctx, cancel := context.WithCancel(context.Background())
		q := core.NewWorkQueue(2)
		release, blocked := make(chan struct{}), make(chan struct{})
		for range 2 {
			if err := q.Go(ctx, func(context.Context) error {
				blocked <- struct{}{}
				<-release
				return nil
			}); err != nil {
				b.Fatal(err)
			}
		}
		<-blocked
		<-blocked
		base := liveHeap()
		for range pending {
			if err := submit(ctx, q); err != nil {
				b.Fatal(err)
			}
		}
		if st := q.Stats(); st.Pending != pending {
			b.Fatalf("Stats().Pending = %d, want %d", st.Pending, pending)
		}
		perTask = float64(liveHeap()-base) / float64(pending)
		close(release)
		if err := q.Close(); err != nil {
			b.Fatal(err)
		}
		cancel()
	}
	b.ReportMetric(perTask, "B/pending")
}
