//go:build race

package core_test

// stStormSize is the size of a cancellation storm: a quarter of the full
// size under the race detector (still a dozen waves of stStormWave in
// flight at once), which slows each waiter and task down many times.
const stStormSize = 25_000
