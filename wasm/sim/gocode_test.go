package sim_test

import (
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"sluice/wasm/sim"
)

// codeScenarios are the presets, the blank slate, and for each primitive a
// scenario that uses every feature: options, priority mixes and levels,
// outcomes, keys by count and by name, weights, consumers, cancel-after,
// scripted actions, and a log of bursts, cancels, limit changes, drain and
// close.
func codeScenarios() map[string]sim.Scenario {
	m := map[string]sim.Scenario{sim.BlankID: sim.Blank().Scenario}
	for _, p := range sim.Presets() {
		m[p.ID] = p.Scenario
	}
	mix := sim.OutcomeMix{OK: 5, Fail: 1, Panic: 1, Slow: 1}
	for _, prim := range sim.Primitives {
		s := sim.Scenario{V: sim.Version, Primitive: prim, Seed: 42, Limit: 3, AgingMS: 250, Capacity: 40, IdleMS: 1500, Speed: 2,
			Bursts: []sim.Burst{
				{AtMS: 100, Count: 20, MinMS: 10, MaxMS: 90, Priority: sim.PriorityMix{Low: 1, Normal: 2, High: 1}, Outcome: mix, CancelAfterMS: 70},
				{Count: 5, MinMS: 10, MaxMS: 20, Levels: []int{5, -3, 100}},
			},
			Actions: []sim.Action{{AtMS: 300, Do: sim.ActionCancelAll}},
		}
		log := []sim.Step{
			{Do: sim.StepBurst, AtMS: 50, Burst: &sim.Burst{Count: 4, MinMS: 5, MaxMS: 9, Weight: 2}},
			{Do: sim.StepCancel, AtMS: 60, Task: "t3"},
			{Do: sim.StepPause, AtMS: 60},
			{Do: sim.ActionLimit, AtMS: 80, N: 5},
			{Do: sim.StepStep, AtMS: 90},
			{Do: sim.ActionDrain, AtMS: 400},
			{Do: sim.ActionClose, AtMS: 500},
		}
		switch prim {
		case sim.Keyed:
			s.Bursts[0].Keys = 4
			s.Bursts[1].KeyNames = []string{"eu-west", "us-east", `say "hi"`}
			log[0].Burst.Weight = 0
			log[0].Burst.Keys = 2
			log[3] = sim.Step{Do: sim.StepPause, AtMS: 80}
		case sim.Consume, sim.Shared:
			s.Consumers = []sim.Consumer{{Concurrency: 2, Priority: 1}, {Concurrency: 1}, {Concurrency: 3, Priority: -7}}
			s.Bursts[0].Priority = sim.PriorityMix{}
			s.Bursts[1].Levels = nil
			s.Bursts[1].Consumer = 3
			log[0].Burst.Weight = 0
		default:
			if prim != sim.Semaphore {
				log[0].Burst.Weight = 0
			}
		}
		for i := range log {
			log[i].Seq = i + 1
		}
		s.Log = log
		if err := s.Validate(); err != nil {
			panic(prim + ": " + err.Error())
		}
		m["every-feature-"+prim] = s
	}
	return m
}

func TestGoCodeShowsTheScenario(t *testing.T) {
	p, _ := sim.PresetByID("semaphore")
	code := p.Scenario.GoCode()
	for _, want := range []string{
		`sem := core.NewSemaphore(3, core.WithObserver(r.observe("")), core.WithClock(r.clock))`,
		"rand.NewPCG(2, 2^0x9e3779b97f4a7c15)",
		"// burst 2 (scenario), at 0.2 s\n\t\tr.draw(rng, burst{count: 1, minMS: 600, maxMS: 600, weight: 3}, nil),",
		"sem.Do(ctx, t.weight, r.body(t), core.WithName(t.name), core.WithPriority(t.prio))",
		"r.clock.AfterFunc(200*time.Millisecond, func() { r.fire(bursts[1]) })",
		"func eventLine(slots bool, at time.Duration, e core.Event) string {",
	} {
		if !strings.Contains(code, want) {
			t.Errorf("the semaphore preset's code lacks %q:\n%s", want, code)
		}
	}
	s := codeScenarios()["every-feature-workqueue"]
	code = s.GoCode()
	for _, want := range []string{
		`q := core.NewWorkQueue(3, core.WithObserver(r.observe("")), core.WithClock(r.clock), core.WithCapacity(40))`,
		"levels: []int{5, -3, 100}",
		"low: 1, normal: 2, high: 1",
		"ok: 5, fail: 1, panic: 1, slow: 1",
		"cancelAfter: 70 * time.Millisecond",
		`{at: 60, fired: 0, do: func() { r.cancelTask("t3") }},`,
		"q.SetParallelism(n)",
		"r.goWait(func() { q.Drain(context.Background()) })",
		"r.goWait(func() { q.Close() })",
	} {
		if !strings.Contains(code, want) {
			t.Errorf("the every-feature code lacks %q:\n%s", want, code)
		}
	}
	// The log's burst at 50 ms is drawn after the scenario's bursts, as
	// the playground draws it.
	if i, j := strings.Index(code, "// burst 3 (log), at 0.05 s"), strings.Index(code, "// burst 2 (scenario), at 0.1 s"); i < 0 || j < 0 || i < j {
		t.Errorf("the bursts are not drawn in the playground's order:\n%s", code)
	}
}

func TestGoCodeIsFormatted(t *testing.T) {
	for name, s := range codeScenarios() {
		code := s.GoCode()
		out, err := format.Source([]byte(code))
		if err != nil {
			t.Errorf("%s: the code does not parse: %v\n%s", name, err, code)
			continue
		}
		if string(out) != code {
			t.Errorf("%s: the code is not laid out as gofmt lays it out:\n%s", name, diffLines(code, string(out)))
		}
	}
}

// diffLines shows the first lines where got and want differ.
func diffLines(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n got %q\nwant %q", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}

// TestGoCodeBuilds writes the code of every preset and of a scenario using
// every feature, per primitive, into a module that requires sluice/core,
// and vets it with the go command: the code the page shows builds, and
// go vet finds nothing in it (TestGoCodeIsTheRun runs it).
func TestGoCodeBuilds(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("no go command under GOOS=js")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command: ", err)
	}
	dir := codeModule(t)
	write := func(name, text string) { writeFile(t, filepath.Join(dir, name), text) }
	for name, s := range codeScenarios() {
		write(filepath.Join(name, "main.go"), s.GoCode())
	}
	for _, args := range [][]string{{"vet", "./..."}} {
		cmd := exec.Command(goTool, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOOS=", "GOARCH=")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

func TestGoCodeSharesOneLimit(t *testing.T) {
	p, _ := sim.PresetByID("shared-limit")
	code := p.Scenario.GoCode()
	for _, want := range []string{
		"sem := core.NewSemaphore(3, core.WithClock(r.clock))",
		"for i, parallelism := range []int{3, 2} {",
		"qs = append(qs, core.NewWorkQueue(parallelism, core.WithSemaphore(sem), core.WithObserver(r.observe(name)), core.WithClock(r.clock)))",
		"groups := []core.Priority{core.Normal, core.High}",
		"r.draw(rng, burst{count: 6, minMS: 400, maxMS: 800, ok: 5, fail: 1, panic: 0, slow: 0, consumer: 2}, groups),",
		"h, err := qs[t.consumer].TrySubmit(r.body(t), core.WithName(t.name), core.WithPriority(t.prio))",
		"r.clock.AfterFunc(4*time.Second, func() { setLimit(5) })",
	} {
		if !strings.Contains(code, want) {
			t.Errorf("the shared-limit preset's code lacks %q:\n%s", want, code)
		}
	}
}
