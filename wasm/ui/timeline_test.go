package ui_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"sluice/core"
	"sluice/core/trace"
	"sluice/wasm/sim"
	"sluice/wasm/ui"
)

// playFor plays s at 1× for d in frames of 100 ms.
func playFor(s *ui.Session, d time.Duration) {
	s.SetPlaying(true)
	for range d / (100 * time.Millisecond) {
		s.Frame(100*time.Millisecond, ui.SpanFor)
	}
}

func TestTimelineDraw(t *testing.T) {
	ps, _ := sim.PresetByID("workqueue-cancel")
	s, err := ui.NewSession(ps.Scenario, ps.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	playFor(s, time.Second)

	tl := ui.NewTimeline(false)
	var p ui.TestPainter
	f := ui.DrawFrame(tl, &p, s, 0, 1000, ui.Point{})
	if tl.Lanes != ps.Scenario.Limit {
		t.Errorf("lanes drawn = %d, want one per worker slot, %d", tl.Lanes, ps.Scenario.Limit)
	}
	var running, started int
	for _, x := range f.Snap.Tasks {
		if !x.Started.IsZero() {
			started++
		}
		if x.State == core.TaskRunning {
			running++
		}
	}
	if running != ps.Scenario.Limit {
		t.Fatalf("%d tasks running after 1 s, want %d", running, ps.Scenario.Limit)
	}
	if tl.Bars != started {
		t.Errorf("bars drawn = %d, want one per started task, %d", tl.Bars, started)
	}
	for _, want := range []string{"slot 1", "slot 3", "0s", "1s", "High waiting", "running 3 / 3", "waiting"} {
		if !slices.ContainsFunc(p.Texts, func(s string) bool { return strings.HasPrefix(s, want) }) {
			t.Errorf("the timeline shows no text %q; it shows %q", want, p.Texts)
		}
	}
	if tl.Height < 200 || tl.Height > 600 {
		t.Errorf("height = %v for 3 lanes, want a few hundred pixels", tl.Height)
	}
	if tl.Hover != nil {
		t.Errorf("a task is hovered with the pointer outside the canvas")
	}

	// The pointer over a running task's bar shows its tooltip, and a click
	// there names it.
	var bar *trace.Task
	for i := range f.Snap.Tasks {
		if f.Snap.Tasks[i].State == core.TaskRunning {
			bar = &f.Snap.Tasks[i]
			break
		}
	}
	name := f.Snap.Text(bar.Name)
	x, y, ok := findBar(tl, f, name, 1000)
	if !ok {
		t.Fatalf("no pixel of the canvas names running task %s", name)
	}
	p = ui.TestPainter{}
	tl.Draw(&p, f, 1000, tl.Height, ui.Point{X: x, Y: y, In: true})
	if tl.Hover == nil || f.Snap.Text(tl.Hover.Name) != name {
		t.Fatalf("hovered task = %v, want %s", tl.Hover, name)
	}
	if !slices.Contains(p.Texts, "click or tap for details") || !slices.ContainsFunc(p.Texts, func(s string) bool { return strings.HasPrefix(s, name+" · ") }) {
		t.Errorf("tooltip texts = %q, want the task's name and how to open its details", p.Texts)
	}
}

// findBar returns a point where the timeline drew the named task.
func findBar(tl interface {
	TaskAt(ui.Frame, float64, float64) (string, bool)
}, f ui.Frame, name string, w float64) (float64, float64, bool) {
	for y := 0.0; y < 600; y += 2 {
		for x := 0.0; x < w; x += 2 {
			if n, ok := tl.TaskAt(f, x, y); ok && n == name {
				return x, y, true
			}
		}
	}
	return 0, 0, false
}

// TestTimelineQueue draws 1,000 waiting tasks: the queue shows as many
// as fit and counts the rest, and the drawing stays small.
func TestTimelineQueue(t *testing.T) {
	sc := sim.Scenario{V: sim.Version, Primitive: sim.Semaphore, Seed: 3, Limit: 4,
		Bursts: []sim.Burst{{Count: 1000, MinMS: 5000, MaxMS: 9000, Priority: sim.PriorityMix{Low: 1, Normal: 1, High: 1}}}}
	s, err := ui.NewSession(sc, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	playFor(s, 200*time.Millisecond)
	tl := ui.NewTimeline(false)
	var p ui.TestPainter
	ui.DrawFrame(tl, &p, s, 0, 1200, ui.Point{})
	var more int
	for _, s := range p.Texts {
		if strings.HasPrefix(s, "+") {
			more++
		}
	}
	if more != 3 {
		t.Errorf("%d queue rows say how many more wait, want 3 (High, Normal, Low): %q", more, p.Texts)
	}
	if len(p.Calls) > 400 {
		t.Errorf("drawing 1,000 live tasks took %d painter calls, want few (one path per colour)", len(p.Calls))
	}
}

// TestTimelineKeyed draws a keyed queue whose lanes were evicted and made
// again: one row per key, in the keys' order.
func TestTimelineKeyed(t *testing.T) {
	ps, _ := sim.PresetByID("keyed-devices")
	s, err := ui.NewSession(ps.Scenario, ps.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runToEnd(t, s)
	tl := ui.NewTimeline(false)
	var p ui.TestPainter
	f := ui.DrawFrame(tl, &p, s, 0, 1000, ui.Point{})
	keys := map[string]bool{}
	for _, l := range f.Snap.Lanes {
		keys[l.Key] = true
	}
	if tl.Lanes != len(keys) {
		t.Errorf("rows = %d, want one per key, %d (lanes %d)", tl.Lanes, len(keys), len(f.Snap.Lanes))
	}
	var rows []string
	for _, s := range p.Texts {
		if strings.HasPrefix(s, "device-") {
			rows = append(rows, s)
		}
	}
	if !slices.IsSortedFunc(rows, ui.NaturalCompare) {
		t.Errorf("key rows %q are not in the keys' order", rows)
	}
	for _, r := range rows {
		if !strings.HasSuffix(r, "(evicted)") {
			t.Errorf("row %q: every lane is evicted at the end of the run", r)
		}
	}
}

func TestTimelineConsumers(t *testing.T) {
	ps, _ := sim.PresetByID("consumers")
	s, err := ui.NewSession(ps.Scenario, ps.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	playFor(s, time.Second)
	tl := ui.NewTimeline(true)
	var p ui.TestPainter
	ui.DrawFrame(tl, &p, s, 0, 700, ui.Point{})
	max := 0
	for _, c := range ps.Scenario.Consumers {
		max += c.Concurrency
	}
	if tl.Lanes < 2 || tl.Lanes > max {
		t.Errorf("lanes = %d, want one per handler goroutine in use (at most %d)", tl.Lanes, max)
	}
	if !slices.ContainsFunc(p.Texts, func(s string) bool { return strings.HasPrefix(s, "consumer-1 · 1") }) {
		t.Errorf("no lane for consumer-1's first handler: %q", p.Texts)
	}
}

func TestTimelineSharedQueues(t *testing.T) {
	ps, _ := sim.PresetByID("shared-limit")
	s, err := ui.NewSession(ps.Scenario, ps.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	playFor(s, time.Second)
	tl := ui.NewTimeline(true)
	var p ui.TestPainter
	ui.DrawFrame(tl, &p, s, 0, 700, ui.Point{})
	// By 1 s the imports have run on queue-1's three slots and two
	// reports on queue-2's two: one lane per slot, named after its queue.
	want := []string{"queue-1 · 1", "queue-1 · 2", "queue-1 · 3", "queue-2 · 1", "queue-2 · 2"}
	var got []string
	for _, text := range p.Texts {
		if strings.HasPrefix(text, "queue-") {
			got = append(got, text)
		}
	}
	if !slices.Equal(got, want) || tl.Lanes != len(want) {
		t.Errorf("lanes = %d, rows %q; want %q", tl.Lanes, got, want)
	}
}

func TestTimelineReplay(t *testing.T) {
	foreign := `{"traceEvents":[
		{"ph":"M","name":"thread_name","pid":1,"tid":7,"args":{"name":"db pool"}},
		{"ph":"X","name":"query","pid":1,"tid":7,"ts":0,"dur":1500},
		{"ph":"X","name":"query","pid":1,"tid":7,"ts":2000,"dur":500},
		{"ph":"X","name":"render","pid":1,"tid":8,"ts":100,"dur":2500}]}`
	ps := sim.Presets()[0]
	s, err := ui.NewSession(ps.Scenario, ps.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.LoadTrace(strings.NewReader(foreign), "foreign.json"); err != nil {
		t.Fatal(err)
	}
	tl := ui.NewTimeline(false)
	var p ui.TestPainter
	f := ui.DrawFrame(tl, &p, s, 0, 1000, ui.Point{})
	if !f.Replay || f.To <= f.From || f.Now != 2600*time.Microsecond {
		t.Errorf("replay frame window %v..%v now %v, want the whole trace, 2.6 ms long", f.From, f.To, f.Now)
	}
	if tl.Bars != 3 || tl.Lanes != 2 {
		t.Errorf("drew %d bars on %d lanes, want 3 on 2", tl.Bars, tl.Lanes)
	}
	if !slices.Contains(p.Texts, "db pool") {
		t.Errorf("the lane named by thread_name is not shown: %q", p.Texts)
	}
	if err := s.Cancel("query"); err == nil {
		t.Errorf("Cancel in replay = nil; a loaded trace is read-only")
	}
}

// The label column is as wide as its longest label: nothing is cut short.
func TestTimelineLabelsWhole(t *testing.T) {
	for _, ps := range sim.Presets() {
		s, err := ui.NewSession(ps.Scenario, ps.ID)
		if err != nil {
			t.Fatal(err)
		}
		playFor(s, 1500*time.Millisecond)
		for _, compact := range []bool{false, true} {
			tl := ui.NewTimeline(compact)
			var p ui.TestPainter
			ui.DrawFrame(tl, &p, s, 0, 1000, ui.Point{})
			for _, tx := range p.Texts {
				if strings.HasSuffix(tx, "…") {
					t.Errorf("%s (compact %v): label %q is cut short", ps.ID, compact, tx)
				}
			}
		}
		s.Close()
	}
}

// TestTimelineSemaphoreHolder checks that in the "Async semaphore" preset
// the request holding all three tokens is drawn across the three token
// lanes, as one task to the pointer and in its tooltip.
func TestTimelineSemaphoreHolder(t *testing.T) {
	ps, _ := sim.PresetByID("semaphore")
	s, err := ui.NewSession(ps.Scenario, ps.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tl := ui.NewTimeline(false)
	var p ui.TestPainter
	var f ui.Frame
	var heavy *trace.Task
	s.SetPlaying(true)
	for range 40 { // up to 4 s, until the heavy request runs
		p = ui.TestPainter{}
		f = ui.DrawFrame(tl, &p, s, 100*time.Millisecond, 1000, ui.Point{})
		if i := slices.IndexFunc(f.Snap.Tasks, func(x trace.Task) bool { return x.Weight == 3 && x.State == core.TaskRunning }); i >= 0 {
			heavy = &f.Snap.Tasks[i]
			break
		}
	}
	if heavy == nil {
		t.Fatal("the weight-3 request never ran")
	}
	for range 8 { // long enough for its label
		p = ui.TestPainter{}
		f = ui.DrawFrame(tl, &p, s, 100*time.Millisecond, 1000, ui.Point{})
	}
	id := heavy.ID
	heavy = &f.Snap.Tasks[slices.IndexFunc(f.Snap.Tasks, func(x trace.Task) bool { return x.ID == id })]
	for _, want := range []string{"token 1", "token 2", "token 3"} {
		if !slices.Contains(p.Texts, want) {
			t.Errorf("the timeline shows no lane %q; it shows %q", want, p.Texts)
		}
	}
	heavyName := f.Snap.Text(heavy.Name)
	if want := heavyName + ":token 1+token 2+token 3@"; !slices.ContainsFunc(tl.Wide, func(s string) bool { return strings.HasPrefix(s, want) }) {
		t.Errorf("tasks drawn across lanes = %q, want %q", tl.Wide, want)
	}
	if n := len(f.Snap.TaskLanes(heavy)); n != 3 {
		t.Errorf("the weight-3 request holds lanes %v, want 3", f.Snap.TaskLanes(heavy))
	}
	// Its bar covers the three rows: the pointer finds it on each, and one
	// tooltip names the tokens.
	x, y, ok := findBar(tl, f, heavyName, 1000)
	if !ok {
		t.Fatalf("no pixel of the canvas names %s", heavyName)
	}
	rows := 0
	for dy := 0.0; dy < 100; dy += 2 {
		if n, ok := tl.TaskAt(f, x, y+dy); ok && n == heavyName {
			rows++
		}
	}
	if rows*2 < 3*18 { // lanes are at least 18 px tall
		t.Errorf("%s is drawn %d px tall at x %v, want across three lanes", heavyName, rows*2, x)
	}
	p = ui.TestPainter{}
	tl.Draw(&p, f, 1000, tl.Height, ui.Point{X: x, Y: y + float64(rows*2) - 4, In: true})
	if tl.Hover == nil || f.Snap.Text(tl.Hover.Name) != heavyName {
		t.Fatalf("hovered task at its last lane = %v, want %s", tl.Hover, heavyName)
	}
	if want := "weight 3 · on token 1, token 2, token 3"; !slices.Contains(p.Texts, want) {
		t.Errorf("tooltip texts = %q, want %q", p.Texts, want)
	}
	if labels := countPrefix(p.Texts, heavyName+" ×3"); labels != 1 {
		t.Errorf("%s is labelled %d times, want once; texts %q", heavyName, labels, p.Texts)
	}
}

func countPrefix(texts []string, prefix string) int {
	n := 0
	for _, s := range texts {
		if strings.HasPrefix(s, prefix) {
			n++
		}
	}
	return n
}

// TestTimelineHolderApart loads a trace in which a holder of two tokens
// got tokens 1 and 3, token 2 being held: it is drawn as two bars, one on
// each of its lanes, labelled once, one task to the pointer on both.
func TestTimelineHolderApart(t *testing.T) {
	t0 := sim.Epoch
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	rec := trace.NewRecorder(trace.Config{SlotName: "token"})
	rec.Observe(core.Event{Kind: core.Resized, Time: ms(0), Weight: 3})
	for i, name := range []string{"a", "b", "c"} {
		rec.Observe(core.Event{Kind: core.Started, Time: ms(0), Task: uint64(i + 1), Name: name, Weight: 1})
	}
	rec.Observe(core.Event{Kind: core.Finished, Time: ms(100), Task: 1})
	rec.Observe(core.Event{Kind: core.Finished, Time: ms(100), Task: 3})
	rec.Observe(core.Event{Kind: core.Started, Time: ms(100), Task: 4, Name: "d", Weight: 2})
	rec.Observe(core.Event{Kind: core.Finished, Time: ms(900), Task: 4})
	rec.Observe(core.Event{Kind: core.Finished, Time: ms(1000), Task: 2})
	var b strings.Builder
	if err := rec.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	s, err := ui.NewSession(sim.Presets()[0].Scenario, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.LoadTrace(strings.NewReader(b.String()), "apart.json"); err != nil {
		t.Fatal(err)
	}
	tl := ui.NewTimeline(false)
	var p ui.TestPainter
	f := ui.DrawFrame(tl, &p, s, 0, 1000, ui.Point{})
	if len(tl.Wide) != 1 || !strings.HasPrefix(tl.Wide[0], "d:token 1+token 3@") {
		t.Fatalf("tasks drawn across lanes = %q, want d on token 1 and token 3", tl.Wide)
	}
	if n := countPrefix(p.Texts, "d ×2"); n != 1 {
		t.Errorf("d is labelled %d times, want once", n)
	}
	var x float64
	var y1 float64
	if _, err := fmt.Sscanf(tl.Wide[0][strings.Index(tl.Wide[0], "@")+1:], "%g %g", &x, &y1); err != nil {
		t.Fatal(err)
	}
	// Down the column at the bar's centre: d, then b on token 2, then d.
	var seen []string
	for y := y1; y < y1+100; y++ {
		if n, ok := tl.TaskAt(f, x, y); ok && (len(seen) == 0 || seen[len(seen)-1] != n) {
			seen = append(seen, n)
		}
	}
	if want := []string{"d", "b", "d"}; !slices.Equal(seen, want) {
		t.Errorf("down the column at x %v from y %v: %q, want %q", x, y1, seen, want)
	}
}

// TestTimelineAxisClearOfClock checks that no time axis label is printed
// under the clock's badge, at desktop and phone widths, wherever the clock
// is in the window.
func TestTimelineAxisClearOfClock(t *testing.T) {
	ps, _ := sim.PresetByID("workqueue-cancel")
	for _, w := range []float64{1000, 340} {
		t.Run(fmt.Sprintf("width=%v", w), func(t *testing.T) {
			s, err := ui.NewSession(ps.Scenario, ps.ID)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			tl := ui.NewTimeline(false)
			s.SetPlaying(true)
			for step := range 40 {
				var p ui.TestPainter
				f := ui.DrawFrame(tl, &p, s, 110*time.Millisecond, w, ui.Point{})
				var badge [2]float64
				var labels [][3]float64 // x from, x to, index into p.Texts
				var texts []string
				for _, c := range p.Calls {
					var s, color string
					var x, y float64
					if n, _ := fmt.Sscanf(c, "text %q %f %f %s", &s, &x, &y, &color); n != 4 {
						continue
					}
					hw := float64(len([]rune(s))) * 6 / 2
					switch {
					case y == 13 && color == "#ffffff":
						badge = [2]float64{x - hw, x + hw}
					case y == 22-8 && color == "#576579":
						labels = append(labels, [3]float64{x - hw, x + hw, float64(len(texts))})
						texts = append(texts, s)
					}
				}
				if badge == [2]float64{} {
					t.Fatalf("step %d (%v): no clock badge drawn", step, f.Now)
				}
				for _, l := range labels {
					if l[1] > badge[0] && l[0] < badge[1] {
						t.Errorf("step %d (%v): axis label %q at [%.0f, %.0f] under the clock's badge at [%.0f, %.0f]",
							step, f.Now, texts[int(l[2])], l[0], l[1], badge[0], badge[1])
					}
				}
			}
		})
	}
}
