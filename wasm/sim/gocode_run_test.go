package sim_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"sluice/core"
	"sluice/wasm/sim"
)

// randomScenario makes a valid scenario of any primitive from seed, using
// every feature a scenario has: options, bursts with priority mixes and
// levels, outcomes, keys by count and by name, weights, consumers,
// cancel-after, scripted actions and a person's log. Times and durations
// are multiples of 50 ms, so that many things happen at the same instant.
func randomScenario(seed uint64) sim.Scenario {
	rng := rand.New(rand.NewPCG(seed, 7))
	prim := sim.Primitives[rng.IntN(len(sim.Primitives))]
	s := sim.Scenario{V: sim.Version, Primitive: prim, Seed: rng.Uint64N(1000), Limit: 1 + rng.IntN(4)}
	if prim == sim.Keyed {
		s.Limit = rng.IntN(4)
		if rng.IntN(2) == 0 {
			s.IdleMS = 50 * (1 + rng.IntN(6))
		}
	}
	if prim == sim.Semaphore && rng.IntN(2) == 0 {
		s.AgingMS = 50 * (1 + rng.IntN(6))
	}
	if prim != sim.Semaphore && prim != sim.Consume && rng.IntN(3) == 0 {
		s.Capacity = 1 + rng.IntN(4)
	}
	if sim.KindOf(prim).HasGroups() {
		for range 1 + rng.IntN(3) {
			s.Consumers = append(s.Consumers, sim.Consumer{Concurrency: 1 + rng.IntN(3), Priority: rng.IntN(3) - 1})
		}
	}
	burst := func(inLog bool) sim.Burst {
		b := sim.Burst{Count: 1 + rng.IntN(8), MinMS: 50 * (1 + rng.IntN(4))}
		b.MaxMS = b.MinMS + 50*rng.IntN(4)
		if !inLog {
			b.AtMS = 50 * rng.IntN(20)
		}
		switch rng.IntN(3) {
		case 0:
			b.Priority = sim.PriorityMix{Low: rng.IntN(3), Normal: rng.IntN(3), High: rng.IntN(3)}
		case 1:
			b.Levels = []int{-2, 0, 3}[:1+rng.IntN(3)]
		}
		if rng.IntN(2) == 0 {
			b.Outcome = sim.OutcomeMix{OK: 3, Fail: rng.IntN(2), Panic: rng.IntN(2), Slow: rng.IntN(2)}
		}
		switch prim {
		case sim.Keyed:
			if rng.IntN(2) == 0 {
				b.Keys = 1 + rng.IntN(3)
			} else {
				b.KeyNames = []string{"eu", "us", "ap"}[:1+rng.IntN(3)]
			}
		case sim.Semaphore:
			b.Weight = 1 + rng.IntN(s.Limit)
		case sim.Consume, sim.Shared:
			b.Consumer = rng.IntN(len(s.Consumers) + 1)
		}
		if rng.IntN(4) == 0 {
			b.CancelAfterMS = 50 * (1 + rng.IntN(6))
		}
		return b
	}
	tasks := 0
	for range 1 + rng.IntN(4) {
		b := burst(false)
		tasks += b.Count
		s.Bursts = append(s.Bursts, b)
	}
	actions := []string{sim.ActionCancelAll, sim.ActionDrain, sim.ActionClose}
	if prim != sim.Keyed {
		actions = append(actions, sim.ActionLimit)
	}
	if rng.IntN(3) == 0 {
		a := sim.Action{AtMS: 50 * rng.IntN(30), Do: actions[rng.IntN(len(actions))]}
		if a.Do == sim.ActionLimit {
			a.N = 1 + rng.IntN(5)
		}
		s.Actions = append(s.Actions, a)
	}
	at, fired := 0, 0
	for i := range rng.IntN(5) {
		at += 50 * rng.IntN(8)
		fired += rng.IntN(6)
		st := sim.Step{Seq: i + 1, AtMS: at, Fired: fired}
		switch rng.IntN(5) {
		case 0, 1:
			b := burst(true)
			tasks += b.Count
			st.Do, st.Burst = sim.StepBurst, &b
		case 2:
			st.Do, st.Task = sim.StepCancel, fmt.Sprintf("t%d", 1+rng.IntN(tasks))
		case 3:
			st.Do = sim.StepPause
		default:
			st.Do = actions[rng.IntN(len(actions))]
			if st.Do == sim.ActionLimit {
				st.N = 1 + rng.IntN(5)
			}
		}
		s.Log = append(s.Log, st)
	}
	return s
}

// pageRun runs s through the page's runner to its end and returns its task
// events as the event log writes them, and its totals as the program
// prints them.
func pageRun(t *testing.T, s sim.Scenario) ([]string, string) {
	var mu sync.Mutex // the observer is called from the primitive's goroutines
	var lines []string
	r, err := sim.NewRunner(s, sim.Config{Observe: func(e core.Event) {
		if e.Task != 0 && e.Name != "" {
			mu.Lock()
			lines = append(lines, sim.EventLine(s.Primitive, e.Time.Sub(sim.Epoch), e))
			mu.Unlock()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; !r.Finished() && i < 100_000; i++ {
		r.Advance(100 * time.Millisecond)
	}
	st := r.Stats()
	r.Stop()
	r.Wait()
	return lines, fmt.Sprintf("succeeded %d, failed %d, canceled %d, panicked %d, refused %d, withdrawn %d",
		st.Succeeded, st.Failed, st.Canceled, st.Panicked, st.Refused, st.Withdrawn)
}

// TestGoCodeIsTheRun writes the program of every preset, of a scenario
// using every feature per primitive, and of 60 random scenarios into one
// module, runs each under testing/synctest (its run function with
// synctest.Wait as settle), and compares the events it prints with the
// page runner's: the same lines (tasks, times, outcomes, slots and keys),
// each task's in the same order, the same start order per key and slot,
// and the same totals.
func TestGoCodeIsTheRun(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("no go command under GOOS=js")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command: ", err)
	}
	scs := codeScenarios()
	for i := range 60 {
		s := randomScenario(uint64(i))
		if err := s.Validate(); err != nil {
			t.Fatalf("random scenario %d is not valid: %v", i, err)
		}
		scs[fmt.Sprintf("random-%02d", i)] = s
	}
	names := make([]string, 0, len(scs))
	for name := range scs {
		names = append(names, name)
	}
	slices.Sort(names)

	dir := codeModule(t)
	out := t.TempDir()
	var imports, table strings.Builder
	for i, name := range names {
		code := scs[name].GoCode()
		code = strings.Replace(code, "\npackage main\n", fmt.Sprintf("\npackage p%d\n", i), 1)
		code += "\n// Run is run, for the harness.\nvar Run = run\n"
		writeFile(t, filepath.Join(dir, fmt.Sprintf("p%d", i), "main.go"), code)
		fmt.Fprintf(&imports, "\tp%d \"sluicecode/p%d\"\n", i, i)
		fmt.Fprintf(&table, "\t%q: p%d.Run,\n", name, i)
	}
	writeFile(t, filepath.Join(dir, "harness", "harness_test.go"), `package harness

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

`+imports.String()+`)

var runs = map[string]func(io.Writer, func(), func(time.Time)){
`+table.String()+`}

func TestRun(t *testing.T) {
	for name, run := range runs {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var buf bytes.Buffer
				run(&buf, synctest.Wait, func(time.Time) {})
				if err := os.WriteFile(filepath.Join(os.Getenv("OUT"), name+".txt"), buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			})
		})
	}
}
`)
	cmd := exec.Command(goTool, "test", "-count=1", "./harness")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOOS=", "GOARCH=", "OUT="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("running the programs: %v\n%s", err, b)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			s := scs[name]
			b, err := os.ReadFile(filepath.Join(out, name+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			gotTotals := got[len(got)-1]
			got = got[:len(got)-1]
			want, wantTotals := pageRun(t, s)
			if gotTotals != wantTotals {
				t.Errorf("the program's totals: %s\nthe page's:          %s", gotTotals, wantTotals)
			}
			compareEvents(t, got, want)
			if t.Failed() {
				t.Logf("scenario: %s", s.Encode())
			}
		})
	}
}

// compareEvents compares the program's event lines with the page's.
func compareEvents(t *testing.T, got, want []string) {
	t.Helper()
	g, w := slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))
	if !slices.Equal(g, w) {
		var only []string
		for _, l := range g {
			if !slices.Contains(w, l) {
				only = append(only, "program: "+l)
			}
		}
		for _, l := range w {
			if !slices.Contains(g, l) {
				only = append(only, "page:    "+l)
			}
		}
		t.Errorf("the program printed %d event lines, the page %d; lines in one only:\n%s", len(got), len(want), strings.Join(only, "\n"))
		return
	}
	for _, group := range []func(f []string) (string, bool){
		func(f []string) (string, bool) { return "task " + f[1], true },
		func(f []string) (string, bool) { return "starts at " + strings.Join(f[3:], " "), f[2] == "started" },
	} {
		seq := func(lines []string) map[string][]string {
			m := map[string][]string{}
			for _, l := range lines {
				f := strings.Split(l, "  ")
				if k, ok := group(f); ok {
					m[k] = append(m[k], l)
				}
			}
			return m
		}
		gs, ws := seq(got), seq(want)
		for k, wl := range ws {
			// Events of one instant are simultaneous: tasks that start
			// together report it from their own goroutines, in any order.
			if !slices.Equal(byInstant(gs[k]), byInstant(wl)) {
				t.Errorf("%s: the program's order\n%s\nthe page's\n%s", k, strings.Join(gs[k], "\n"), strings.Join(wl, "\n"))
			}
		}
	}
}

// codeModule makes a module that requires sluice/core from this
// repository, and returns its directory.
func codeModule(t *testing.T) string {
	t.Helper()
	core, err := filepath.Abs(filepath.Join("..", "..", "core"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(core, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "go.mod"), "module sluicecode\n\ngo 1.26\n\nrequire sluice/core v0.0.0\n\nreplace sluice/core => "+core+"\n")
	writeFile(t, filepath.Join(dir, "go.sum"), string(sum))
	return dir
}

func writeFile(t *testing.T, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
