package ui

import (
	"bytes"
	"math"
	"testing"
	"time"

	"sluice/wasm/sim"
)

// driverOn returns a driver of the first preset's session after 1.5 s of
// play, paused, with one frame drawn 1000 pixels wide.
func driverOn(t *testing.T) (*driver, *Session) {
	t.Helper()
	ps := sim.Presets()[0]
	s, err := NewSession(ps.Scenario, ps.ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	s.SetPlaying(true)
	for range 15 {
		s.Frame(100*time.Millisecond, defaultSpan)
	}
	s.SetPlaying(false)
	d := newDriver(s, false)
	d.tick(nopPainter{}, 0, 1, 1000, 300, Point{}, true)
	return d, s
}

func TestDriverTapOpensDetails(t *testing.T) {
	d, s := driverOn(t)
	x, y, name, ok := d.tl.OpenHit(d.frame)
	if !ok {
		t.Fatal("no open task drawn")
	}
	before := s.Panel().Canceled
	ef := d.apply(input{Kind: inputTap, X: x, Y: y})
	if ef.Kind != effectDetails || ef.Details.Name != name || !ef.Details.Open {
		t.Fatalf("a tap on %s gave %+v, want its details, open", name, ef)
	}
	if d.tl.Selected != ef.Details.ID {
		t.Errorf("selected = %d, want the tapped task %d", d.tl.Selected, ef.Details.ID)
	}
	d.tick(nopPainter{}, 0, 2, 1000, 300, Point{}, true)
	if got := s.Panel().Canceled; got != before {
		t.Errorf("a tap canceled a task: canceled %d -> %d", before, got)
	}
	if ef := d.apply(input{Kind: inputTap, X: 2, Y: 2}); ef.Kind != effectClose || d.tl.Selected != 0 {
		t.Errorf("a tap on nothing gave %+v, selected %d; want the sheet closed, nothing selected", ef, d.tl.Selected)
	}
}

func TestDriverKeys(t *testing.T) {
	d, _ := driverOn(t)
	key := func(k string, shift bool) effect {
		ef := d.apply(input{Kind: inputKey, Key: k, Shift: shift})
		d.tick(nopPainter{}, 0, 3, 1000, 300, Point{}, true)
		return ef
	}
	key("ArrowRight", false)
	first := d.tl.Selected
	if first == 0 {
		t.Fatal("ArrowRight selected nothing")
	}
	key("ArrowDown", false)
	key("ArrowRight", false)
	if d.tl.Selected == 0 {
		t.Fatal("the selection was lost")
	}
	if ef := key("Enter", false); ef.Kind != effectDetails || ef.Details.ID != d.tl.Selected {
		t.Errorf("Enter gave %+v, want the selected task's details", ef)
	}
	if ef := key(" ", false); ef.Kind != effectPlay {
		t.Errorf("Space gave %+v, want play/pause", ef)
	}
	if ef := key(".", false); ef.Kind != effectStep {
		t.Errorf("period gave %+v, want a step", ef)
	}
	from, to := d.window()
	key("+", false)
	if f2, t2 := d.window(); !d.view.fixed || t2-f2 >= to-from {
		t.Errorf("+ left the window at %v..%v (was %v..%v), want it narrower", f2, t2, from, to)
	}
	f2, t2 := d.window()
	key("ArrowRight", true)
	if f3, _ := d.window(); f3 <= f2 {
		t.Errorf("Shift+ArrowRight moved the window from %v to %v, want later", f2, f3)
	}
	_ = t2
	key("0", false)
	if d.view.fixed {
		t.Errorf("0 left the window fixed")
	}
	if ef := key("Escape", false); ef.Kind != effectClose || d.tl.Selected != 0 {
		t.Errorf("Escape gave %+v, selected %d", ef, d.tl.Selected)
	}
}

func TestDriverZoomAroundPointer(t *testing.T) {
	d, _ := driverOn(t)
	from, to := d.window()
	x := d.tl.plotL + 0.25*(d.tl.plotR-d.tl.plotL)
	at := func(from, to time.Duration) float64 { return float64(from) + 0.25*float64(to-from) }
	d.apply(input{Kind: inputZoom, X: x, V: 0.5})
	d.tick(nopPainter{}, 0, 4, 1000, 300, Point{}, true)
	f2, t2 := d.window()
	if got, want := t2-f2, (to-from)/2; math.Abs(float64(got-want)) > float64(time.Millisecond) {
		t.Errorf("window after zooming in 2× = %v, want %v", got, want)
	}
	if a, b := at(from, to), at(f2, t2); math.Abs(a-b) > float64(time.Millisecond) {
		t.Errorf("the time under the pointer moved from %v to %v", time.Duration(a), time.Duration(b))
	}
	d.apply(input{Kind: inputPan, V: 100})
	d.tick(nopPainter{}, 0, 5, 1000, 300, Point{}, true)
	if f3, _ := d.window(); f3 <= f2 {
		t.Errorf("a pan to the right moved the window from %v to %v", f2, f3)
	}
	d.apply(input{Kind: inputFit})
	d.tick(nopPainter{}, 0, 6, 1000, 300, Point{}, true)
	if d.view.fixed {
		t.Error("Fit left the window fixed")
	}
}

// The time axis labels adapt down to microseconds.
func TestFormatTick(t *testing.T) {
	for _, c := range []struct {
		d, step time.Duration
		want    string
	}{
		{1500 * time.Millisecond, 500 * time.Millisecond, "1.5s"},
		{250 * time.Microsecond, 50 * time.Microsecond, "250µs"},
		{1250 * time.Microsecond, 250 * time.Microsecond, "1.25ms"},
		{2*time.Second + 5*time.Millisecond, 5 * time.Millisecond, "2.005s"},
		{90 * time.Second, 30 * time.Second, "1m30s"},
		// One style whatever the zoom: seconds from a second up, minutes
		// from a minute up, with the decimals the step needs.
		{4015996 * time.Microsecond, 4 * time.Microsecond, "4.015996s"},
		{1310800 * time.Millisecond, 100 * time.Millisecond, "21m50.8s"},
		{1311 * time.Second, time.Second, "21m51s"},
		{2 * time.Minute, time.Minute, "2m"},
		{2*time.Minute + 30*time.Second, 10 * time.Second, "2m30s"},
		{3*time.Hour + 2*time.Minute, time.Minute, "3h02m"},
		{3*time.Hour + 2*time.Minute + 5*time.Second, 5 * time.Second, "3h02m05s"},
		{0, time.Microsecond, "0s"},
	} {
		if got := formatTick(c.d, c.step); got != c.want {
			t.Errorf("formatTick(%v, %v) = %q, want %q", c.d, c.step, got, c.want)
		}
	}
}

// Zoomed on a live run with now in sight, the window moves with now.
func TestDriverZoomFollowsNow(t *testing.T) {
	d, s := driverOn(t)
	d.apply(input{Kind: inputKey, Key: "+"})
	d.tick(nopPainter{}, 0, 7, 1000, 300, Point{}, true)
	from, _ := d.window()
	s.SetPlaying(true)
	for i := range 10 {
		d.tick(nopPainter{}, 100*time.Millisecond, float64(8+i), 1000, 300, Point{}, true)
	}
	if f2, t2 := d.window(); f2 <= from || d.frame.Now > t2 {
		t.Errorf("the zoomed window is %v..%v with now at %v, was from %v: want it to follow now", f2, t2, d.frame.Now, from)
	}
}

func TestFormatAt(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{340 * time.Microsecond, "340µs"},
		{12500 * time.Microsecond, "12.5ms"},
		{1250 * time.Millisecond, "1.25s"},
		{6249950 * time.Microsecond, "6.24995s"},
		{90 * time.Second, "1m30s"},
	} {
		if got := formatAt(c.d); got != c.want {
			t.Errorf("formatAt(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

// Fit shows a finished run whole, from 0 to its end, however much shorter
// than the window it was.
func TestFitFitsAFinishedRun(t *testing.T) {
	sc := sim.Scenario{V: sim.Version, Primitive: sim.WorkQueue, Seed: 1, Limit: 2,
		Bursts: []sim.Burst{{Count: 4, MinMS: 500, MaxMS: 500}}}
	s, err := NewSession(sc, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	s.SetPlaying(true)
	for range 30 {
		s.Frame(100*time.Millisecond, defaultSpan)
	}
	d := newDriver(s, false)
	d.tick(nopPainter{}, 0, 1, 1000, 300, Point{}, true)
	if !d.frame.Finished || d.frame.Now != time.Second {
		t.Fatalf("the run: finished %v at %v, want finished at 1s", d.frame.Finished, d.frame.Now)
	}
	d.apply(input{Kind: inputFit})
	d.tick(nopPainter{}, 0, 2, 1000, 300, Point{}, true)
	if from, to := d.window(); from != 0 || to < time.Second || to > 1200*time.Millisecond {
		t.Errorf("after Fit the window is %v..%v, want 0 to the run's end (1s) and a little more", from, to)
	}
}

// TestDriverDrawsAPausedRunOnce: a paused run that stands still is drawn
// once, not on every frame; an action, a seek, a change of colours, of
// width or of the pointer, and playing draw it again.
func TestDriverDrawsAPausedRunOnce(t *testing.T) {
	d, s := driverOn(t)
	tick := func() bool {
		_, drew, _ := d.tick(nopPainter{}, 16*time.Millisecond, 2, 1000, 300, Point{}, false)
		return drew
	}
	tick() // what the pause left to settle
	for _, step := range []struct {
		what string
		do   func()
		want bool
	}{
		{"a paused frame", func() {}, false},
		{"another", func() {}, false},
		{"a limit set", func() { s.SetLimit(5) }, true},
		{"the frame after", func() {}, false},
		{"a seek", func() { s.Seek(time.Second) }, true},
		{"the frame after the seek", func() {}, false},
		{"a seek to the same moment", func() { s.Seek(s.Panel().Now) }, true},
		{"the frame after that", func() {}, false},
		{"a trace loaded", func() {
			var b bytes.Buffer
			if err := s.WriteTrace(&b); err != nil {
				t.Fatal(err)
			}
			if err := s.LoadTrace(&b, "run.json"); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"the frame after the one that found it, after its panels", func() {}, true},
		{"back to the live run", s.BackToLive, false},
		{"the frame after that, after the panels", func() {}, true},
		{"colours by key", func() { s.SetColorBy("key") }, true},
		{"a playing frame", func() { s.SetPlaying(true) }, true},
		{"another playing frame", func() {}, true},
	} {
		step.do()
		if got := tick(); got != step.want {
			t.Errorf("%s: drew %v, want %v", step.what, got, step.want)
		}
	}
	if _, drew, _ := d.tick(nopPainter{}, 0, 3, 1000, 300, Point{X: 10, Y: 10, In: true}, false); !drew {
		t.Errorf("the pointer moved: drew nothing")
	}
}
