package ui_test

import (
	"testing"
	"time"

	"sluice/wasm/sim"
	"sluice/wasm/ui"
)

// TestTimelineHeightReserved plays the presets whose lanes appear as the
// run goes (a lane per key, per consumer's handler goroutine), in the
// embed's compact timeline and the page's: the first frame is as tall as
// any later one, so that the embed's frame does not grow in steps (a
// layout shift in the page that hosts it).
func TestTimelineHeightReserved(t *testing.T) {
	for _, id := range []string{"keyed-devices", "consumers", "shared-limit"} {
		for _, compact := range []bool{true, false} {
			name := id
			if compact {
				name += "/embed"
			}
			t.Run(name, func(t *testing.T) {
				ps, ok := sim.PresetByID(id)
				if !ok {
					t.Fatalf("no preset %q", id)
				}
				s, err := ui.NewSession(ps.Scenario, ps.ID)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				s.SetPlaying(true)
				tl := ui.NewTimeline(compact)
				var p ui.TestPainter
				ui.DrawFrame(tl, &p, s, 0, 800, ui.Point{})
				first, lanes := tl.Height, tl.Lanes
				grew := 0
				for range 300 {
					p = ui.TestPainter{}
					ui.DrawFrame(tl, &p, s, 100*time.Millisecond, 800, ui.Point{})
					if tl.Height > first {
						grew++
						t.Errorf("the timeline grew from %v to %v px as lanes appeared (%d, then %d)", first, tl.Height, lanes, tl.Lanes)
						first = tl.Height
					}
					lanes = max(lanes, tl.Lanes)
				}
				if lanes <= 1 {
					t.Errorf("at most %d lanes drawn: the preset shows no lanes appearing", lanes)
				}
			})
		}
	}
}
