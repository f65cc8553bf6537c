//go:build race

package trace_test

// raceEnabled: the race detector slows the reader many times over; the
// tests that only feed it a huge input in one goroutine, where it can
// find nothing, leave that to the run without it.
const raceEnabled = true
