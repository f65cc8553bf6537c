//go:build !js

package ui_test

import (
	"testing"
	"testing/synctest"
)

// clientTest runs f, which mounts components with app.NewClientTester, in a
// synctest bubble: the runs' timers use the bubble's fake clock.
func clientTest(t *testing.T, f func(*testing.T)) { synctest.Test(t, f) }
