//go:build js

package ui_test

import "testing"

// clientTest runs f, which mounts components with app.NewClientTester. In
// the browser a client tester mounts real DOM nodes, and a synctest bubble
// around it never advances its clock (the test hangs), so f runs on the wall
// clock: a demo run then takes up to a few seconds. f asserts on outcomes
// only, never on timing.
func clientTest(t *testing.T, f func(*testing.T)) { f(t) }
