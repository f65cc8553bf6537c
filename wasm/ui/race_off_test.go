//go:build !race

package ui_test

// raceEnabled: see race_on_test.go.
const raceEnabled = false
