package prom_test

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"sluice/core"
	"sluice/metrics/prom"
)

// TestHistogramBuckets feeds a Collector's observer known waits and runs:
// each lands in the first bucket whose bound is not below it (a bound
// holds what equals it), the count is the number observed, the sum their
// total, per priority.
func TestHistogramBuckets(t *testing.T) {
	c := prom.NewWithBuckets("h", []float64{0.001, 0.01})
	obs := c.Observer(nil)
	t0 := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	at := func(ms float64) time.Time { return t0.Add(time.Duration(ms * float64(time.Millisecond))) }
	for i, c := range []struct {
		wait, run float64 // ms
		prio      core.Priority
	}{
		{0.5, 1, 0},  // wait le 0.001; run le 0.001 (equal to the bound)
		{5, 20, 0},   // wait le 0.01; run +Inf
		{10, 0.2, 1}, // priority 1: wait le 0.01 (equal); run le 0.001
	} {
		id := uint64(i + 1)
		obs(core.Event{Kind: core.Enqueued, Task: id, Time: at(0), Priority: c.prio})
		obs(core.Event{Kind: core.Started, Task: id, Time: at(c.wait), Priority: c.prio})
		obs(core.Event{Kind: core.Finished, Task: id, Time: at(c.wait + c.run), Priority: c.prio})
	}
	want := `
# HELP sluice_task_run_seconds Time from a task's start to its end, by priority.
# TYPE sluice_task_run_seconds histogram
sluice_task_run_seconds_bucket{priority="0",queue="h",le="0.001"} 1
sluice_task_run_seconds_bucket{priority="0",queue="h",le="0.01"} 1
sluice_task_run_seconds_bucket{priority="0",queue="h",le="+Inf"} 2
sluice_task_run_seconds_sum{priority="0",queue="h"} 0.021
sluice_task_run_seconds_count{priority="0",queue="h"} 2
sluice_task_run_seconds_bucket{priority="1",queue="h",le="0.001"} 1
sluice_task_run_seconds_bucket{priority="1",queue="h",le="0.01"} 1
sluice_task_run_seconds_bucket{priority="1",queue="h",le="+Inf"} 1
sluice_task_run_seconds_sum{priority="1",queue="h"} 0.0002
sluice_task_run_seconds_count{priority="1",queue="h"} 1
# HELP sluice_task_wait_seconds Time from a task's enqueue to its start, by priority.
# TYPE sluice_task_wait_seconds histogram
sluice_task_wait_seconds_bucket{priority="0",queue="h",le="0.001"} 1
sluice_task_wait_seconds_bucket{priority="0",queue="h",le="0.01"} 2
sluice_task_wait_seconds_bucket{priority="0",queue="h",le="+Inf"} 2
sluice_task_wait_seconds_sum{priority="0",queue="h"} 0.0055
sluice_task_wait_seconds_count{priority="0",queue="h"} 2
sluice_task_wait_seconds_bucket{priority="1",queue="h",le="0.001"} 0
sluice_task_wait_seconds_bucket{priority="1",queue="h",le="0.01"} 1
sluice_task_wait_seconds_bucket{priority="1",queue="h",le="+Inf"} 1
sluice_task_wait_seconds_sum{priority="1",queue="h"} 0.01
sluice_task_wait_seconds_count{priority="1",queue="h"} 1
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want), "sluice_task_wait_seconds", "sluice_task_run_seconds"); err != nil {
		t.Error(err)
	}
}
