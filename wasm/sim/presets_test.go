package sim_test

import (
	"fmt"
	"slices"
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

func TestPresetSharedLimit(t *testing.T) {
	p, _ := sim.PresetByID("shared-limit")
	sc := p.Scenario
	if sc.Primitive != sim.Shared || sc.Limit != 3 || len(sc.Consumers) != 2 ||
		sc.Consumers[0] != (sim.Consumer{Concurrency: 3}) || sc.Consumers[1] != (sim.Consumer{Concurrency: 2, Priority: 1}) {
		t.Fatalf("the preset is %+v, want the two queues (3, Normal; 2, High) and the limit of 3 its description names", sc)
	}
	var mu sync.Mutex
	running := map[string]int{}
	total, most, most5 := 0, 0, 0
	var firstStarts []string // the queues of the first starts after 0.5 s
	bothFull := false
	var problems []string
	r, err := sim.NewRunner(sc, sim.Config{Observe: func(e core.Event) {
		mu.Lock()
		defer mu.Unlock()
		at := e.Time.Sub(sim.Epoch)
		switch e.Kind {
		case core.Started:
			running[e.Key]++
			total++
			if at < 4*time.Second {
				most = max(most, total)
			} else {
				most5 = max(most5, total)
			}
			if at >= 500*time.Millisecond && len(firstStarts) < 2 {
				firstStarts = append(firstStarts, e.Key)
			}
			if running["queue-1"] > 3 || running["queue-2"] > 2 {
				problems = append(problems, fmt.Sprintf("at %v: %v running, over a queue's own limit", at, running))
			}
			if running["queue-1"] == 3 && running["queue-2"] == 2 {
				bothFull = true
			}
		case core.Finished, core.Failed, core.Canceled, core.Panicked:
			if running[e.Key] > 0 { // a task that started
				running[e.Key]--
				total--
			}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { r.Stop(); r.Wait() }()
	for r.Step() {
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Error(p)
	}
	if most != 3 {
		t.Errorf("before 4 s, at most %d tasks ran at once across the queues, want the shared limit of 3", most)
	}
	if most5 != 5 || !bothFull {
		t.Errorf("after 4 s, at most %d ran at once (3 imports and 2 reports at once: %v), want 5, as the description says", most5, bothFull)
	}
	if want := []string{"queue-2", "queue-2"}; !slices.Equal(firstStarts, want) {
		t.Errorf("the first tokens freed after 0.5 s went to %v, want %v: the High reports first", firstStarts, want)
	}
	if st := r.Stats(); st.Succeeded+st.Failed != st.Tasks || st.Tasks != 25 {
		t.Errorf("at the end: %+v, want every one of the 25 tasks to have run", st)
	}
}
