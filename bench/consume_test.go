package bench_test

import (
	"context"
	"sync"
	"testing"

	"golang.org/x/sync/errgroup"

	"sluice/core"
)

// consumeHandle is the handler of the Consume benchmarks: it does nothing,
// so that the benchmarks measure the consumer itself.
var consumeHandle = func(context.Context, int) error { return nil }

// handwrittenConsume is the consumer loop Go programs often write by hand:
// a buffered channel as a semaphore and a goroutine per message.
func handwrittenConsume(ctx context.Context, msgs <-chan int, handle func(context.Context, int) error, n int) error {
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case m, ok := <-msgs:
			if !ok {
				return nil
			}
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return ctx.Err()
			}
			wg.Add(1)
			go func() {
				defer func() {
					<-sem
					wg.Done()
				}()
				handle(ctx, m)
			}()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// BenchmarkConsume measures handling messages from a channel with at most 8
// handlers at once; one op is one message, sent by the benchmark goroutine
// into a channel of 64 that the consumer drains.
//
//   - sluice: core.Consume with WithConcurrency(8).
//   - handwritten: handwrittenConsume, a semaphore channel and a goroutine
//     per message.
//   - errgroup: errgroup.Group with SetLimit(8), a goroutine per message.
func BenchmarkConsume(b *testing.B) {
	const n = 8
	ctx := context.Background()
	run := func(b *testing.B, consume func(msgs <-chan int) error) {
		b.ReportAllocs()
		msgs := make(chan int, 64)
		errc := make(chan error, 1)
		go func() { errc <- consume(msgs) }()
		i := 0
		for b.Loop() {
			msgs <- i
			i++
		}
		close(msgs)
		if err := <-errc; err != nil {
			b.Fatal(err)
		}
	}
	b.Run("Concurrency8", func(b *testing.B) {
		b.Run("sluice", func(b *testing.B) {
			run(b, func(msgs <-chan int) error {
				return core.Consume(ctx, msgs, consumeHandle, core.WithConcurrency(n))
			})
		})
		b.Run("handwritten", func(b *testing.B) {
			run(b, func(msgs <-chan int) error {
				return handwrittenConsume(ctx, msgs, consumeHandle, n)
			})
		})
		b.Run("errgroup", func(b *testing.B) {
			run(b, func(msgs <-chan int) error {
				var g errgroup.Group
				g.SetLimit(n)
				for m := range msgs {
					g.Go(func() error { return consumeHandle(ctx, m) })
				}
				return g.Wait()
			})
		})
	})
}
