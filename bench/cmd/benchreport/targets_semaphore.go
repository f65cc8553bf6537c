package main

// emptySemaphoreTargets are Semaphore's targets on empty critical sections,
// kept as a footnote to the targets on real work. The uncontended
// allocation bound is among those (semaphoreHoldTargets).
var emptySemaphoreTargets = []target{
	{
		what:  "Semaphore uncontended Acquire(1)+Release(1): ≤ 0.6x x/sync",
		bench: "Semaphore/Uncontended/sluice", peers: []string{"Semaphore/Uncontended/xsync"},
		unit: "ns/op", max: 0.6,
		miss: "the lock-free paths are two loads and one compare-and-swap per Acquire and " +
			"one load and one atomic add per Release; x/sync's uncontended mutex path costs four " +
			"atomic read-modify-writes. What is left is the ctx.Done() call (kept: a cancelled " +
			"context must fail even when tokens are free) and two calls too large to inline.",
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
