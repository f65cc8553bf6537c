//go:build !(js && wasm)

package ui_test

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/wasm/sim"
	"sluice/wasm/ui"
)

func compareLink(c sim.Comparison) string {
	return "/?v=" + strconv.Itoa(sim.Version) + sim.ComparePrefix + c.Encode()
}

// table returns the rows of the table with the given id: each row's
// data-priority (or data-row) and its cells' text.
func table(t *testing.T, html, id string) map[string][]string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<table[^>]*\bid="` + id + `"[^>]*>(.*?)</table>`).FindStringSubmatch(html)
	if m == nil {
		t.Fatalf("no table #%s", id)
	}
	rows := map[string][]string{}
	for _, r := range regexp.MustCompile(`(?s)<tr[^>]*\bdata-(?:priority|row)="([^"]*)"[^>]*>(.*?)</tr>`).FindAllStringSubmatch(m[1], -1) {
		var cells []string
		for _, c := range regexp.MustCompile(`(?s)<t[dh][^>]*>(.*?)</t[dh]>`).FindAllStringSubmatch(r[2], -1) {
			cells = append(cells, strip(c[1]))
		}
		rows[r[1]] = cells
	}
	return rows
}

// counterValue returns the shown value of counter #c-<id>.
func counterValue(t *testing.T, html, id string) string {
	t.Helper()
	m := regexp.MustCompile(`<span[^>]*\bid="c-` + id + `"[^>]*>([^<]*)</span>`).FindStringSubmatch(html)
	if m == nil {
		t.Fatalf("no counter #c-%s", id)
	}
	return strip(m[1])
}

// openCompare mounts the playground on a comparison link and waits for
// both runs.
func openCompare(t *testing.T, c sim.Comparison) (*ui.Play, app.ClientDispatcher) {
	t.Helper()
	p, disp := mount(t, compareLink(c), false)
	for range 500 {
		disp.Consume()
		if ui.PlayRunB(p) != nil {
			return p, disp
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("the comparison did not open; notice: %s", text(t, app.HTMLString(p), "message"))
	return nil, nil
}

// The diff table's numbers are the two runs' own: run A's counters and
// wait table, run B's counters and wait table, cell for cell.
func TestDiffTableEqualsRunsTables(t *testing.T) {
	for _, ps := range sim.ComparePresets() {
		t.Run(ps.ID, func(t *testing.T) {
			c, err := sim.Compare(ps.Scenario, *ps.Compare)
			if err != nil {
				t.Fatal(err)
			}
			c.A.Speed, c.B.Speed = 10, 10
			p, disp := openCompare(t, c)
			var html string
			for i := range 3000 {
				ui.PlayFrame(disp, p, 100*time.Millisecond)
				disp.Consume()
				html = app.HTMLString(p)
				if i == 2 {
					// Both runs play on one clock.
					if a, b := attr(t, html, "stats", "data-now-ms"), attr(t, html, "stats-b", "data-now-ms"); a != b || a == "0" {
						t.Errorf("after 3 frames run A is at %s ms and run B at %s ms; want one clock", a, b)
					}
				}
				if attr(t, html, "playground", "data-phase") == "finished" {
					break
				}
				if i == 2999 {
					t.Fatalf("the comparison did not finish")
				}
			}
			if got := attr(t, html, "playground", "data-preset"); got != ps.ID {
				t.Errorf("data-preset = %q, want %q", got, ps.ID)
			}
			diff := table(t, html, "diff-table")
			wa, wb := table(t, html, "waits"), table(t, html, "waits-b")
			if len(wa) == 0 || len(wb) == 0 {
				t.Fatalf("wait tables: A %v, B %v; want rows", wa, wb)
			}
			checked := 0
			for _, side := range []struct {
				name  string
				waits map[string][]string
				cell  int // the diff table's cell of this run
			}{{"A", wa, 1}, {"B", wb, 2}} {
				for prio, cells := range side.waits {
					for i, m := range []string{"tasks", "p50", "p95", "max"} {
						row := diff["wait-"+prio+"-"+m]
						if len(row) < 5 {
							t.Fatalf("diff table has no row wait-%s-%s: %v", prio, m, diff)
						}
						if got, want := row[side.cell], cells[i+1]; got != want {
							t.Errorf("diff table, priority %s %s, run %s = %q; its own table says %q", prio, m, side.name, got, want)
						}
						checked++
					}
				}
				pre := map[string]string{"A": "", "B": "b-"}[side.name]
				for _, m := range []string{"done", "failed", "canceled", "panicked", "throughput"} {
					if got, want := diff[m][side.cell], counterValue(t, html, pre+m); got != want {
						t.Errorf("diff table, %s, run %s = %q; its counter says %q", m, side.name, got, want)
					}
					checked++
				}
			}
			if checked < 20 {
				t.Errorf("checked %d cells, want at least 20", checked)
			}
			// The better side is marked in words, not by colour alone.
			marked := 0
			for id, row := range diff {
				if strings.HasPrefix(id, "wait-") && strings.HasSuffix(id, "-max") && strings.HasSuffix(row[4], "better") {
					marked++
				}
			}
			if marked == 0 {
				t.Errorf("no wait row says which run did better: %v", diff)
			}
			// The code view shows both programs.
			if !strings.Contains(html, `id="code-text-b"`) || !strings.Contains(html, `id="code-text"`) {
				t.Errorf("the code view does not show both programs")
			}
		})
	}
}

// Both runs move on one clock: play, step and pause reach both, and
// after any of them they show the same moment (until one has finished
// its work and stays at its end).
func TestCompareOneClock(t *testing.T) {
	ps, _ := sim.PresetByID("compare-parallelism")
	c, _ := sim.Compare(ps.Scenario, *ps.Compare)
	a, err := ui.NewSession(c.A, "")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := ui.NewSession(c.B, "")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	same := func(what string) {
		t.Helper()
		fa, fb := a.Frame(0, ui.SpanFor), b.Frame(0, ui.SpanFor)
		if fa.Now != fb.Now {
			t.Fatalf("after %s: A at %v, B at %v; want one clock", what, fa.Now, fb.Now)
		}
	}
	for i := range 30 {
		if !ui.StepBoth(a, b) {
			t.Fatalf("step %d: nothing left", i)
		}
		same("step " + strconv.Itoa(i))
	}
	// Step back, then step: both runs come back to the same moment and
	// the same counts; a rewind moves both.
	before := [2]ui.Panel{a.Panel(), b.Panel()}
	if !ui.StepBackBoth(a, b) {
		t.Fatalf("step back: nothing to undo")
	}
	same("step back")
	if a.Panel().Now >= before[0].Now {
		t.Errorf("step back left run A at %v, want before %v", a.Panel().Now, before[0].Now)
	}
	ui.StepBoth(a, b)
	same("step back and step")
	for i, s := range []*ui.Session{a, b} {
		got := s.Panel()
		if got.Now != before[i].Now || got.Succeeded != before[i].Succeeded || got.Running != before[i].Running || got.Waiting != before[i].Waiting {
			t.Errorf("run %c after step back and step: now %v, %d done, %d running, %d waiting; before: %v, %d, %d, %d",
				"AB"[i], got.Now, got.Succeeded, got.Running, got.Waiting, before[i].Now, before[i].Succeeded, before[i].Running, before[i].Waiting)
		}
	}
	if err := ui.PlayBoth(a, b, true); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		a.Frame(16*time.Millisecond, ui.SpanFor)
		b.Frame(16*time.Millisecond, ui.SpanFor)
	}
	if a.Phase() != "playing" || b.Phase() != "playing" {
		t.Errorf("phases %s and %s after play, want both playing", a.Phase(), b.Phase())
	}
	ui.PlayBoth(a, b, false)
	same("play and pause")
	// Work added to both is the same work: the comparison of the two
	// runs still validates, its logs equal but for each run's own count
	// of events.
	for _, s := range []*ui.Session{a, b} {
		if err := s.Submit(sim.Burst{Count: 4, MinMS: 100, MaxMS: 200}); err != nil {
			t.Fatal(err)
		}
		if err := s.CancelAll(); err != nil {
			t.Fatal(err)
		}
	}
	cmp := ui.ComparisonOf(a, b)
	if err := cmp.Validate(); err != nil {
		t.Errorf("the comparison after work added to both = %v, want valid", err)
	}
	acts := func(log []sim.Step) []sim.Step {
		return slices.DeleteFunc(slices.Clone(log), func(st sim.Step) bool { return st.Do == sim.StepStep || st.Do == sim.StepPause })
	}
	if len(acts(cmp.A.Log)) != 2 || !slices.EqualFunc(acts(cmp.A.Log), acts(cmp.B.Log), func(x, y sim.Step) bool { return x.Do == y.Do && x.AtMS == y.AtMS }) {
		t.Errorf("logs A %+v and B %+v, want the same entries", cmp.A.Log, cmp.B.Log)
	}
}

// "Compare with…" applied to an open comparison runs the new one.
func TestCompareApply(t *testing.T) {
	ps, _ := sim.PresetByID("compare-parallelism")
	c, _ := sim.Compare(ps.Scenario, *ps.Compare)
	p, disp := openCompare(t, c)
	for range 5 {
		ui.PlayFrame(disp, p, 50*time.Millisecond)
		disp.Consume()
	}
	old := ui.PlayRunB(p)
	ui.ApplyCompareLimit(disp, p, 3)
	ui.ApplyCompareLimit(disp, p, 3) // a double click
	for i := 0; ; i++ {
		ui.PlayFrame(disp, p, 50*time.Millisecond)
		disp.Consume()
		if b := ui.PlayRunB(p); b != nil && b != old {
			break
		}
		if i > 200 {
			t.Fatalf("the comparison did not reopen; notice: %s", text(t, app.HTMLString(p), "message"))
		}
		time.Sleep(5 * time.Millisecond)
	}
	html := app.HTMLString(p)
	if got := text(t, html, "compare"); !strings.Contains(got, "Parallelism: 2 → 3") {
		t.Errorf("the compare form says %q, want the change Parallelism: 2 → 3", got)
	}
}

// Keyed work gets a row per key: each key's done, failed and canceled add
// up to the run's own counters, for both runs.
func TestDiffTablePerKey(t *testing.T) {
	ps, _ := sim.PresetByID("keyed-devices")
	c, err := sim.Compare(ps.Scenario, sim.Change{Limit: sim.Int(2)})
	if err != nil {
		t.Fatal(err)
	}
	var runs [2]*ui.Session
	for i, sc := range []sim.Scenario{c.A, c.B} {
		s, err := ui.NewSession(sc, "")
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		runs[i] = s
	}
	if err := ui.PlayBoth(runs[0], runs[1], true); err != nil {
		t.Fatal(err)
	}
	for range 2000 {
		runs[0].Frame(100*time.Millisecond, ui.SpanFor)
		runs[1].Frame(100*time.Millisecond, ui.SpanFor)
		if runs[0].Phase() == "finished" && runs[1].Phase() == "finished" {
			break
		}
	}
	rows := ui.DiffTableOf(runs[0], runs[1])
	sums := [2]map[string]int{{}, {}}
	keys := 0
	for _, r := range rows {
		m, ok := strings.CutPrefix(r.ID, "key-")
		if !ok {
			continue
		}
		i := strings.LastIndexByte(m, '-')
		key, measure := m[:i], m[i+1:]
		if measure == "p50" {
			keys++
			if !strings.HasPrefix(key, "device-") {
				t.Errorf("row %s: want a key device-N", r.ID)
			}
		}
		for side, v := range []string{r.A, r.B} {
			n, err := strconv.Atoi(v)
			if measure == "done" || measure == "failed" || measure == "canceled" {
				if err != nil {
					t.Fatalf("row %s: %q is not a count", r.ID, v)
				}
				sums[side][measure] += n
			}
		}
	}
	if keys != 4 {
		t.Errorf("%d keys in the diff table, want the preset's 4", keys)
	}
	for side, s := range runs {
		pn := s.Panel()
		want := map[string]int{"done": pn.Succeeded, "failed": pn.Failed, "canceled": pn.Canceled}
		for m, n := range want {
			if sums[side][m] != n {
				t.Errorf("run %c: %s summed over keys = %d, its counter says %d", "AB"[side], m, sums[side][m], n)
			}
		}
	}
}

// TestCompareCancelInOneRun cancels a task from one run's details: the
// task is canceled in that run alone, the comparison stays valid, and
// its link replays the same two runs. A cancel at a past moment, after
// work added to both, forks both: the later work leaves both logs.
func TestCompareCancelInOneRun(t *testing.T) {
	ps, _ := sim.PresetByID("compare-parallelism")
	c, _ := sim.Compare(ps.Scenario, *ps.Compare)
	open := func(c sim.Comparison) (a, b *ui.Session) {
		t.Helper()
		a, err := ui.NewSession(c.A, "")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(a.Close)
		if b, err = ui.NewSession(c.B, ""); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(b.Close)
		return a, b
	}
	seek := func(a, b *ui.Session, at time.Duration) {
		t.Helper()
		for _, s := range []*ui.Session{a, b} {
			if err := s.Seek(at); err != nil {
				t.Fatal(err)
			}
		}
	}
	a, b := open(c)
	// Work added to both at 2 s, then both rewound to 1 s.
	seek(a, b, 2*time.Second)
	for _, s := range []*ui.Session{a, b} {
		if err := s.Submit(sim.Burst{Count: 3, MinMS: 100, MaxMS: 200}); err != nil {
			t.Fatal(err)
		}
	}
	seek(a, b, time.Second)
	var waiting string
	for _, x := range ui.SessionTasks(b) {
		if x.State == sim.StateWaiting {
			waiting = x.Name
			break
		}
	}
	if waiting == "" {
		t.Fatal("no task waits in run B at 1 s")
	}
	if err := ui.CancelIn(b, a, waiting); err != nil {
		t.Fatal(err)
	}
	pa, pb := a.Panel(), b.Panel()
	if pa.Canceled != 0 || pb.Canceled != 1 {
		t.Errorf("after canceling %s in run B: %d canceled in run A and %d in run B, want 0 and 1", waiting, pa.Canceled, pb.Canceled)
	}
	if pa.Rewind.Fork == "" || pb.Rewind.Fork == "" {
		t.Errorf("fork notes %q and %q, want both runs forked (the burst at 2 s dropped from both)", pa.Rewind.Fork, pb.Rewind.Fork)
	}
	cmp := ui.ComparisonOf(a, b)
	if err := cmp.Validate(); err != nil {
		t.Fatalf("the comparison after a cancel in run B = %v, want valid", err)
	}
	if n := len(cmp.A.LogBursts()) + len(cmp.B.LogBursts()); n != 0 {
		t.Errorf("the logs hold %d bursts after the fork at 1 s, want none", n)
	}
	// The link replays both runs: at 1.5 s, the same counts.
	d, err := sim.DecodeComparison(cmp.Encode())
	if err != nil {
		t.Fatal(err)
	}
	a2, b2 := open(d)
	seek(a, b, 1500*time.Millisecond)
	seek(a2, b2, 1500*time.Millisecond)
	for i, r := range [][2]*ui.Session{{a, a2}, {b, b2}} {
		got, want := r[1].Panel(), r[0].Panel()
		if got.Canceled != want.Canceled || got.Succeeded != want.Succeeded || got.Running != want.Running || got.Waiting != want.Waiting {
			t.Errorf("run %c from the link at 1.5 s: %d canceled, %d done, %d running, %d waiting; the run's own: %d, %d, %d, %d",
				"AB"[i], got.Canceled, got.Succeeded, got.Running, got.Waiting, want.Canceled, want.Succeeded, want.Running, want.Waiting)
		}
	}
}
