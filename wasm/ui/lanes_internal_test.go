package ui

import (
	"testing"
	"time"

	"sluice/core"
	"sluice/wasm/sim"
)

// TestHolderIsOneTask checks that the keyboard meets a Semaphore holder of
// three tokens once, and that its selection outlines it across its three
// lanes.
func TestHolderIsOneTask(t *testing.T) {
	ps, _ := sim.PresetByID("semaphore")
	s, err := NewSession(ps.Scenario, ps.ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	s.SetPlaying(true)
	for range 15 { // 1.5 s: the weight-3 request holds the tokens
		s.Frame(100*time.Millisecond, defaultSpan)
	}
	s.SetPlaying(false)
	d := newDriver(s, false)
	d.tick(nopPainter{}, 0, 1, 1000, 300, Point{}, true)
	heavy := -1
	for i, x := range d.frame.Snap.Tasks {
		if x.Weight == 3 && x.State == core.TaskRunning {
			heavy = i
		}
	}
	if heavy < 0 {
		t.Fatal("the weight-3 request is not running at 1.5 s")
	}
	seen := 0
	for _, row := range d.tl.navRows(d.frame) {
		for _, i := range row {
			if i == heavy {
				seen++
			}
		}
	}
	if seen != 1 {
		t.Errorf("the keyboard meets the weight-3 request %d times, want once", seen)
	}
	d.tl.Selected = d.frame.Snap.Tasks[heavy].ID
	d.tick(nopPainter{}, 0, 2, 1000, 300, Point{}, true)
	r := d.tl.selRect
	if h := r[3] - r[1]; !d.tl.selShown || h < 3*18 || h > 3*24 { // three lanes of 24 px, less their padding
		t.Errorf("the selection outlines %v (shown %v), %v px tall; want three lanes", r, d.tl.selShown, h)
	}
}
