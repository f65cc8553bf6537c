package main

var semaphoreTargets = []target{
	{
		what:  "Semaphore uncontended Acquire(1)+Release(1): ≤ 0.6x x/sync",
		bench: "Semaphore/Uncontended/sluice", peers: []string{"Semaphore/Uncontended/xsync"},
		unit: "ns/op", max: 0.6,
		miss: "the lock-free path is one load and one compare-and-swap per call, two atomic " +
			"read-modify-writes per Acquire+Release; x/sync's uncontended mutex path costs four, " +
			"so the floor sits near 0.6x on this machine. The cost left is the ctx.Done() call " +
			"(kept: a cancelled context must fail even when tokens are free) and two calls that " +
			"are too large to inline.",
	},
	{
		what:  "Semaphore uncontended: no allocation",
		bench: "Semaphore/Uncontended/sluice",
		unit:  "allocs/op", max: 0,
	},
	{
		what:  "Semaphore contended (limit 1, 8 goroutines): ≤ x/sync ns/op",
		bench: "Semaphore/Contended/sluice", peers: []string{"Semaphore/Contended/xsync"},
		unit: "ns/op", max: 1,
	},
	{
		what:  "Semaphore contended: ≤ x/sync allocs/op",
		bench: "Semaphore/Contended/sluice", peers: []string{"Semaphore/Contended/xsync"},
		unit: "allocs/op", max: 1,
	},
	{
		what:  "Semaphore AcquirePriority, three levels contended: within 1.2x of Acquire",
		bench: "Semaphore/ContendedPriority/sluice", peers: []string{"Semaphore/Contended/sluice"},
		unit: "ns/op", max: 1.2,
	},
}
