package main

// queueTargets are WorkQueue's and Processor's targets. Every pool runs at
// parallelism GOMAXPROCS, and one op is one task.
var queueTargets = []target{
	{
		what:  "WorkQueue throughput, submit N empty tasks then wait for all: ≤ 0.8x the best peer",
		bench: "WorkQueue/Throughput/sluice",
		peers: []string{"WorkQueue/Throughput/conc", "WorkQueue/Throughput/errgroup", "WorkQueue/Throughput/pond", "WorkQueue/Throughput/pond-go", "WorkQueue/Throughput/ants"},
		unit:  "ns/op", max: 0.8,
		miss: "the best peer is pond's Go, which queues a bare func and returns nothing; " +
			"Submit returns a *Task per call (one 160-byte allocation holding the handle and " +
			"the task's context), which alone costs close to pond's whole per-task time once " +
			"the garbage collector is counted. Against the peers that return a handle (pond's " +
			"Submit) the ratio is in the next row. Closing the gap needs a handle-less " +
			"submission path, which the API does not have yet.",
	},
	{
		what:  "WorkQueue throughput (for reference: against peers that return a per-task handle, as Submit does): ≤ 0.8x",
		bench: "WorkQueue/Throughput/sluice",
		peers: []string{"WorkQueue/Throughput/pond"},
		unit:  "ns/op", max: 0.8,
	},
	{
		what:  "WorkQueue throughput: at most one allocation per task",
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
