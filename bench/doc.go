// Package bench measures sluice/core against peer libraries in one run:
// golang.org/x/sync (semaphore, errgroup), sourcegraph/conc, alitto/pond/v2,
// panjf2000/ants/v2 and hand-written baselines (a channel semaphore, a
// channel with two workers, two workers fed by hash(key) % 2). It is a
// separate module so that core's own module needs none of them.
//
// The workloads do real work in every task: a spin of ~1 µs or ~20 µs,
// calibrated once per process (rounds of a cheap hash, timed at start-up),
// or a 200 µs sleep, an I/O-like wait (BenchmarkWork shows what each took
// in the run).
//
//   - BenchmarkTasks: 200,000 × ~1 µs, 20,000 × ~20 µs and 2,000 × 200 µs
//     sleeps in batches at parallelism GOMAXPROCS, through core's Go (with a
//     cancellable context and with Background), Submit and Processor.Submit,
//     each also observed, and the peers; one op is one task.
//   - BenchmarkLatency: an open-loop producer at 90% of the capacity of two
//     slots, ~20 µs tasks, every submit form against a channel and two
//     workers; queue wait p50/p99 and producer lag p99 as metrics.
//   - BenchmarkPending: the heap per task pending behind two blocked
//     workers (B/pending).
//   - BenchmarkKeyedEvents: a KeyedQueue at parallelism 2 against
//     hash(key) % 2 workers over 10, 10,000 and 1,000,000 keys (ns/event),
//     and the heap left once every lane is evicted (B-after-evict).
//   - BenchmarkSemaphore, BenchmarkSemaphoreHold: uncontended, and
//     contended at limit 1 and 4 by 2 to 1,024 goroutines that hold the
//     token for ~1 µs, against x/sync, observed and not.
//
// The earlier benchmarks on empty tasks (BenchmarkWorkQueue,
// BenchmarkProcessor, BenchmarkKeyedQueue, BenchmarkConsume, and
// BenchmarkSemaphore's Contended) stay, as a footnote of the report.
//
// Run it with "make bench" from the repository root, which writes
// BENCHMARKS.md through cmd/benchreport: a table of every target with
// core's figure, the peer's, their ratio, the bound and pass or miss.
//
// "make test" runs every benchmark once (-benchtime 1x) to check that it
// works. Such a quick run (-benchtime 1x, or -short) is detected by the
// benchmarks, and the workloads of a fixed size, the 1,000,000 pending
// tasks and the 1,000,000 keyed events, then run a tenth of their size;
// the workloads whose op is one task run b.N = 1 task, and the open-loop
// runs one 0.3 s run per form. The whole module then takes about ten
// seconds on two cores. Its figures mean nothing.
package bench
