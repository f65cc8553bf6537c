package sim_test

import (
	"testing"

	"sluice/wasm/sim"
)

func TestKindLanes(t *testing.T) {
	for _, tc := range []struct {
		name string
		sc   sim.Scenario
		want int
	}{
		{"slots", sim.Scenario{Primitive: sim.WorkQueue, Limit: 3}, 3},
		{"a limit raised later", sim.Scenario{Primitive: sim.Semaphore, Limit: 3,
			Actions: []sim.Action{{AtMS: 5, Do: sim.ActionLimit, N: 6}},
			Log:     []sim.Step{{Seq: 1, Do: sim.ActionLimit, N: 5}}}, 6},
		{"keys", sim.Scenario{Primitive: sim.Keyed, Limit: 4, Bursts: []sim.Burst{
			{Count: 5, Keys: 4}, {Count: 5, KeyNames: []string{"device-2", "eu-west"}}}}, 5},
		{"consumers", sim.Scenario{Primitive: sim.Consume, Limit: 2,
			Consumers: []sim.Consumer{{Concurrency: 2}, {Concurrency: 3}}}, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sim.KindOf(tc.sc.Primitive).Lanes(tc.sc); got != tc.want {
				t.Errorf("Lanes = %d, want %d", got, tc.want)
			}
		})
	}
}
