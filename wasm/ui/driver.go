package ui

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"sluice/core"
)

// State is where a task of a run stands. Every task starts Waiting.
type State string

// The states of a task. A task goes from Waiting to Running to Done, or to
// Canceled from either of the first two when the run is cancelled.
const (
	Waiting  State = "waiting"
	Running  State = "running"
	Done     State = "done"
	Canceled State = "canceled"
)

// Update reports one change of state of one task of a run.
type Update struct {
	Task  int           // index of the task in the durations given to RunTasks
	State State         // the task's new state: Running, Done or Canceled
	At    time.Duration // when it changed, since RunTasks was called

	// MaxRunning is the most tasks that held a token at once so far in the
	// run, counted by the tasks themselves between acquiring and releasing
	// their token: it can never exceed the semaphore's limit unless the
	// semaphore lets too many through.
	MaxRunning int
}

// RunTasks starts one goroutine per duration. Each acquires one token of sem,
// holds it for its duration, and releases it. report is called for every
// change of state, from the tasks' goroutines, possibly concurrently; it must
// be safe for concurrent use and should not block for long, since the task
// waits for it.
//
// RunTasks blocks until every task has returned. When ctx ends, waiting
// tasks give up their place in the queue and running tasks stop early and
// release their token; both are reported Canceled. The semaphore is left as
// it was found.
//
// Ordering: a task reports Running after its Acquire returned and reports
// Done (or Canceled) before it calls Release. A receiver that applies the
// reports in the order the calls were made (such as a channel or a UI
// dispatch queue) therefore never sees more tasks Running at once than the
// semaphore allowed.
func RunTasks(ctx context.Context, sem *core.Semaphore, durations []time.Duration, report func(Update)) {
	start := time.Now()
	var holding, most atomic.Int64
	var wg sync.WaitGroup
	for i, d := range durations {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := sem.Acquire(ctx, 1); err != nil {
				report(Update{Task: i, State: Canceled, At: time.Since(start), MaxRunning: int(most.Load())})
				return
			}
			n := holding.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			report(Update{Task: i, State: Running, At: time.Since(start), MaxRunning: int(most.Load())})

			state := Done
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				state = Canceled
			}
			holding.Add(-1)
			report(Update{Task: i, State: state, At: time.Since(start), MaxRunning: int(most.Load())})
			sem.Release(1)
		}()
	}
	wg.Wait()
}
