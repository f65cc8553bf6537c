package sim_test

import (
	"strings"
	"testing"
	"time"

	"sluice/wasm/sim"
)

// TestPerform does a person's actions through Runner.Perform: each is
// done and logged as one message (SetLimit's own), a bad limit changes
// and logs nothing, and an unknown action is an error.
func TestPerform(t *testing.T) {
	sc := sim.Scenario{V: sim.Version, Primitive: sim.WorkQueue, Seed: 1, Limit: 2,
		Bursts: []sim.Burst{{Count: 6, MinMS: 1000, MaxMS: 1000}}}
	r, err := sim.NewRunner(sc, sim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { r.Stop(); r.Wait() }()
	r.Advance(100 * time.Millisecond)
	for _, tc := range []struct {
		a    sim.Action
		want string // the message it logs; "" for an error
	}{
		{sim.Action{Do: sim.ActionLimit, N: 3}, "the limit is now 3"},
		{sim.Action{Do: sim.ActionLimit, N: 0}, ""},
		{sim.Action{Do: "jump"}, ""},
		{sim.Action{Do: sim.ActionCancelAll}, "you canceled every task"},
		{sim.Action{Do: sim.ActionDrain}, "you asked the work queue to drain"},
		{sim.Action{Do: sim.ActionClose}, "you closed the work queue"},
	} {
		before := len(r.Messages())
		err := r.Perform(tc.a)
		ms := r.Messages()[before:]
		if tc.want == "" {
			if err == nil || len(ms) != 0 {
				t.Errorf("Perform(%+v) = %v, logging %+v; want an error and no message", tc.a, err, ms)
			}
			continue
		}
		if err != nil || len(ms) == 0 || !strings.HasPrefix(ms[0].Text, tc.want) || ms[0].Error {
			t.Errorf("Perform(%+v) = %v, logging %+v; want nil and first %q", tc.a, err, ms, tc.want)
		}
	}
	if st := r.Stats(); st.Canceled != 6 {
		t.Errorf("canceled = %d after cancel-all, want 6", st.Canceled)
	}
}
