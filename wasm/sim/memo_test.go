package sim_test

import (
	"testing"

	"sluice/wasm/sim"
)

func TestMemo(t *testing.T) {
	var m sim.Memo[string]
	made := 0
	encode := func(s sim.Scenario) string { made++; return s.Encode() }
	sc := sim.Presets()[0].Scenario
	for range 3 {
		if got := m.Get(sc, encode); got != sc.Encode() {
			t.Fatalf("Get = %q, want the scenario's link", got)
		}
	}
	if made != 1 {
		t.Errorf("made %d times for one scenario asked 3 times, want 1", made)
	}
	sc.Log = append(sc.Log, sim.Step{Seq: 1, AtMS: 5, Do: sim.StepCancel, Task: "t1"})
	if got := m.Get(sc, encode); got != sc.Encode() || made != 2 {
		t.Errorf("after a change: made %d times, link right: %v; want 2 and true", made, got == sc.Encode())
	}
}
