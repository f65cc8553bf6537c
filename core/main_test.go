package core_test

import (
	"testing"

	"go.uber.org/goleak"

	"sluice/core"
)

func TestMain(m *testing.M) {
	// Every queue in the tests has workers that spin for work, as on a
	// machine of eight or more cores; on fewer none would, and that path
	// is the one with no spinner (as a sharded KeyedQueue's workers, which
	// never spin).
	core.SetSpinners(2)
	// Under GOOS=js the runtime parks a goroutine in runtime.handleEvent
	// while JavaScript calls into Go; it belongs to the runtime, not to a
	// test.
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("runtime.handleEvent"))
}
