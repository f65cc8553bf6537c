package sim_test

import (
	"strings"
	"testing"
	"time"

	"sluice/wasm/sim"
)

// TestReplayedActionsSayWhoDidThem replays a link whose log cancels one
// task and then cancels all: the messages name the log's entries that did
// it, not "you", since the person watching the replay did neither.
func TestReplayedActionsSayWhoDidThem(t *testing.T) {
	sc := sim.Scenario{V: sim.Version, Primitive: sim.WorkQueue, Seed: 1, Limit: 1,
		Log: []sim.Step{
			{Seq: 1, Do: sim.StepBurst, Burst: &sim.Burst{Count: 3, MinMS: 100, MaxMS: 100}},
			{Seq: 2, AtMS: 50, Do: sim.StepCancel, Task: "t2"},
			{Seq: 3, AtMS: 60, Do: sim.ActionCancelAll},
		}}
	dec, err := sim.Decode(sc.Encode())
	if err != nil {
		t.Fatalf("Decode = %v", err)
	}
	r, err := sim.NewRunner(dec, sim.Config{})
	if err != nil {
		t.Fatalf("NewRunner = %v", err)
	}
	defer func() { r.Stop(); r.Wait() }()
	r.Advance(time.Second)
	var texts []string
	for _, m := range r.Messages() {
		texts = append(texts, m.Text)
	}
	all := strings.Join(texts, "\n")
	for _, want := range []string{
		"t2 canceled by the recorded action (entry 2 of the link's log)",
		"the recorded action (entry 3 of the link's log) canceled every task",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("the replay's messages are\n%s\nwant one saying %q", all, want)
		}
	}
	if strings.Contains(all, "you") {
		t.Errorf("the replay's messages are\n%s\nwant none saying the person watching did something", all)
	}

	t.Run("live", func(t *testing.T) {
		live := sc
		live.Log = nil
		r, err := sim.NewRunner(live, sim.Config{})
		if err != nil {
			t.Fatalf("NewRunner = %v", err)
		}
		defer func() { r.Stop(); r.Wait() }()
		if err := r.Submit(sim.Burst{Count: 3, MinMS: 100, MaxMS: 100}); err != nil {
			t.Fatal(err)
		}
		if err := r.Cancel("t2"); err != nil {
			t.Fatal(err)
		}
		ms := r.Messages()
		if got := ms[len(ms)-1].Text; got != "t2 canceled by you" {
			t.Errorf("a person's cancel logs %q, want %q", got, "t2 canceled by you")
		}
	})
}
