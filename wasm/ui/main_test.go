package ui_test

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// Under GOOS=js the runtime parks a goroutine in runtime.handleEvent
	// while JavaScript calls into Go; it belongs to the runtime, not to a
	// test.
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("runtime.handleEvent"))
}
