//go:build !race

package core_test

// stStormSize is the size of a cancellation storm (see stress_test.go).
const stStormSize = 100_000
