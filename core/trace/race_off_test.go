//go:build !race

package trace_test

// raceEnabled: see race_on_test.go.
const raceEnabled = false
