package ui_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"sluice/core"
	"sluice/wasm/ui"
)

// recorder collects a run's updates in the order report was called.
type recorder struct {
	mu      sync.Mutex
	updates []ui.Update
}

func (r *recorder) report(u ui.Update) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.updates = append(r.updates, u)
}

// replay applies the updates in order and returns the most tasks shown
// running at once, and each task's final state.
func replay(t *testing.T, updates []ui.Update, tasks int) (most int, final []ui.State) {
	t.Helper()
	final = make([]ui.State, tasks)
	for i := range final {
		final[i] = ui.Waiting
	}
	running := 0
	for _, u := range updates {
		from := final[u.Task]
		switch {
		case from == ui.Waiting && (u.State == ui.Running || u.State == ui.Canceled),
			from == ui.Running && (u.State == ui.Done || u.State == ui.Canceled):
		default:
			t.Fatalf("task %d went from %s to %s", u.Task, from, u.State)
		}
		if from == ui.Running {
			running--
		}
		if u.State == ui.Running {
			running++
		}
		final[u.Task] = u.State
		most = max(most, running)
	}
	return most, final
}

func TestRunTasks(t *testing.T) {
	for _, tc := range []struct {
		limit, tasks int
	}{
		{1, 3},
		{2, 6},
		{3, 7},
		{4, 2},
	} {
		t.Run(fmt.Sprintf("limit %d, %d tasks", tc.limit, tc.tasks), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const d = time.Second
				durations := make([]time.Duration, tc.tasks)
				for i := range durations {
					durations[i] = d
				}
				sem := core.NewSemaphore(int64(tc.limit))
				var rec recorder
				start := time.Now()
				ui.RunTasks(t.Context(), sem, durations, rec.report)

				// Tasks run in waves of limit, each wave one second long.
				waves := (tc.tasks + tc.limit - 1) / tc.limit
				if got, want := time.Since(start), time.Duration(waves)*d; got != want {
					t.Errorf("RunTasks took %v, want %v", got, want)
				}
				want := min(tc.limit, tc.tasks)
				most, final := replay(t, rec.updates, tc.tasks)
				if most != want {
					t.Errorf("most tasks running in the reports = %d, want %d", most, want)
				}
				if got := rec.updates[len(rec.updates)-1].MaxRunning; got != want {
					t.Errorf("MaxRunning = %d, want %d", got, want)
				}
				for i, s := range final {
					if s != ui.Done {
						t.Errorf("task %d ended %s, want %s", i, s, ui.Done)
					}
				}
				var starts []time.Duration
				for _, u := range rec.updates {
					if u.State == ui.Running {
						starts = append(starts, u.At)
					}
				}
				slices.Sort(starts)
				for i, at := range starts {
					if want := time.Duration(i/tc.limit) * d; at != want {
						t.Errorf("start %d at %v, want %v", i, at, want)
					}
				}
				if got := sem.Stats().InUse; got != 0 {
					t.Errorf("tokens in use after the run = %d, want 0", got)
				}
			})
		})
	}
}

func TestRunTasksCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		durations := []time.Duration{time.Second, time.Second, time.Second, time.Second, time.Second, time.Second}
		sem := core.NewSemaphore(2)
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(1500*time.Millisecond, cancel)
		var rec recorder
		start := time.Now()
		ui.RunTasks(ctx, sem, durations, rec.report)

		if got, want := time.Since(start), 1500*time.Millisecond; got != want {
			t.Errorf("RunTasks returned after %v, want %v (when cancelled)", got, want)
		}
		_, final := replay(t, rec.updates, len(durations))
		count := map[ui.State]int{}
		for _, s := range final {
			count[s]++
		}
		if count[ui.Done] != 2 || count[ui.Canceled] != 4 {
			t.Errorf("final states = %v, want 2 done and 4 canceled", count)
		}
		if got := sem.Stats().InUse; got != 0 {
			t.Errorf("tokens in use after the run = %d, want 0", got)
		}
	})
}
