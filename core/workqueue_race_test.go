//go:build race

package core_test

// wqStressTasks is the size of TestWorkQueueStress: a quarter of the full
// size under the race detector, which slows each task down many times.
const wqStressTasks = 25_000
