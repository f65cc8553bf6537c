package ui_test

import (
	"runtime"
	"testing"
	"time"

	"sluice/wasm/sim"
	"sluice/wasm/ui"
)

// allocated returns the bytes that do allocate, each call.
func allocated(n int, do func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		do()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / uint64(n)
}

// playedSession returns a session of the first preset with a person's
// burst and cancel in its log, played for a second.
func playedSession(t testing.TB) *ui.Session {
	ps := sim.Presets()[0]
	s, err := ui.NewSession(ps.Scenario, ps.ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	s.SetPlaying(true)
	for range 10 {
		s.Frame(100*time.Millisecond, ui.SpanFor)
	}
	if err := s.Submit(sim.Burst{Count: 20, MinMS: 100, MaxMS: 900, Outcome: sim.OutcomeMix{OK: 1}}); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		s.Frame(100*time.Millisecond, ui.SpanFor)
	}
	return s
}

// TestPanelKeepsItsLink takes panels of a run whose scenario does not
// change between them: the link is encoded (deflated) once, not at every
// panel, and the code view's program is written once, not at every
// render. A change of the scenario gives a new link and program.
func TestPanelKeepsItsLink(t *testing.T) {
	s := playedSession(t)
	s.SetPlaying(false)
	first := s.Panel()
	if n := allocated(20, func() { s.Panel() }); n > 64<<10 {
		t.Errorf("a panel of an unchanged scenario allocates %d bytes, want under 64 KiB: its link is encoded again", n)
	}
	sc, _ := s.Scenario()
	code := ui.GoCodeOf(sc)
	if n := allocated(20, func() { ui.GoCodeOf(sc) }); n > 16<<10 {
		t.Errorf("the code view of an unchanged scenario allocates %d bytes a render, want under 16 KiB: its program is written again", n)
	}

	s.SetSpeed(3)
	second := s.Panel()
	if second.Link == first.Link {
		t.Errorf("the link did not change with the speed")
	}
	if want := (func() string { sc, _ := s.Scenario(); return sc.Encode() })(); second.Link != want {
		t.Errorf("the panel's link is not the scenario's")
	}
	if err := s.Cancel("t25"); err != nil {
		t.Fatal(err)
	}
	sc2, _ := s.Scenario()
	if third := s.Panel(); third.Link != sc2.Encode() {
		t.Errorf("after a cancel, the panel's link is not the scenario's")
	}
	if ui.GoCodeOf(sc2) == code || ui.GoCodeOf(sc2) != sc2.GoCode() {
		t.Errorf("after a cancel, the code view does not show the scenario's new program")
	}
}

func BenchmarkPanel(b *testing.B) {
	s := playedSession(b)
	s.SetPlaying(false)
	b.ReportAllocs()
	for b.Loop() {
		s.Panel()
	}
}

func BenchmarkCodeView(b *testing.B) {
	s := playedSession(b)
	sc, _ := s.Scenario()
	b.ReportAllocs()
	for b.Loop() {
		ui.GoCodeOf(sc)
	}
}
