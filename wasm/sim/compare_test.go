package sim_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"sluice/core"
	"sluice/wasm/sim"
)

func TestCompareValidate(t *testing.T) {
	wq := sim.Scenario{V: sim.Version, Primitive: sim.WorkQueue, Seed: 4, Limit: 2,
		Bursts: []sim.Burst{{Count: 5, MinMS: 100, MaxMS: 200}}}
	sem := wq
	sem.Primitive = sim.Semaphore
	sem.Bursts = []sim.Burst{{Count: 5, MinMS: 100, MaxMS: 200, Weight: 2}}
	shared := sim.Scenario{V: sim.Version, Primitive: sim.Shared, Seed: 4, Limit: 3,
		Consumers: []sim.Consumer{{Concurrency: 2}, {Concurrency: 2, Priority: 1}},
		Bursts:    []sim.Burst{{Count: 5, MinMS: 100, MaxMS: 200}}}
	for _, tc := range []struct {
		name string
		a    sim.Scenario
		ch   sim.Change
		want []string // the problems, in order; none: valid
		what []string // Changes, when valid
	}{
		{name: "parallelism", a: wq, ch: sim.Change{Limit: sim.Int(4)}, what: []string{"Parallelism: 2 → 4"}},
		{name: "capacity and primitive", a: wq, ch: sim.Change{Primitive: sim.Processor, Capacity: sim.Int(3)},
			what: []string{"Primitive: WorkQueue → Processor", "Capacity: unbounded → 3"}},
		{name: "aging", a: sem, ch: sim.Change{AgingMS: sim.Int(500)}, what: []string{"Aging: off → 500ms"}},
		{name: "group priority", a: shared, ch: sim.Change{Groups: []sim.Consumer{{Concurrency: 2, Priority: 1}, {Concurrency: 2}}},
			what: []string{"queue-1 priority: Normal → High", "queue-2 priority: High → Normal"}},
		{name: "shared to consume", a: shared, ch: sim.Change{Primitive: sim.Consume}, what: []string{"Primitive: WorkQueues + Semaphore → Consume"}},
		{name: "nothing changed", a: wq, ch: sim.Change{Limit: sim.Int(2)},
			want: []string{"run B is the same as run A: change at least one setting"}},
		{name: "bad limit", a: wq, ch: sim.Change{Limit: sim.Int(0)},
			want: []string{"run B: parallelism must be between 1 and 10,000; it is 0"}},
		{name: "keyed does not fit", a: wq, ch: sim.Change{Primitive: sim.Keyed},
			want: []string{"run B: burst 1: a keyed burst needs a key set", "run B: the work of a work queue does not fit a keyed queue: one gives each task a key"}},
		{name: "groups do not fit", a: wq, ch: sim.Change{Primitive: sim.Shared, Limit: sim.Int(3)},
			want: []string{"run B: a shared scenario needs at least one work queue", "run B: the work of a work queue does not fit a work queues: one sends each task to a group"}},
		{name: "weights do not fit", a: sem, ch: sim.Change{Primitive: sim.WorkQueue},
			want: []string{"run B: run A's tasks hold up to 2 tokens each, and a work queue has no weights"}},
		{name: "number of groups", a: shared, ch: sim.Change{Groups: []sim.Consumer{{Concurrency: 2}}},
			want: []string{"run B: it has 1 work queues and run A 2; the same work is sent to the same groups"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := sim.Compare(tc.a, tc.ch)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("Compare = %v, want no error", err)
				}
				if got := c.Changes(); !slices.Equal(got, tc.what) {
					t.Errorf("Changes = %q, want %q", got, tc.what)
				}
				if c.A.Primitive != tc.a.Primitive || c.A.Limit != tc.a.Limit {
					t.Errorf("run A = %+v, want the scenario it was made from", c.A)
				}
				return
			}
			var inv *sim.InvalidError
			if !errors.As(err, &inv) {
				t.Fatalf("Compare = %v, want an *InvalidError", err)
			}
			if len(inv.Problems) != len(tc.want) {
				t.Fatalf("problems = %q, want %d of them: %q", inv.Problems, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(inv.Problems[i], w) {
					t.Errorf("problem %d = %q, want it to start %q", i+1, inv.Problems[i], w)
				}
			}
		})
	}
}

// A comparison's B runs the same work as its A: a B made any other way is
// refused, with the run named.
func TestCompareSameWork(t *testing.T) {
	p, _ := sim.PresetByID("compare-parallelism")
	c, err := sim.Compare(p.Scenario, *p.Compare)
	if err != nil {
		t.Fatal(err)
	}
	log := []sim.Step{{Seq: 1, AtMS: 300, Fired: 5, Do: sim.ActionCancelAll}}
	for _, tc := range []struct {
		name   string
		change func(b *sim.Scenario)
		want   string
	}{
		{"seed", func(b *sim.Scenario) { b.Seed++ }, "run B: its seed is 22 and run A's 21"},
		{"bursts", func(b *sim.Scenario) { b.Bursts = b.Bursts[:1] }, "run B: its bursts differ from run A's"},
		{"actions", func(b *sim.Scenario) { b.Actions = []sim.Action{{AtMS: 100, Do: sim.ActionDrain}} }, "run B: its scripted actions differ"},
		{"log", func(b *sim.Scenario) { b.Log = log }, "run B: its log of added work and clicks differs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := c
			d.B.Bursts = slices.Clone(c.B.Bursts)
			tc.change(&d.B)
			err := d.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate = %v, want %q", err, tc.want)
			}
		})
	}
	// The same log, each run with its own count of events before an entry.
	d := c
	d.A.Log = log
	d.B.Log = slices.Clone(log)
	d.B.Log[0].Fired = 9
	if err := d.Validate(); err != nil {
		t.Errorf("Validate with logs that differ in Fired alone = %v, want nil", err)
	}
	// A task canceled in one run alone: a what-if of that run.
	d.B.Log = append(slices.Clone(d.B.Log), sim.Step{Seq: 2, AtMS: 900, Fired: 14, Do: sim.StepCancel, Task: "t3"})
	if err := d.Validate(); err != nil {
		t.Errorf("Validate with a task canceled in run B alone = %v, want nil", err)
	}
	if _, err := sim.DecodeComparison(d.Encode()); err != nil {
		t.Errorf("DecodeComparison of a link with a task canceled in run B alone = %v, want nil", err)
	}
}

func TestCompareLinkRoundTrip(t *testing.T) {
	for _, p := range sim.ComparePresets() {
		t.Run(p.ID, func(t *testing.T) {
			c, err := sim.Compare(p.Scenario, *p.Compare)
			if err != nil {
				t.Fatalf("Compare = %v", err)
			}
			c.A.Log = []sim.Step{{Seq: 1, AtMS: 700, Fired: 12, Do: sim.StepBurst, Burst: &sim.Burst{Count: 3, MinMS: 100, MaxMS: 300}}}
			c.B.Log = slices.Clone(c.A.Log)
			c.B.Log[0].Fired = 10
			text := c.Encode()
			if len(text) > 900 {
				t.Errorf("Encode gave %d characters; a link should stay short", len(text))
			}
			for _, in := range []string{text, sim.ComparePrefix + text, sim.ComparePrefix + text + "&t=1500"} {
				got, err := sim.DecodeComparison(in)
				if err != nil {
					t.Fatalf("DecodeComparison = %v", err)
				}
				if !reflect.DeepEqual(got, c) {
					t.Errorf("DecodeComparison(Encode(c)) = %+v, want %+v", got, c)
				}
			}
			// A comparison is not a scenario: the single-scenario reader
			// refuses it rather than run half of it.
			if _, err := sim.Decode(text); err == nil {
				t.Errorf("Decode of a comparison = nil error, want one")
			}
		})
	}
}

func TestDecodeComparisonMalformed(t *testing.T) {
	a := `{"v":1,"primitive":"workqueue","seed":1,"limit":2,"bursts":[{"count":2,"minMs":5,"maxMs":9}]}`
	b := `{"v":2,"primitive":"workqueue","seed":1,"limit":4,"bursts":[{"count":2,"minMs":5,"maxMs":9}]}`
	// Run A is a version-1 scenario: it is migrated as a link of its own is.
	c, err := sim.DecodeComparison(pack(`{"v":2,"a":` + a + `,"b":` + b + `}`))
	if err != nil {
		t.Fatalf("DecodeComparison of a valid comparison = %v", err)
	}
	if c.A.V != sim.Version || c.A.Limit != 2 || c.B.Limit != 4 {
		t.Errorf("DecodeComparison = %+v, want A (migrated) with limit 2 and B with 4", c)
	}
	for _, tc := range []struct{ name, text, want string }{
		{"empty", "#c=", "the link carries no comparison"},
		{"bad base64", "#c=!!", "its comparison is not base64url text"},
		{"not JSON", pack(`[1]`), "is not a comparison's JSON"},
		{"no version", pack(`{"a":` + a + `,"b":` + b + `}`), "has no format version (v)"},
		{"future version", pack(`{"v":99,"a":` + a + `,"b":` + b + `}`), "made by a newer playground (scenario version 99)"},
		{"unknown field", pack(`{"v":2,"a":` + a + `,"b":` + b + `,"c":{}}`), `has a field "c" that this playground does not know`},
		{"no B", pack(`{"v":2,"a":` + a + `}`), "the link's comparison has no run B"},
		{"bad B", pack(`{"v":2,"a":` + a + `,"b":{"v":2,"primitive":"workqueue","seed":1,"limit":0}}`), "run B: the link's scenario cannot run: parallelism must be between 1"},
		{"same", pack(`{"v":2,"a":` + a + `,"b":` + a + `}`), "cannot run: run B is the same as run A"},
		{"other work", pack(`{"v":2,"a":` + a + `,"b":` + strings.Replace(b, `"count":2`, `"count":3`, 1) + `}`), "run B: its bursts differ from run A's"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := sim.DecodeComparison(tc.text)
			if err == nil {
				t.Fatalf("DecodeComparison = %+v, nil; want an error", c)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("DecodeComparison error = %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

// Links written before comparisons existed decode as they did: these
// texts were written by the playground's version 2 and version 1.
func TestOldLinksUnchanged(t *testing.T) {
	for _, p := range append(sim.Presets(), sim.Blank()) {
		got, err := sim.Decode(oldLinks[p.ID])
		if err != nil {
			t.Errorf("%s: Decode(old link) = %v", p.ID, err)
			continue
		}
		if !reflect.DeepEqual(got, p.Scenario) {
			t.Errorf("%s: Decode(old link) = %+v, want %+v", p.ID, got, p.Scenario)
		}
	}
	v1 := pack(`{"v":1,"primitive":"workqueue","seed":9,"limit":3,"bursts":[{"count":4,"minMs":100,"maxMs":300}],"actions":[{"at":200,"do":"cancel-all"}]}`)
	got, err := sim.Decode(v1)
	want := sim.Scenario{V: sim.Version, Primitive: sim.WorkQueue, Seed: 9, Limit: 3,
		Bursts: []sim.Burst{{Count: 4, MinMS: 100, MaxMS: 300}}, Actions: []sim.Action{{AtMS: 200, Do: sim.ActionCancelAll}}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Decode(version-1 link) = %+v, %v; want %+v", got, err, want)
	}
	if _, err := sim.DecodeComparison(oldLinks["workqueue-cancel"]); err == nil {
		t.Errorf("DecodeComparison of a single scenario's link = nil error, want one")
	}
}

// runToEnd runs sc to its end and returns its tasks.
func runToEnd(t *testing.T, sc sim.Scenario, observe func(core.Event)) []sim.TaskInfo {
	t.Helper()
	r, err := sim.NewRunner(sc, sim.Config{Observe: observe})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { r.Stop(); r.Wait() }()
	for !r.Finished() {
		r.Advance(100 * time.Millisecond)
	}
	return r.Tasks()
}

// maxWait returns the longest wait before start of the tasks of priority p.
func waits(ts []sim.TaskInfo, keep func(sim.TaskInfo) bool) (longest, total time.Duration, n int) {
	for _, x := range ts {
		if x.Started >= 0 && keep(x) {
			w := x.Started - x.Submitted
			longest = max(longest, w)
			total += w
			n++
		}
	}
	return longest, total, n
}

// The comparison presets show what their descriptions say.
func TestComparePresetsAsDescribed(t *testing.T) {
	for _, p := range sim.ComparePresets() {
		c, err := sim.Compare(p.Scenario, *p.Compare)
		if err != nil {
			t.Fatalf("%s: Compare = %v", p.ID, err)
		}
		if p.Title == "" || len(p.Description) < 100 {
			t.Errorf("%s: a comparison preset needs a title and a description of what to watch", p.ID)
		}
		if _, ok := sim.PresetByID(p.ID); !ok {
			t.Errorf("PresetByID(%q) finds nothing", p.ID)
		}
		t.Run(p.ID, func(t *testing.T) {
			switch p.ID {
			case "compare-aging":
				low := func(x sim.TaskInfo) bool { return x.Priority == core.Low }
				la, _, _ := waits(runToEnd(t, c.A, nil), low)
				lb, _, _ := waits(runToEnd(t, c.B, nil), low)
				if la < 4*time.Second || lb > la/2 {
					t.Errorf("longest Low wait: A %v, B %v; want A starving (4 s or more) and B at most half of it", la, lb)
				}
			case "compare-parallelism":
				all := func(sim.TaskInfo) bool { return true }
				_, ta, na := waits(runToEnd(t, c.A, nil), all)
				_, tb, nb := waits(runToEnd(t, c.B, nil), all)
				ra := float64(tb) / float64(ta)
				if na != 36 || nb != 36 || ra < 0.3 || ra > 0.6 {
					t.Errorf("mean wait B/A = %.2f over %d and %d tasks; want about 0.5 over 36 each", ra, na, nb)
				}
			case "compare-shared-limit":
				for _, r := range []struct {
					sc   sim.Scenario
					want int
				}{{c.A, 3}, {c.B, 5}} {
					in, most := 0, 0
					runToEnd(t, r.sc, func(e core.Event) {
						switch e.Kind {
						case core.Started:
							in++
							most = max(most, in)
						case core.Finished, core.Failed, core.Panicked:
							in--
						}
					})
					if most != r.want {
						t.Errorf("limit %d: at most %d tasks ran at once, want %d", r.sc.Limit, most, r.want)
					}
				}
			}
		})
	}
}
