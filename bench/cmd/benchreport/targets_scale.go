package main

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Causes of the scaling misses, as profiles (go test -cpuprofile and
// -mutexprofile on BenchmarkScale at 2 cores) show them.
const (
	missQueue     = "per task, a 180-byte Task (the task, its context and its handle) to allocate and collect (allocation and the GC's marking were ~15% of the profile's CPU), a clock read for Stats' pending age (~4%), and two acquisitions of the queue's one lock, where pond's `Go` puts a bare function in a buffered channel; on 2 cores the submitter and the workers also share the cores."
	missOwn       = "the queue adds nothing for a task's own context (one allocation, the Task, whatever the context: TestWorkQueueWaitAllocations), but the caller's context.WithCancel and its cancel, made and called once per task, take the shared parent context's lock to add and remove the child: in a 2-core CPU profile of sluice-go-owncancel they were 20% of the CPU (context.WithCancel 10%, its cancel 10%) against 9.5% for WorkQueue.Go, and the channel-owncancel row shows the same contexts slowing a channel pool."
	missObs       = "each task has four events, recorded under the queue's lock (a 64-byte record each, two per lock hold, stamped by a clock read made before the lock: see the clock row) and delivered outside it one batch at a time, so that the observer sees them in order and never from two goroutines at once. In alternated 2-core runs of sluice/metrics/prom's BenchmarkObserved, recording alone (delivery skipped) cost 1.20x of unobserved; CPU profiles put the rest in the record's append under the lock and in the atomic operations that pass the right to deliver between the cores, cache misses on lines the other core wrote last."
	missCollector = "the empty observer's cost (the row above: recording and delivering four events a task), plus the Collector's work, which runs one call at a time on whichever core delivers: a ring slot per event to follow the task from enqueue to end, and a histogram observation (two atomic adds) for each start and end, on cache lines that the other core wrote last."
	missKeyed     = "in a 2-core CPU profile at 10,000 keys and 2 submitters the events' own work was 39% of the CPU; each event is also a Task to allocate and collect (~7%), a lane map lookup (~3%), two acquisitions of its shard's lock, which the submitters and workers of the shard contend for (~15% in lock and unlock), the lane's pop and the pending queue's push (~8% flat, on tasks submitted long before), a clock read for its pending age (~2%) and the hand-off of slots between shards (~4%). The baseline hashes keys onto fixed goroutines, with no cancellation, eviction or fair turns."
	missSem       = "each hand-off wakes the next waiter through its own channel, as x/sync does, under the semaphore's one lock; waiters of one priority join and leave a FIFO in O(1), as x/sync's list (a higher priority goes through a heap, O(log waiters)). These rows passed at 2 cores once the FIFO replaced the heap for them; a miss at more cores has not been profiled."
)

// scaleProcs are the core counts BenchmarkScale runs at, when the machine
// has them.
var scaleProcs = []int{2, 4, 8, 16}

// scaleTargets are issue's scaling targets at GOMAXPROCS=p, on the
// benchmarks of BenchmarkScale (bench/scale_test.go).
func scaleTargets(p int) []target {
	pre := "Scale/procs=" + strconv.Itoa(p) + "/"
	var ts []target
	forms := []struct{ name, words string }{
		{"sluice-go", "`Go`, Background"},
		{"sluice-go-cancel", "`Go`, shared cancellable ctx"},
		{"sluice-submit", "`Submit`, shared cancellable ctx"},
		{"sluice-processor", "`Processor.Submit`"},
		{"sluice-go-owncancel", "`Go`, each task its own `context.WithCancel`"},
	}
	for _, subs := range []int{1, p} {
		for _, f := range forms {
			w := pre + "work=20us/subs=" + strconv.Itoa(subs) + "/"
			ts = append(ts, target{
				what:  fmt.Sprintf("WorkQueue ~20 µs tasks, %d submitter(s): %s, against a channel + %d workers", subs, f.words, p),
				bench: w + f.name, peers: []string{w + "channel"}, unit: "ns/op", max: 1.1, miss: missQueue,
			})
		}
		for _, f := range forms {
			w := pre + "work=1us/subs=" + strconv.Itoa(subs) + "/"
			ts = append(ts, target{
				what:  fmt.Sprintf("WorkQueue ~1 µs tasks, %d submitter(s): %s, against pond `Go`", subs, f.words),
				bench: w + f.name, peers: []string{w + "pond-go"}, unit: "ns/op", max: 1.0, miss: missQueue,
			})
		}
		w := pre + "work=1us/subs=" + strconv.Itoa(subs) + "/"
		ts = append(ts,
			target{
				what:  fmt.Sprintf("WorkQueue ~1 µs tasks, %d submitter(s): observed against unobserved `Go`", subs),
				bench: w + "sluice-go-observed", peers: []string{w + "sluice-go"}, unit: "ns/op", max: 1.3, miss: missObs,
			},
			target{
				what:  fmt.Sprintf("WorkQueue ~1 µs tasks, %d submitter(s): a task with its own `context.WithCancel` against a shared ctx (wall time)", subs),
				bench: w + "sluice-go-owncancel", peers: []string{w + "sluice-go-cancel"}, unit: "ns/op", max: 1.1, miss: missOwn,
			},
			target{
				what:  fmt.Sprintf("WorkQueue ~1 µs tasks, %d submitter(s): a task with its own `context.WithCancel` against a channel + %d workers whose tasks have the same contexts", subs, p),
				bench: w + "sluice-go-owncancel", peers: []string{w + "channel-owncancel"}, unit: "ns/op", info: true,
			},
			target{
				what:  fmt.Sprintf("WorkQueue ~1 µs tasks, %d submitter(s): allocations of a task with its own `context.WithCancel` (3 of them the caller's: the context, its cancel function, the task's closure)", subs),
				bench: w + "sluice-go-owncancel", unit: "allocs/op", max: 6, miss: missOwn,
			},
		)
		if p == 16 && subs == p {
			ts = append(ts, target{
				what:  "WorkQueue ~1 µs tasks, 16 submitters at 16 cores: `Go` at ≥ 2 million tasks/s (≤ 500 ns a task)",
				bench: w + "sluice-go", unit: "ns/op", max: 500, miss: missQueue,
			})
		}
	}
	keyedMax := 1.2
	if p >= 16 {
		keyedMax = 2
	}
	for _, keys := range []string{"10", "10000", "1000000"} {
		for _, subs := range []int{1, p} {
			k := pre + "keyed/keys=" + keys + "/subs=" + strconv.Itoa(subs) + "/"
			ts = append(ts, target{
				what:  fmt.Sprintf("KeyedQueue ~1 µs events over %s keys, %d submitter(s), against `hash(key) %% %d` channel workers", keys, subs, p),
				bench: k + "sluice", peers: []string{k + "hashN"}, unit: "ns/op", max: keyedMax, miss: missKeyed,
			}, target{
				what:  fmt.Sprintf("KeyedQueue ~1 µs events over %s keys, %d submitter(s), bounded as the baseline is (`WithTotalCapacity(%d)`, every submit finding it full), against `hash(key) %% %d` channel workers", keys, subs, 64*p, p),
				bench: k + "sluice-bounded", peers: []string{k + "hashN"}, unit: "ns/op", info: true,
			})
		}
	}
	for _, limit := range []string{"1", "4"} {
		for _, g := range []string{"2", "8", "64", "1024"} {
			s := pre + "semaphore/limit=" + limit + "/g=" + g + "/"
			ts = append(ts, target{
				what:  fmt.Sprintf("Semaphore limit %s, %s goroutines holding ~1 µs, against x/sync", limit, g),
				bench: s + "sluice", peers: []string{s + "xsync"}, unit: "ns/op", max: 1.0, miss: missSem,
			})
		}
	}
	return ts
}

// writeScale writes a table per core count of BenchmarkScale's targets,
// and says which core counts this run could not measure.
func writeScale(b *strings.Builder, r run, cores int) {
	measured := false
	for name := range r.metrics {
		if strings.HasPrefix(name, "Scale/") {
			measured = true
			break
		}
	}
	if !measured {
		return
	}
	fmt.Fprintf(b, "\n## Scaling\n\n")
	fmt.Fprintf(b, "`BenchmarkScale` at each core count (GOMAXPROCS) the machine has: parallelism is the\n")
	fmt.Fprintf(b, "core count, and tasks come from 1 submitter or one per core (see its doc comment).\n")
	fmt.Fprintf(b, "Taken on %s on %s (%d cores), Go %s; `make bench-scale` retakes this section alone.\n", time.Now().UTC().Format("2006-01-02 15:04 MST"),
		strings.TrimSpace(strings.TrimPrefix(strings.Join(r.header, ", "), "goos: ")), cores, runtime.Version())
	for _, p := range scaleProcs {
		fmt.Fprintf(b, "\n### %d cores\n\n", p)
		if p > cores {
			fmt.Fprintf(b, "Not measured here: this machine has %d cores.\n", cores)
			continue
		}
		ts := scaleTargets(p)
		writeTable(b, r, ts)
		// One line per distinct cause, naming how many rows it explains.
		var causes []string
		count := map[string]int{}
		for _, t := range ts {
			if t.eval(r).status == "miss" {
				if count[t.miss] == 0 {
					causes = append(causes, t.miss)
				}
				count[t.miss]++
			}
		}
		if len(causes) > 0 {
			fmt.Fprintf(b, "\nWhy the misses at %d cores:\n\n", p)
			for _, c := range causes {
				fmt.Fprintf(b, "- %d row(s): %s\n", count[c], c)
			}
		}
	}
}
