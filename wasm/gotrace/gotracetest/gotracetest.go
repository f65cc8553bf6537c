// Package gotracetest writes Go execution traces of sluice work for tests
// and the perf probe: a trace of about as many events as asked, made by
// running real core primitives while runtime/trace is on.
package gotracetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	rtrace "runtime/trace"
	"sync"

	"sluice/core"
)

// EventsPerTask is about how many trace events one task of Write's work
// makes (its task, logs, region and the scheduling around it).
const EventsPerTask = 9

// Write runs about events/EventsPerTask tasks on a WorkQueue of 8 slots, a
// KeyedQueue of 32 keys and a Semaphore of 4 tokens while tracing, and
// returns the trace. One task in 50 fails. It takes about a second for a
// million events. Tracing must be off when it is called.
func Write(events int) ([]byte, error) {
	var buf bytes.Buffer
	if err := rtrace.Start(&buf); err != nil {
		return nil, err
	}
	ctx := context.Background()
	tasks := max(events/EventsPerTask, 1)
	q := core.NewWorkQueue(8)
	k := core.NewKeyedQueue[string](core.WithParallelism(8))
	s := core.NewSemaphore(4)
	fail := errors.New("failed")
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := w; i < tasks; i += 4 {
				fn := func(context.Context) error {
					if i%50 == 0 {
						return fail
					}
					return nil
				}
				switch i % 3 {
				case 0:
					q.Go(ctx, fn, core.WithPriority(core.Priority(i%3-1)))
				case 1:
					k.Submit(ctx, fmt.Sprint("customer-", i%32), fn)
				default:
					s.Do(ctx, 1, fn)
				}
			}
		})
	}
	wg.Wait()
	q.Drain(ctx)
	k.Drain(ctx)
	rtrace.Stop()
	return buf.Bytes(), nil
}
