package main

// emptyQueueTargets are WorkQueue's and Processor's targets on empty tasks,
// kept as a footnote to the targets on real work. Every pool runs at
// parallelism GOMAXPROCS, and one op is one task.
var emptyQueueTargets = []target{
	{
		what:  "WorkQueue throughput, submit N empty tasks then wait for all: ≤ 0.8x the best peer",
		bench: "WorkQueue/Throughput/sluice-go",
		peers: []string{"WorkQueue/Throughput/conc", "WorkQueue/Throughput/errgroup", "WorkQueue/Throughput/pond", "WorkQueue/Throughput/pond-go", "WorkQueue/Throughput/ants"},
		unit:  "ns/op", max: 0.8,
		miss: "the special path for empty tasks with context.Background() (runs of bare tasks taken without the lock) is gone: every task now takes the one path a real task takes, an allocation and two lock acquisitions, which empty tasks show bare.",
	},
	{
		what:  "WorkQueue throughput: at most one allocation per task",
		bench: "WorkQueue/Throughput/sluice-go",
		unit:  "allocs/op", max: 1,
	},
	{
		what:  "WorkQueue throughput through Submit, which returns a *Task: ≤ 0.8x the peer that returns a handle (pond's Submit)",
		bench: "WorkQueue/Throughput/sluice",
		peers: []string{"WorkQueue/Throughput/pond"},
		unit:  "ns/op", max: 0.8,
	},
	{
		what:  "WorkQueue throughput through Submit: at most one allocation per task",
		bench: "WorkQueue/Throughput/sluice",
		unit:  "allocs/op", max: 1,
	},
	{
		what:  "WorkQueue round trip, submit one task and wait for it: ≤ 0.5x pond",
		bench: "WorkQueue/RoundTrip/sluice", peers: []string{"WorkQueue/RoundTrip/pond"},
		unit: "ns/op", max: 0.5,
	},
	{
		what:  "Processor.Process: within 1.2x of WorkQueue.Do",
		bench: "Processor/Process/sluice", peers: []string{"WorkQueue/Do/sluice"},
		unit: "ns/op", max: 1.2,
	},
}
