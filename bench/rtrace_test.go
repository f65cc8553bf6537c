package bench_test

import (
	"context"
	"io"
	"runtime"
	"runtime/trace"
	"testing"

	"sluice/core"
)

// BenchmarkRuntimeTrace measures core's runtime/trace annotations: what a
// task costs with tracing off (the hooks' checks alone: compare with the
// same benchmark on a core without them), with trace.Start writing to
// io.Discard, and with a trace.FlightRecorder running. One op is one task,
// from submit to end, on one goroutine:
//
//   - workqueue-do: WorkQueue.Do of an empty function on a free slot (it
//     runs inline): the engine's enqueue, start and end hooks.
//   - workqueue-go-1us: WorkQueue.Go of a ~1 µs spin at parallelism
//     GOMAXPROCS, in batches, as BenchmarkTasks runs it.
//   - keyedqueue-do: KeyedQueue.Do of an empty function on one key.
//   - semaphore-do: Semaphore.Do of an empty function, uncontended.
//   - consume: a Consume call on a closed channel holding one message,
//     handled by an empty handler.
func BenchmarkRuntimeTrace(b *testing.B) {
	ctx := context.Background()
	nop := func(context.Context) error { return nil }
	forms := []struct {
		name string
		run  func(b *testing.B)
	}{
		{"workqueue-do", func(b *testing.B) {
			q := core.NewWorkQueue(1)
			defer q.Close()
			b.ReportAllocs()
			for b.Loop() {
				if err := q.Do(ctx, nop); err != nil {
					b.Fatal(err)
				}
			}
		}},
		{"workqueue-go-1us", func(b *testing.B) {
			form := sluiceForms[1] // go, with context.Background
			form.run(b, spinFor(spinShort), 200_000, runtime.GOMAXPROCS(0))
		}},
		{"keyedqueue-do", func(b *testing.B) {
			k := core.NewKeyedQueue[int]()
			defer k.Close()
			b.ReportAllocs()
			for b.Loop() {
				if err := k.Do(ctx, 1, nop); err != nil {
					b.Fatal(err)
				}
			}
		}},
		{"semaphore-do", func(b *testing.B) {
			s := core.NewSemaphore(1)
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Do(ctx, 1, nop); err != nil {
					b.Fatal(err)
				}
			}
		}},
		{"consume", func(b *testing.B) {
			handle := func(context.Context, int) error { return nil }
			b.ReportAllocs()
			for b.Loop() {
				msgs := make(chan int, 1)
				msgs <- 1
				close(msgs)
				if err := core.Consume(ctx, msgs, handle); err != nil {
					b.Fatal(err)
				}
			}
		}},
	}
	for _, f := range forms {
		b.Run(f.name, func(b *testing.B) {
			b.Run("off", f.run)
			b.Run("trace", func(b *testing.B) {
				if err := trace.Start(io.Discard); err != nil {
					b.Fatal(err)
				}
				defer trace.Stop()
				f.run(b)
			})
			b.Run("flightrecorder", func(b *testing.B) {
				fr := trace.NewFlightRecorder(trace.FlightRecorderConfig{MaxBytes: 16 << 20})
				if err := fr.Start(); err != nil {
					b.Fatal(err)
				}
				defer fr.Stop()
				f.run(b)
			})
		})
	}
}
