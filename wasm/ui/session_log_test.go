package ui_test

import (
	"runtime"
	"testing"
	"time"

	"sluice/wasm/sim"
	"sluice/wasm/ui"
)

// TestPauseDuringReplayKeepsTheLog opens a link whose log is still to
// replay, pauses and steps through it: the pause and steps are not
// recorded over the link's later entries, and the run ends as the link's.
// oneThread runs the test's goroutines on one thread, as the playground's
// run in WebAssembly: with several threads, a cancel-all that cancels a
// semaphore waiter just as a release wakes it races, so that two runs of
// one scenario may differ by that race.
func oneThread(t *testing.T) {
	prev := runtime.GOMAXPROCS(1)
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
}

func TestPauseDuringReplayKeepsTheLog(t *testing.T) {
	oneThread(t)
	ps, _ := sim.PresetByID("semaphore")
	sc := ps.Scenario
	sc.Log = []sim.Step{
		{Seq: 1, AtMS: 800, Fired: 4, Do: sim.ActionCancelAll},
		{Seq: 2, AtMS: 800, Fired: 4, Do: sim.StepBurst, Burst: &sim.Burst{Count: 4, MinMS: 100, MaxMS: 200}},
	}
	want := func() ui.Panel {
		s, err := ui.NewSession(sc, "")
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		return runToEnd(t, s)
	}()
	s, err := ui.NewSession(sc, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.SetPlaying(true)
	s.Frame(100*time.Millisecond, ui.SpanFor)
	s.SetPlaying(false)
	s.Step()
	s.Step()
	got, _ := s.Scenario()
	if len(got.Log) != 2 {
		t.Errorf("after a pause and steps during the replay the log holds %+v, want the link's two entries", got.Log)
	}
	pn := runToEnd(t, s)
	if pn.Tasks != want.Tasks || pn.Canceled != want.Canceled || pn.Succeeded != want.Succeeded {
		t.Errorf("paused and stepped, the run ended with %d tasks, %d canceled, %d done; played through, %d, %d, %d",
			pn.Tasks, pn.Canceled, pn.Succeeded, want.Tasks, want.Canceled, want.Succeeded)
	}
	if want.Tasks != 14 || want.Canceled == 0 {
		t.Errorf("the link's run made %d tasks and canceled %d; want 14 and some", want.Tasks, want.Canceled)
	}
}

// TestLogSpan reads the event log a page at a time, as the event log's
// "Show earlier" does: the pages, joined, are the whole log the panel
// counts, its latest page the panel's own entries, with and without a
// filter.
func TestLogSpan(t *testing.T) {
	sc := sim.Scenario{V: sim.Version, Primitive: sim.WorkQueue, Seed: 3, Limit: 4, Speed: 10,
		Bursts: []sim.Burst{{Count: 120, MinMS: 10, MaxMS: 50, Priority: sim.PriorityMix{Low: 1, Normal: 2, High: 1}}}}
	s, err := ui.NewSession(sc, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, q := range []string{"", "started"} {
		t.Run("filter="+q, func(t *testing.T) {
			s.SetLogQuery(q)
			pn := runToEnd(t, s)
			if pn.LogMatches <= len(pn.Log) && q == "" {
				t.Fatalf("the run has %d events, the panel shows %d: want more than a panel", pn.LogMatches, len(pn.Log))
			}
			var all []string
			for from := 0; from < pn.LogMatches; from += 7 {
				page := s.LogSpan(from, from+7)
				if want := min(7, pn.LogMatches-from); len(page) != want {
					t.Fatalf("LogSpan(%d, %d) holds %d events, want %d", from, from+7, len(page), want)
				}
				for _, e := range page {
					if q != "" && e.Kind.String() != q {
						t.Errorf("with the filter %q, LogSpan gives a %v event", q, e.Kind)
					}
					all = append(all, e.Name+" "+e.Kind.String())
				}
			}
			latest := all[len(all)-len(pn.Log):]
			for i, e := range pn.Log {
				if got := e.Name + " " + e.Kind.String(); got != latest[i] {
					t.Fatalf("the panel's entry %d is %q, the span's %q", i, got, latest[i])
				}
			}
			if got := s.LogSpan(pn.LogMatches, pn.LogMatches+5); len(got) != 0 {
				t.Errorf("LogSpan past the log's end = %d events, want none", len(got))
			}
		})
	}
}
