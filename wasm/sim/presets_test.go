package sim_test

import (
	"sync"
	"testing"
	"time"

	"sluice/core"
	"sluice/wasm/sim"
)

// The presets show what their descriptions say.

func TestPresetSemaphoreHeavyWaitsAtTheHead(t *testing.T) {
	p, _ := sim.PresetByID("semaphore")
	var mu sync.Mutex
	waiting := map[uint64]bool{}
	ahead := -1
	r, err := sim.NewRunner(p.Scenario, sim.Config{Observe: func(e core.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch e.Kind {
		case core.Waiting:
			if e.Weight == 3 {
				ahead = len(waiting)
			}
			waiting[e.Task] = true
		case core.Started, core.Canceled:
			delete(waiting, e.Task)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { r.Stop(); r.Wait() }()
	heldBack := false // a small request waited behind the heavy one while a token was free
	for r.Step() {
		st := r.Stats()
		heavy, _ := r.Task("t4")
		if heavy.State == sim.StateWaiting && st.Waiting > 1 && st.Tokens < 3 {
			heldBack = true
		}
	}
	heavy, _ := r.Task("t4")
	if heavy.Weight != 3 || heavy.State != sim.StateSucceeded {
		t.Fatalf("t4 = %+v, want the heavy request of weight 3, succeeded", heavy)
	}
	if ahead != 0 {
		t.Errorf("the heavy request had %d waiters ahead of it, want none: the description puts it at the head of the queue", ahead)
	}
	if !heldBack {
		t.Errorf("no small request waited behind the heavy one while a token was free, as the description says")
	}
}

func TestPresetKeyedShowsFourDevices(t *testing.T) {
	p, _ := sim.PresetByID("keyed-devices")
	r, err := sim.NewRunner(p.Scenario, sim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { r.Stop(); r.Wait() }()
	keys := map[string]bool{}
	for _, ti := range r.Tasks() {
		if ti.Burst == 0 {
			keys[ti.Key] = true
		}
	}
	if len(keys) != 4 {
		t.Errorf("the first burst reads from %d devices (%v), want the four of the description", len(keys), keys)
	}
	most := 0
	for !r.Finished() {
		r.Advance(10 * time.Millisecond)
		most = max(most, r.Stats().Lanes)
	}
	if most != 4 {
		t.Errorf("at most %d lanes were live at once, want 4", most)
	}
}

func TestPresetConsumersColourByPriority(t *testing.T) {
	p, _ := sim.PresetByID("consumers")
	sc := p.Scenario
	if sc.ColorBy != "priority" {
		t.Errorf("colour by %q: the description speaks of priorities, and the legend names them", sc.ColorBy)
	}
	want := []int{1, 0, -1}
	for i, c := range sc.Consumers {
		if c.Priority != want[i] {
			t.Errorf("consumer %d has priority %d, want %d as the description says", i+1, c.Priority, want[i])
		}
	}
}

func TestPresetBlankTakesTheLargestBurst(t *testing.T) {
	p, ok := sim.PresetByID(sim.BlankID)
	if !ok {
		t.Fatal("there is no blank preset")
	}
	if len(p.Scenario.Bursts) != 0 || len(p.Scenario.Actions) != 0 || len(p.Scenario.Log) != 0 {
		t.Fatalf("the blank preset holds work: %+v", p.Scenario)
	}
	r, err := sim.NewRunner(p.Scenario, sim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { r.Stop(); r.Wait() }()
	if err := r.Submit(sim.Burst{Count: sim.MaxTasks, MinMS: 1, MaxMS: 5}); err != nil {
		t.Fatalf("a burst of %d tasks on the blank slate: %v", sim.MaxTasks, err)
	}
	if st := r.Stats(); st.Tasks != sim.MaxTasks {
		t.Errorf("%d tasks made, want %d", st.Tasks, sim.MaxTasks)
	}
}
