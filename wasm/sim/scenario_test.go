package sim_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"sluice/wasm/sim"
)

func TestPresetsAreValid(t *testing.T) {
	ids := make(map[string]bool)
	prims := make(map[string]bool)
	for _, p := range sim.Presets() {
		if err := p.Scenario.Validate(); err != nil {
			t.Errorf("preset %s: Validate = %v, want nil", p.ID, err)
		}
		if ids[p.ID] || p.ID == "" || p.Title == "" || p.Description == "" {
			t.Errorf("preset %q: empty or duplicate id, title or description", p.ID)
		}
		ids[p.ID] = true
		prims[p.Scenario.Primitive] = true
		if got, ok := sim.PresetByID(p.ID); !ok || got.Title != p.Title {
			t.Errorf("PresetByID(%q) = %q, %v; want %q, true", p.ID, got.Title, ok, p.Title)
		}
	}
	for _, want := range []string{sim.WorkQueue, sim.Semaphore, sim.Keyed, sim.Consume} {
		if !prims[want] {
			t.Errorf("no preset runs the %s", want)
		}
	}
	if _, ok := sim.PresetByID("nope"); ok {
		t.Errorf("PresetByID(\"nope\") found a preset")
	}
	// Presets returns copies.
	a := sim.Presets()
	a[0].Scenario.Bursts[0].Count = 9999
	if b := sim.Presets(); b[0].Scenario.Bursts[0].Count == 9999 {
		t.Errorf("changing a preset changed the next call's")
	}
}

// base returns a valid scenario of primitive p to break.
func base(p string) sim.Scenario {
	s := sim.Scenario{V: sim.Version, Primitive: p, Seed: 1, Limit: 2,
		Bursts: []sim.Burst{{Count: 3, MinMS: 10, MaxMS: 20}}}
	switch p {
	case sim.Keyed:
		s.Bursts[0].Keys = 2
	case sim.Consume, sim.Shared:
		s.Consumers = []sim.Consumer{{Concurrency: 1}}
	}
	return s
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		prim string
		edit func(*sim.Scenario)
		want string
	}{
		{"version", sim.Semaphore, func(s *sim.Scenario) { s.V = 7 }, "format version (v) is 7; this playground runs version 2"},
		{"no primitive", "", nil, "no primitive chosen: choose one of semaphore, workqueue, processor, keyed, consume"},
		{"unknown primitive", "mutex", nil, `unknown primitive "mutex"`},
		{"limit high", sim.Semaphore, func(s *sim.Scenario) { s.Limit = 20000 }, "limit must be between 1 and 10,000; it is 20,000. A run holds at most 10,000 tasks, so a larger limit would act just like 10,000"},
		{"limit zero", sim.Consume, func(s *sim.Scenario) { s.Limit = 0 }, "limit must be between 1 and 10,000; it is 0"},
		{"parallelism", sim.WorkQueue, func(s *sim.Scenario) { s.Limit = -1 }, "parallelism must be between 1 and 10,000; it is -1"},
		{"keyed parallelism", sim.Keyed, func(s *sim.Scenario) { s.Limit = 10001 }, "the keyed queue's parallelism must be between 0 (no limit) and 10,000; it is 10,001"},
		{"aging", sim.Semaphore, func(s *sim.Scenario) { s.AgingMS = -5 }, "aging must be between 0 and 600,000 ms; it is -5 ms"},
		{"capacity", sim.WorkQueue, func(s *sim.Scenario) { s.Capacity = 20000 }, "capacity must be between 0 (unbounded) and 10,000; it is 20,000"},
		{"idle", sim.Keyed, func(s *sim.Scenario) { s.IdleMS = 700000 }, "the idle timeout must be between 0 and 600,000 ms"},
		{"no consumers", sim.Consume, func(s *sim.Scenario) { s.Consumers = nil }, "a consume scenario needs at least one consumer"},
		{"too many consumers", sim.Consume, func(s *sim.Scenario) { s.Consumers = make([]sim.Consumer, 9) }, "at most 8 consumers"},
		{"consumer concurrency", sim.Consume, func(s *sim.Scenario) { s.Consumers[0].Concurrency = 0 }, "consumer 1: concurrency must be between 1 and 10,000; it is 0"},
		{"no queues", sim.Shared, func(s *sim.Scenario) { s.Consumers = nil }, "a shared scenario needs at least one work queue"},
		{"too many queues", sim.Shared, func(s *sim.Scenario) { s.Consumers = make([]sim.Consumer, 9) }, "at most 8 work queues can share the semaphore; this scenario has 9"},
		{"queue parallelism", sim.Shared, func(s *sim.Scenario) { s.Consumers[0].Concurrency = 0 }, "queue 1: parallelism must be between 1 and 10,000; it is 0"},
		{"shared limit", sim.Shared, func(s *sim.Scenario) { s.Limit = 0 }, "the shared limit must be between 1 and 10,000; it is 0"},
		{"queue number", sim.Shared, func(s *sim.Scenario) { s.Bursts[0].Consumer = 3 }, "burst 1: it is sent to queue 3, but there are only 1"},
		{"colour", sim.Semaphore, func(s *sim.Scenario) { s.ColorBy = "mood" }, `colour-by must be "priority" or "key"`},
		{"speed", sim.Semaphore, func(s *sim.Scenario) { s.Speed = 50 }, "speed must be between 0.1x and 10x; it is 50x"},
		{"huge burst", sim.Semaphore, func(s *sim.Scenario) { s.Bursts[0].Count = 50000 }, "burst 1: a burst can hold at most 10,000 tasks; this one asks for 50,000"},
		{"empty burst", sim.Semaphore, func(s *sim.Scenario) { s.Bursts[0].Count = 0 }, "burst 1: a burst needs at least one task"},
		{"total", sim.Semaphore, func(s *sim.Scenario) {
			s.Bursts = []sim.Burst{{Count: 6000, MinMS: 1, MaxMS: 1}, {Count: 6000, MinMS: 1, MaxMS: 1}}
		}, "a scenario can hold at most 10,000 tasks in all; its bursts ask for 12,000"},
		{"min duration", sim.Semaphore, func(s *sim.Scenario) { s.Bursts[0].MinMS = 0 }, "burst 1: the shortest duration must be between 1 ms and 600,000 ms; it is 0 ms"},
		{"max duration", sim.Semaphore, func(s *sim.Scenario) { s.Bursts[0].MaxMS = 5 }, "burst 1: the longest duration must be between the shortest (10 ms) and 600,000 ms; it is 5 ms"},
		{"mix", sim.Semaphore, func(s *sim.Scenario) { s.Bursts[0].Outcome.Panic = -1 }, "burst 1: the panic weight of a mix must be between 0 and 1,000; it is -1"},
		{"keys missing", sim.Keyed, func(s *sim.Scenario) { s.Bursts[0].Keys = 0 }, "burst 1: a keyed burst needs a key set"},
		{"keys many", sim.Keyed, func(s *sim.Scenario) { s.Bursts[0].Keys = 5000 }, "the key set must have between 1 and 1,000 keys; it has 5,000"},
		{"weight", sim.Semaphore, func(s *sim.Scenario) { s.Bursts[0].Weight = 3 }, "each task asks for 3 tokens but the semaphore has only 2"},
		{"consumer number", sim.Consume, func(s *sim.Scenario) { s.Bursts[0].Consumer = 2 }, "burst 1: it is sent to consumer 2, but there are only 1"},
		{"at", sim.Semaphore, func(s *sim.Scenario) { s.Bursts[0].AtMS = -1 }, "burst 1: its time must be between 0 and 3,600,000 ms"},
		{"cancel after", sim.Semaphore, func(s *sim.Scenario) { s.Bursts[0].CancelAfterMS = -1 }, "burst 1: cancel-after must be between"},
		{"action kind", sim.Semaphore, func(s *sim.Scenario) { s.Actions = []sim.Action{{Do: "explode"}} }, `action 1: unknown action "explode"`},
		{"action limit", sim.Semaphore, func(s *sim.Scenario) { s.Actions = []sim.Action{{Do: sim.ActionLimit, N: 0}} }, "action 1: the new limit must be between 1 and 10,000; it is 0"},
		{"levels many", sim.Semaphore, func(s *sim.Scenario) { s.Bursts[0].Levels = make([]int, 17) }, "burst 1: a burst can list at most 16 priority levels; this one lists 17"},
		{"levels and mix", sim.Semaphore, func(s *sim.Scenario) {
			s.Bursts[0].Levels = []int{5}
			s.Bursts[0].Priority.High = 1
		}, "burst 1: give either a priority mix or a list of priority levels, not both"},
		{"level twice", sim.WorkQueue, func(s *sim.Scenario) { s.Bursts[0].Levels = []int{5, -3, 5} }, "burst 1: priority level 5 is listed twice: list each level once"},
		{"keys and names", sim.Keyed, func(s *sim.Scenario) { s.Bursts[0].KeyNames = []string{"eu"} }, "burst 1: give either a number of keys or a list of key names, not both"},
		{"names many", sim.Keyed, func(s *sim.Scenario) {
			s.Bursts[0].Keys = 0
			s.Bursts[0].KeyNames = make([]string, 1001)
		}, "burst 1: a burst can name at most 1,000 keys; this one names 1,001"},
		{"name empty", sim.Keyed, func(s *sim.Scenario) { s.Bursts[0].Keys, s.Bursts[0].KeyNames = 0, []string{"eu", ""} }, "burst 1: key 2 is empty: a key name needs at least one character"},
		{"name long", sim.Keyed, func(s *sim.Scenario) { s.Bursts[0].Keys, s.Bursts[0].KeyNames = 0, []string{strings.Repeat("é", 40)} }, "burst 1: key 1 (\"éééééééé\"…) is 80 bytes long; a key name has at most 64"},
		{"name spaces", sim.Keyed, func(s *sim.Scenario) { s.Bursts[0].Keys, s.Bursts[0].KeyNames = 0, []string{" eu"} }, `burst 1: key 1 (" eu") starts or ends with a space`},
		{"name control", sim.Keyed, func(s *sim.Scenario) { s.Bursts[0].Keys, s.Bursts[0].KeyNames = 0, []string{"e\nu"} }, `burst 1: key 1 ("e\nu") holds a control character`},
		{"name utf8", sim.Keyed, func(s *sim.Scenario) { s.Bursts[0].Keys, s.Bursts[0].KeyNames = 0, []string{"e\xffu"} }, "burst 1: key 1 is not valid UTF-8 text"},
		{"name twice", sim.Keyed, func(s *sim.Scenario) { s.Bursts[0].Keys, s.Bursts[0].KeyNames = 0, []string{"eu", "us", "eu"} }, `burst 1: key "eu" is named twice: name each key once`},
		{"key bytes", sim.Keyed, func(s *sim.Scenario) {
			s.Bursts = nil
			for b := range 5 {
				names := make([]string, 64)
				for i := range names {
					names[i] = fmt.Sprintf("%02d-%03d-%s", b, i, strings.Repeat("k", 57))
				}
				s.Bursts = append(s.Bursts, sim.Burst{Count: 1, MinMS: 1, MaxMS: 1, KeyNames: names})
			}
		}, "the key names of a scenario's bursts can take at most 16,384 bytes in all, so that a link can carry them; these take 20,480"},
		{"weight high", sim.Semaphore, func(s *sim.Scenario) { s.Bursts[0].Weight = 10001 }, "burst 1: a task's weight must be between 1 and 10,000 tokens; it is 10,001"},
		{"action keyed limit", sim.Keyed, func(s *sim.Scenario) { s.Actions = []sim.Action{{Do: sim.ActionLimit, N: 3}} }, "action 1: the keyed queue cannot change its parallelism while it runs"},
		{"action number", sim.Semaphore, func(s *sim.Scenario) { s.Actions = []sim.Action{{Do: sim.ActionDrain, N: 3}} }, `action 1: "drain" takes no number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := base(tc.prim)
			if tc.edit != nil {
				tc.edit(&s)
			}
			err := s.Validate()
			var inv *sim.InvalidError
			if !errors.As(err, &inv) {
				t.Fatalf("Validate = %v, want an *InvalidError", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate = %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestValidateListsEveryProblem(t *testing.T) {
	s := base(sim.Semaphore)
	s.Limit = 0
	s.Speed = 99
	s.Bursts[0].Count = 0
	var inv *sim.InvalidError
	if err := s.Validate(); !errors.As(err, &inv) || len(inv.Problems) != 3 {
		t.Fatalf("Validate = %v, want an *InvalidError with 3 problems", err)
	}
}

func TestValidateIgnoresFieldsOfOtherPrimitives(t *testing.T) {
	// Switching primitive keeps the view: fields another primitive reads
	// do not make a scenario invalid.
	s := base(sim.WorkQueue)
	s.AgingMS = 1000
	s.IdleMS = 1000
	s.Consumers = []sim.Consumer{{Concurrency: 2}}
	s.Bursts[0].Keys = 3
	s.Bursts[0].Consumer = 1
	s.Bursts[0].Weight = 40
	if err := s.Validate(); err != nil {
		t.Errorf("Validate = %v, want nil", err)
	}
}

func TestValidateAcceptsWhatCoreAccepts(t *testing.T) {
	for _, tc := range []struct {
		name string
		prim string
		edit func(*sim.Scenario)
	}{
		{"limit 10,000", sim.Semaphore, func(s *sim.Scenario) { s.Limit = 10_000 }},
		{"parallelism 500", sim.WorkQueue, func(s *sim.Scenario) { s.Limit = 500 }},
		{"keyed parallelism 10,000", sim.Keyed, func(s *sim.Scenario) { s.Limit = 10_000 }},
		{"shared tokens 2,000", sim.Consume, func(s *sim.Scenario) { s.Limit = 2000 }},
		{"concurrency 10,000", sim.Consume, func(s *sim.Scenario) { s.Consumers[0].Concurrency = 10_000 }},
		{"consumer priorities", sim.Consume, func(s *sim.Scenario) {
			s.Consumers = []sim.Consumer{{Concurrency: 1, Priority: 100}, {Concurrency: 1, Priority: -7}, {Concurrency: 1, Priority: math.MaxInt}}
		}},
		{"levels", sim.Processor, func(s *sim.Scenario) { s.Bursts[0].Levels = []int{5, -3, 100, math.MinInt} }},
		{"sixteen levels", sim.Semaphore, func(s *sim.Scenario) {
			for i := range 16 {
				s.Bursts[0].Levels = append(s.Bursts[0].Levels, i*10-50)
			}
		}},
		{"key names", sim.Keyed, func(s *sim.Scenario) {
			s.Bursts[0].Keys = 0
			s.Bursts[0].KeyNames = []string{"eu-west", "us-east", "東京", strings.Repeat("k", 64)}
		}},
		{"a thousand key names", sim.Keyed, func(s *sim.Scenario) {
			s.Bursts[0].Keys = 0
			for i := range 1000 {
				s.Bursts[0].KeyNames = append(s.Bursts[0].KeyNames, fmt.Sprintf("k%d", i))
			}
		}},
		{"set limit 10,000", sim.WorkQueue, func(s *sim.Scenario) { s.Actions = []sim.Action{{Do: sim.ActionLimit, N: 10_000}} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := base(tc.prim)
			tc.edit(&s)
			if err := s.Validate(); err != nil {
				t.Errorf("Validate = %v, want nil", err)
			}
		})
	}
}
