package main

// emptyKeyedTargets are KeyedQueue's and Consume's targets on empty tasks,
// kept as a footnote to the targets on real work.
var emptyKeyedTargets = []target{
	{
		what:  "KeyedQueue throughput (10,000 keys) within 1.5x of WorkQueue's",
		bench: "KeyedQueue/Throughput/sluice",
		peers: []string{"WorkQueue/Throughput/sluice"},
		unit:  "ns/op",
		max:   1.5,
		miss:  "a keyed task also goes through its lane (a map lookup, and the lane's FIFO when the key is busy), which an empty task shows bare.",
	},
	{
		what:  "KeyedQueue retains at most 1% of the heap once every key is evicted",
		bench: "KeyedQueue/RetainedHeap/sluice",
		unit:  "retained-%",
		max:   1,
		miss:  "each shard lets go of its lane map, pending ring, idle timer, context watches and buffers once its last lane is evicted (TestKeyedQueueEvictedShardsHoldNothing): what this row counts beyond that is a regression of it.",
	},
	{
		what:  "Consume at concurrency 8 no slower than a hand-written semaphore loop",
		bench: "Consume/Concurrency8/sluice",
		peers: []string{"Consume/Concurrency8/handwritten"},
		unit:  "ns/op",
		max:   1.0,
	},
}
