package ui

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"sluice/core"
	"sluice/wasm/gotrace"
	"sluice/wasm/gotrace/golanes"
	"sluice/wasm/sim"
)

// TestGoTraceLanes opens the example service's flight-recorder snapshot
// as the page does (the worker's conversion, the timeline JSON, then the
// goroutine and proc lanes) and checks that the goroutines that ran sluice
// tasks and the procs they ran on are drawn below the tasks' lanes, on
// desktop and phone, with the bars of the tasks they ran, and that the
// trace's counts stay those of its sluice tasks.
func TestGoTraceLanes(t *testing.T) {
	data, err := os.ReadFile("../../e2e/testdata/service-snapshot.out")
	if err != nil {
		t.Fatal(err)
	}
	res, err := gotrace.ConvertBytes(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Lanes.Names) == 0 || len(res.Lanes.Runs) == 0 {
		t.Fatalf("the conversion gave %d goroutine and proc lanes, %d runs; want some", len(res.Lanes.Names), len(res.Lanes.Runs))
	}
	var procs int
	for _, n := range res.Lanes.Names {
		if strings.HasPrefix(n, "proc ") {
			procs++
		}
	}
	for _, compact := range []bool{false, true} {
		name := map[bool]string{false: "desktop", true: "phone"}[compact]
		t.Run(name, func(t *testing.T) {
			s, err := NewSession(sim.Presets()[0].Scenario, "")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(s.Close)
			if err := s.LoadTrace(bytes.NewReader(res.JSON), "snapshot.out"); err != nil {
				t.Fatal(err)
			}
			before := s.Frame(0, 0).Snap
			beforeStats, beforeTasks, beforeLanes := before.Stats, len(before.Tasks), len(before.Lanes)
			paused := 0
			if err := s.AddGoLanes(golanes.Encode(&res.Lanes), func(float64) { paused++ }); err != nil {
				t.Fatal(err)
			}
			f := s.Frame(0, 0)
			if got, want := len(f.Snap.Tasks), beforeTasks+len(res.Lanes.Runs); got != want {
				t.Errorf("%d bars in the model, want the %d tasks and %d runs", got, beforeTasks, len(res.Lanes.Runs))
			}
			if got, want := len(f.Snap.Lanes), beforeLanes+len(res.Lanes.Names); got != want {
				t.Errorf("%d lanes, want the %d of the tasks and %d of goroutines and procs", got, beforeLanes, len(res.Lanes.Names))
			}
			if st := f.Snap.Stats; st.Submitted != beforeStats.Submitted || st.Succeeded != beforeStats.Succeeded || st.Failed != beforeStats.Failed {
				t.Errorf("stats %+v after the goroutine lanes, want the tasks' own %+v", st, beforeStats)
			}
			if paused == 0 {
				t.Error("adding the lanes never paused")
			}
			// Every run within a task is coloured as that task: its
			// priority and key.
			byID := map[uint64]int{}
			for i := range f.Snap.Tasks[:beforeTasks] {
				byID[f.Snap.Tasks[i].ID] = i
			}
			inTask := 0
			for i, r := range res.Lanes.Runs {
				x := f.Snap.Tasks[beforeTasks+i]
				run, other := isRun(x.ID)
				if !run || other != (r.Task == 0) {
					t.Fatalf("run %d (%+v): bar %+v, want a run bar, outside a task only if Task is 0", i, r, x)
				}
				if r.Task == 0 {
					continue
				}
				inTask++
				task := f.Snap.Tasks[byID[r.Task]]
				s := f.Snap
				if x.Priority != task.Priority || x.Key != task.Key || !strings.HasSuffix(s.Text(x.Name), s.Text(task.Name)) {
					t.Fatalf("run %d: bar %q, priority %d, key %q; its task %q, %d, %q", i, s.Text(x.Name), x.Priority, s.Text(x.Key), s.Text(task.Name), task.Priority, s.Text(task.Key))
				}
			}
			if inTask == 0 {
				t.Error("no run within a sluice task")
			}
			d := newDriver(s, compact)
			for range 2 { // the panels, then the timeline
				d.tick(nopPainter{}, 0, 1, map[bool]float64{false: 1200, true: 390}[compact], 600, Point{}, true)
			}
			rows := d.tl.rows
			var labels []string
			firstRun := -1
			for i, r := range rows {
				labels = append(labels, r.label)
				if firstRun < 0 && (strings.HasPrefix(r.label, "goroutine") || strings.HasPrefix(r.label, "proc ")) {
					firstRun = i
				}
			}
			if firstRun < 0 {
				t.Fatalf("rows %q: no goroutine or proc row", labels)
			}
			for i, l := range labels {
				isRunRow := strings.HasPrefix(l, "goroutine") || strings.HasPrefix(l, "proc ") || i > firstRun && strings.HasPrefix(l, "+")
				if isRunRow != (i >= firstRun) {
					t.Errorf("row %d %q: the goroutine and proc rows are not all below the tasks' (%q)", i, l, labels)
				}
			}
			gotProcs := 0
			for _, l := range labels {
				if strings.HasPrefix(l, "proc ") {
					gotProcs++
				}
			}
			if gotProcs != procs || !strings.HasPrefix(labels[firstRun], "goroutine") {
				t.Errorf("rows %q: want the goroutines' rows first, then all %d procs", labels[firstRun:], procs)
			}
			if max := map[bool]int{false: 64, true: 14}[compact]; len(rows) > max {
				t.Errorf("%d rows, want at most %d", len(rows), max)
			}
			// Bars are drawn on the goroutine and proc rows.
			drawn := map[int]bool{}
			for _, h := range d.tl.hits {
				x := &f.Snap.Tasks[h.task]
				if run, _ := isRun(x.ID); run {
					drawn[d.tl.rowOf[x.Lane]] = true
				}
			}
			for i := firstRun; i < len(rows); i++ {
				if !rows[i].summary && !drawn[i] {
					t.Errorf("row %q: no bar drawn", rows[i].label)
				}
			}
			// A run's tooltip names its goroutine, task and proc.
			for i := beforeTasks; i < len(f.Snap.Tasks); i++ {
				if x := &f.Snap.Tasks[i]; x.Priority == core.High || x.Key.Len() > 0 {
					lines := tooltipLines(x, f, false)
					if !strings.HasPrefix(lines[0], "G") || !strings.Contains(strings.Join(lines, "|"), "on proc ") || !strings.Contains(strings.Join(lines, "|"), "ran ") {
						t.Errorf("a run's tooltip %q, want its goroutine, task, proc and run time", lines)
					}
					break
				}
			}
		})
	}
}

// TestLargeTraceIndexPrebuilt loads a large trace in slices: the lane
// index its frames draw from is built by the loader, between pauses, and
// the first frame takes it on rather than building it in one piece.
func TestLargeTraceIndexPrebuilt(t *testing.T) {
	s, err := NewSession(sim.Presets()[0].Scenario, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	pauses := 0
	if err := s.LoadTracePausing(bytes.NewReader(largeOwnTrace(indexFrom+5_000)), "large.json", func(float64) { pauses++ }); err != nil {
		t.Fatal(err)
	}
	f := s.Frame(0, 0)
	if f.Loaded == nil || f.Loaded.index == nil || f.Loaded.index.snap != f.Snap || f.Loaded.index.n != len(f.Snap.Tasks) {
		t.Fatalf("the frame of a trace of %d tasks carries %+v, want the index of its snapshot", len(f.Snap.Tasks), f.Loaded)
	}
	if pauses < len(f.Snap.Tasks)/2048 {
		t.Errorf("%d pauses while loading %d tasks, want one every 2,048 tasks at least", pauses, len(f.Snap.Tasks))
	}
	d := newDriver(s, false)
	// The frame that finds the trace loaded has the panels change, and
	// the next draws it: two tasks of the page's thread, not one long one.
	if _, drew, panels := d.tick(nopPainter{}, 0, 1, 1200, 600, Point{}, true); drew || !panels {
		t.Fatalf("the frame that found the trace loaded: drew %v, panels due %v; want false, true", drew, panels)
	}
	if _, drew, _ := d.tick(nopPainter{}, 16*time.Millisecond, 17, 1200, 600, Point{}, false); !drew {
		t.Fatal("the frame after the one that found the trace loaded did not draw it")
	}
	if len(d.tl.index.byLane) == 0 {
		t.Fatal("the timeline drew without an index")
	}
	for lane, lt := range d.tl.index.byLane {
		if f.Loaded.index.byLane[lane] != lt {
			t.Fatalf("lane %d: the first frame built its own index, want the loader's", lane)
		}
	}
}
