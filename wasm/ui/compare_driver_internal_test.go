package ui

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"sluice/wasm/sim"
)

// compareDrivers returns a driver of a comparison's two runs, sc with its
// limit set to limitB in run B, played for d of virtual time and paused,
// with two frames drawn w pixels wide (the second with what the first
// learnt of the other run's scales), and what each run's last drawing
// drew.
func compareDrivers(t *testing.T, sc sim.Scenario, limitB int, d time.Duration, w float64) (drv *driver, a, b *Session, pa, pb *TestPainter) {
	t.Helper()
	c, err := sim.Compare(sc, sim.Change{Limit: sim.Int(limitB)})
	if err != nil {
		t.Fatal(err)
	}
	if a, err = NewSession(c.A, ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	if b, err = NewSession(c.B, ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	if err := eachRun(a, b, func(s *Session) error { return s.Seek(d) }); err != nil {
		t.Fatal(err)
	}
	drv = newDriver(a, false)
	drv.b.Store(b)
	for range 2 {
		pa, pb = &TestPainter{}, &TestPainter{}
		drv.tick(pa, 0, float64(time.Now().UnixMilli()), w, 300, Point{}, true)
		drv.drawB(pb, w, 300, Point{})
	}
	return drv, a, b, pa, pb
}

// scaleTops returns the tops of the counter tracks' scales a timeline
// drew, with where each was drawn: the muted numbers.
func scaleTops(p *TestPainter) (tops []string, at [][2]float64) {
	for _, c := range p.Calls {
		var s, color string
		var x, y float64
		if n, _ := fmt.Sscanf(c, "text %q %f %f %s", &s, &x, &y, &color); n != 4 || color != colMuted {
			continue
		}
		if _, err := strconv.Atoi(s); err == nil {
			tops = append(tops, s)
			at = append(at, [2]float64{x, y})
		}
	}
	return tops, at
}

// TestCompareOneScale checks that a comparison's two timelines draw on
// one scale: run B's lanes (16 workers) as tall as run A's (12), and each
// counter track's scale as high in both runs, though the queue of run A
// grows deeper than B's.
func TestCompareOneScale(t *testing.T) {
	sc := sim.Scenario{V: sim.Version, Primitive: sim.WorkQueue, Seed: 3, Limit: 12, Speed: 1,
		Bursts: []sim.Burst{{Count: 60, MinMS: 300, MaxMS: 900}}}
	drv, _, _, pa, pb := compareDrivers(t, sc, 16, 500*time.Millisecond, 1000)
	if drv.tl.laneH != drv.cmp.tl.laneH {
		t.Errorf("run A's lanes are %v px tall and run B's %v px (A has %d rows, B %d), want one height", drv.tl.laneH, drv.cmp.tl.laneH, len(drv.tl.rows), len(drv.cmp.tl.rows))
	}
	ta, _ := scaleTops(pa)
	tb, _ := scaleTops(pb)
	if len(ta) != 2 || strings.Join(ta, " ") != strings.Join(tb, " ") {
		t.Errorf("run A's tracks are drawn to tops %q and run B's to %q, want two, the same", ta, tb)
	}
}

// TestTrackTopsClearOfThePlot checks that the tops of the counter
// tracks' scales are written left of the plot, on a desktop and on a
// phone, where the now-line (here at the plot's right end, as in a
// finished run), the grid and the tracks' lines never reach.
func TestTrackTopsClearOfThePlot(t *testing.T) {
	ps, _ := sim.PresetByID("compare-parallelism")
	for _, w := range []float64{1000, 340} {
		t.Run(fmt.Sprintf("width=%v", w), func(t *testing.T) {
			drv, a, b, _, _ := compareDrivers(t, ps.Scenario, 4, 0, w)
			setPlayingBoth(a, b, true)
			for i := 0; i < 100 && bothPhase(a.Phase(), b.Phase()) != "finished"; i++ {
				drv.tick(nopPainter{}, time.Second, float64(time.Now().UnixMilli()), w, 300, Point{}, true)
			}
			drv.apply(input{Kind: inputFit})
			var p TestPainter
			drv.tick(&p, 0, float64(time.Now().UnixMilli()), w, 300, Point{}, true)
			tops, at := scaleTops(&p)
			if len(tops) != 2 {
				t.Fatalf("%d track tops drawn (%q), want 2", len(tops), tops)
			}
			nowX := drv.tl.plotL + float64(drv.frame.Now-drv.frame.From)/float64(drv.frame.To-drv.frame.From)*(drv.tl.plotR-drv.tl.plotL)
			if a.Phase() != "finished" || nowX < drv.tl.plotL+0.9*(drv.tl.plotR-drv.tl.plotL) {
				t.Fatalf("the now-line is at x %.0f of a plot %.0f to %.0f (phase %s), want a finished run's, at its right end", nowX, drv.tl.plotL, drv.tl.plotR, a.Phase())
			}
			for i, s := range tops {
				// TestPainter's text is 6 px a character; the tops are
				// drawn right-aligned.
				x0, x1 := at[i][0]-6*float64(len(s)), at[i][0]
				if x1 > drv.tl.plotL {
					t.Errorf("the track top %q is drawn over x %.0f to %.0f, want it left of the plot, which starts at %.0f (the now-line is at %.0f)", s, x0, x1, drv.tl.plotL, nowX)
				}
			}
		})
	}
}

// TestCompareKeysOnRunBPanBoth presses the arrow keys on run B's
// timeline: the one window both runs are drawn over moves, for both.
func TestCompareKeysOnRunBPanBoth(t *testing.T) {
	ps, _ := sim.PresetByID("compare-parallelism")
	drv, _, _, _, _ := compareDrivers(t, ps.Scenario, 4, 3*time.Second, 1000)
	for _, key := range []string{"ArrowLeft", "ArrowLeft", "ArrowRight"} {
		fa, fb := drv.frame, drv.cmp.frame
		drv.apply(input{Kind: inputKey, Key: key, B: true})
		drv.tick(nopPainter{}, 0, float64(time.Now().UnixMilli()), 1000, 300, Point{}, true)
		drv.drawB(nopPainter{}, 1000, 300, Point{})
		if drv.frame.From == fa.From || drv.cmp.frame.From == fb.From {
			t.Errorf("%s on run B: run A's window moved from %v to %v, run B's from %v to %v; want both moved", key, fa.From, drv.frame.From, fb.From, drv.cmp.frame.From)
		}
		if drv.frame.From != drv.cmp.frame.From || drv.frame.To != drv.cmp.frame.To {
			t.Errorf("%s on run B: run A shows %v..%v and run B %v..%v, want one window", key, drv.frame.From, drv.frame.To, drv.cmp.frame.From, drv.cmp.frame.To)
		}
	}
}

// TestClosingTheComparisonRedraws: once the comparison closes, run A is
// drawn alone at once, though it stands still (paused): the canvas showed
// both runs' window.
func TestClosingTheComparisonRedraws(t *testing.T) {
	ps, _ := sim.PresetByID("workqueue-cancel")
	drv, _, _, _, _ := compareDrivers(t, ps.Scenario, 6, 2*time.Second, 800)
	drv.b.Store(nil)
	if _, drew, _ := drv.tick(&TestPainter{}, 0, float64(time.Now().UnixMilli()), 800, 300, Point{}, false); !drew {
		t.Errorf("the first frame after the comparison closed drew nothing: the canvas keeps both runs")
	}
}
