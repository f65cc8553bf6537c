package main

import (
	"fmt"
	"strconv"
)

// The forms of handing core a task, as the bench module names them, with
// the words the report uses for them.
var sluiceForms = []struct{ name, words string }{
	{"sluice-go-cancel", "`Go`, cancellable ctx"},
	{"sluice-go", "`Go`, Background"},
	{"sluice-submit", "`Submit`, cancellable ctx"},
	{"sluice-processor", "`Processor.Submit`, cancellable ctx"},
}

// workloadWords are BenchmarkTasks' workloads in words.
var workloadWords = []struct{ name, words string }{
	{"Spin1us", "200,000 × ~1 µs"},
	{"Spin20us", "20,000 × ~20 µs"},
	{"Sleep200us", "2,000 × 200 µs sleep"},
}

// taskTargets: BenchmarkTasks, one op one task, at parallelism GOMAXPROCS.
// The bounds are set on the ~1 µs spins; the ~20 µs spins and the sleeps
// are reported against the same peer for information.
func taskTargets() []target {
	var ts []target
	for _, w := range workloadWords {
		info := w.name != "Spin1us"
		for _, f := range sluiceForms {
			ts = append(ts, target{
				what:  fmt.Sprintf("%s tasks: %s, wall time per task", w.words, f.words),
				bench: "Tasks/" + w.name + "/" + f.name, peers: []string{"Tasks/" + w.name + "/pond-go"},
				unit: "ns/op", max: 1.0, info: info,
				miss: "a task is one 176-byte allocation (the task, its context and its handle) and two acquisitions of the queue's lock, for priorities, per-task cancellation and exact Stats; pond's `Go` puts a bare function in a buffer and cannot cancel it.",
			})
		}
	}
	for _, f := range sluiceForms {
		ts = append(ts, target{
			what:  fmt.Sprintf("200,000 × ~1 µs tasks: %s, allocations per task (the task function is shared)", f.words),
			bench: "Tasks/Spin1us/" + f.name,
			unit:  "allocs/op", max: 2, info: f.name == "sluice-processor",
		})
	}
	for _, f := range sluiceForms {
		ts = append(ts, target{
			what:  fmt.Sprintf("200,000 × ~1 µs tasks: %s with `WithObserver(func(Event){})`, against unobserved", f.words),
			bench: "Tasks/Spin1us/" + f.name + "-observed", peers: []string{"Tasks/Spin1us/" + f.name},
			unit: "ns/op", max: 1.3,
			miss: missObs,
		})
	}
	ts = append(ts, target{
		what:  "200,000 × ~1 µs tasks: `Go`, Background, observed by a `sluice/metrics/prom` Collector, against unobserved",
		bench: "Tasks/Spin1us/sluice-go-collector", peers: []string{"Tasks/Spin1us/sluice-go"},
		unit: "ns/op", max: 1.3, miss: missCollector,
	})
	return ts
}

// latencyTargets: BenchmarkLatency, an open-loop producer at 90% of the
// capacity of two slots, ~20 µs tasks.
func latencyTargets() []target {
	forms := append(sluiceForms[:len(sluiceForms):len(sluiceForms)],
		struct{ name, words string }{"sluice-do", "`Do`, cancellable ctx, from a goroutine per request"})
	var ts []target
	for _, f := range forms {
		ts = append(ts, target{
			what:  fmt.Sprintf("Open loop at 90%%, ~20 µs tasks, parallelism 2: %s, queue wait p99", f.words),
			bench: "Latency/" + f.name, peers: []string{"Latency/channel"},
			unit: "p99-wait-ns", max: 1.5,
			miss: "on two cores, with both workers spinning, the producer runs only when the scheduler preempts one, so the p99 wait is mostly the Go scheduler's (10 ms preemption): the channel baseline's own p99 moves as much between runs.",
		})
	}
	for _, f := range forms {
		ts = append(ts, target{
			what:  fmt.Sprintf("Open loop at 90%%: %s, producer lag p99", f.words),
			bench: "Latency/" + f.name, peers: []string{"Latency/channel"},
			unit: "p99-lag-ns", info: true,
		})
	}
	return ts
}

// pendingTargets: BenchmarkPending, tasks behind two blocked workers.
var pendingTargets = []target{
	{
		what:  "1,000,000 pending tasks: `Submit`, cancellable ctx, heap per pending task",
		bench: "Pending/sluice-submit-cancel",
		unit:  "B/pending", max: 200,
	},
	{
		what:  "1,000,000 pending tasks: `Go`, cancellable ctx, heap per pending task",
		bench: "Pending/sluice-go-cancel", peers: []string{"Pending/pond-go"},
		unit: "B/pending", info: true,
	},
}

// evictedHeap is the bound on the live heap's growth once every lane of a
// KeyedQueue is evicted, "back to baseline": what the runtime may keep
// for itself (goroutine descriptors, wait records) and the queue's fixed
// parts, nothing that grows with the keys or the events.
const evictedHeap = 64 << 10

// keyedEventTargets: BenchmarkKeyedEvents, 1,000,000 events of ~1 µs,
// parallelism 2.
func keyedEventTargets() []target {
	var ts []target
	for _, keys := range []int{10, 10_000, 1_000_000} {
		k := "keys=" + strconv.Itoa(keys)
		ts = append(ts, target{
			what:  fmt.Sprintf("KeyedQueue, 1,000,000 × ~1 µs events over %s keys, parallelism 2: time per event", commas(keys)),
			bench: "KeyedEvents/" + k + "/sluice", peers: []string{"KeyedEvents/" + k + "/hash2"},
			unit: "ns/event", max: 1.2,
			miss: "each event is a task (an allocation and two lock acquisitions) and each key with work a lane (one allocation with its key, and a map entry), which buy per-key order with parallelism across keys, fair turns, cancellation and eviction; the baseline hashes keys onto two fixed goroutines.",
		})
	}
	for _, keys := range []int{10, 10_000, 1_000_000} {
		k := "keys=" + strconv.Itoa(keys)
		ts = append(ts, target{
			what:  fmt.Sprintf("KeyedQueue over %s keys: live heap grown once every lane is evicted (64 KiB: back to baseline)", commas(keys)),
			bench: "KeyedEvents/" + k + "/sluice-evict",
			unit:  "B-after-evict", max: evictedHeap,
		})
	}
	return ts
}

// semaphoreHoldTargets: Semaphore uncontended, and contended with each
// holder spinning ~1 µs (BenchmarkSemaphoreHold).
func semaphoreHoldTargets() []target {
	ts := []target{
		{
			what:  "Semaphore uncontended Acquire(1)+Release(1)",
			bench: "Semaphore/Uncontended/sluice", peers: []string{"Semaphore/Uncontended/xsync"},
			unit: "ns/op", max: 1.0,
		},
		{
			what:  "Semaphore uncontended: allocations",
			bench: "Semaphore/Uncontended/sluice",
			unit:  "allocs/op", max: 0,
		},
		{
			what:  "Semaphore uncontended, `WithObserver(func(Event){})`, against unobserved",
			bench: "Semaphore/Uncontended/sluice-observed", peers: []string{"Semaphore/Uncontended/sluice"},
			unit: "ns/op", max: 2.0,
			miss: "an observed Acquire and Release report their events, each with a clock read (see the clock row) and an observer call (the paths are otherwise the same lock-free ones): their cost, not the semaphore's, is the difference to the unobserved pair.",
		},
	}
	for _, limit := range []int{1, 4} {
		for _, g := range []int{2, 8, 64, 1024} {
			b := fmt.Sprintf("SemaphoreHold/limit=%d/goroutines=%d/", limit, g)
			ts = append(ts, target{
				what:  fmt.Sprintf("Semaphore contended, limit %d, %s goroutines holding ~1 µs", limit, commas(g)),
				bench: b + "sluice", peers: []string{b + "xsync"},
				unit: "ns/op", max: 1.0,
				miss: "each hand-off wakes the next waiter through its own channel, as x/sync does, and waiters of one priority join and leave a FIFO in O(1), as x/sync's list; the figures move by more than the difference between runs on this 2-core machine.",
			})
		}
	}
	for _, limit := range []int{1, 4} {
		for _, g := range []int{2, 8, 64, 1024} {
			b := fmt.Sprintf("SemaphoreHold/limit=%d/goroutines=%d/", limit, g)
			ts = append(ts, target{
				what:  fmt.Sprintf("Semaphore contended, limit %d, %s goroutines, observed against unobserved", limit, commas(g)),
				bench: b + "sluice-observed", peers: []string{b + "sluice"},
				unit: "ns/op", max: 1.3,
				miss: "three events per hold, each with a clock read (see the clock row) and an observer call, and the calls made one at a time (a Semaphore's observer is never called from two goroutines at once), so that with many goroutines holders queue for it; the paths are otherwise the unobserved ones.",
			})
		}
	}
	return ts
}

// commas writes n with a comma between groups of three digits.
func commas(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
