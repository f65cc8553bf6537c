//go:build !race

package core_test

// wqStressTasks is the size of TestWorkQueueStress.
const wqStressTasks = 100_000
