package ui

import (
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/wasm/sim"
)

// TestSideHeld renders the page of a loaded trace with its side column
// held (sideHeld): the side column and the code card stay the live run's,
// and data-phase says so, until a render after lets them go.
func TestSideHeld(t *testing.T) {
	p := &Play{mounted: true}
	p.sc = sim.Presets()[0].Scenario
	p.panel.Phase, p.panel.Replay = "replay", "big.json"
	p.sideHeld.Store(true)
	held := app.HTMLString(p.Render())
	p.sideHeld.Store(false)
	shown := app.HTMLString(p.Render())
	for _, c := range []struct {
		html, phase string
		want, not   []string
	}{
		{held, "opening", []string{`id="code-text"`, `id="color-by"`}, []string{`id="trace-card"`, `id="code-none"`}},
		{shown, "replay", []string{`id="trace-card"`, `id="code-none"`}, []string{`id="code-text"`, `id="color-by"`}},
	} {
		if !strings.Contains(c.html, `data-phase="`+c.phase+`"`) {
			t.Errorf("held %v: the page's data-phase is not %q", c.phase == "opening", c.phase)
		}
		for _, w := range c.want {
			if !strings.Contains(c.html, w) {
				t.Errorf("held %v: the page has no %s", c.phase == "opening", w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(c.html, n) {
				t.Errorf("held %v: the page has %s", c.phase == "opening", n)
			}
		}
	}
}
