package ui_test

import (
	"slices"
	"testing"
	"time"

	"sluice/core"
	"sluice/wasm/sim"
	"sluice/wasm/ui"
)

// TestWaiterShowsItsWeight draws a semaphore's queue holding waiters of
// weight 1 and of weight 3: the weight-3 chip is three times as wide as
// the weight-1 one (less the gaps) and says "×3".
func TestWaiterShowsItsWeight(t *testing.T) {
	sc := sim.Scenario{V: sim.Version, Primitive: sim.Semaphore, Seed: 3, Limit: 3,
		Bursts: []sim.Burst{
			{Count: 3, MinMS: 5000, MaxMS: 5000, Weight: 1},
			{AtMS: 10, Count: 2, MinMS: 1000, MaxMS: 1000, Weight: 3},
			{AtMS: 20, Count: 2, MinMS: 1000, MaxMS: 1000, Weight: 1},
		}}
	s, err := ui.NewSession(sc, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	playFor(s, 200*time.Millisecond)
	tl := ui.NewTimeline(false)
	var p ui.TestPainter
	f := ui.DrawFrame(tl, &p, s, 0, 1000, ui.Point{})
	var heavy, light string
	for _, x := range f.Snap.Tasks {
		if x.State != core.TaskPending {
			continue
		}
		switch {
		case x.Weight == 3 && heavy == "":
			heavy = f.Snap.Text(x.Name)
		case x.Weight == 1 && light == "":
			light = f.Snap.Text(x.Name)
		}
	}
	if heavy == "" || light == "" {
		t.Fatalf("no waiter of weight 3 (%q) or of weight 1 (%q)", heavy, light)
	}
	width := func(name string) float64 {
		for y := 0.0; y < 150; y++ {
			var x0, x1 float64
			found := false
			for x := 0.0; x < 1000; x += 0.5 {
				if n, ok := tl.TaskAt(f, x, y); ok && n == name {
					if !found {
						x0, found = x, true
					}
					x1 = x
				}
			}
			if found {
				return x1 - x0 + 0.5
			}
		}
		t.Fatalf("%s is not drawn in the queue", name)
		return 0
	}
	wh, wl := width(heavy), width(light)
	if wh < 2.5*wl {
		t.Errorf("the chip of %s (weight 3) is %.1f px wide and that of %s (weight 1) %.1f px; want about three times as wide", heavy, wh, light, wl)
	}
	if !slices.Contains(p.Texts, "×3") {
		t.Errorf("the queue does not say ×3 on the weight-3 waiter; the timeline shows %q", p.Texts)
	}
}
