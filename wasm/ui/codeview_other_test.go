//go:build !(js && wasm)

package ui_test

import (
	"strings"
	"testing"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/wasm/sim"
	"sluice/wasm/ui"
)

// TestCodeCardRendersPerScenario plays a run, whose panel the page
// renders several times a second: the code card, a child component, is
// not rendered again (nor its program written again) while the scenario
// stays the same, and is when a burst changes it.
func TestCodeCardRendersPerScenario(t *testing.T) {
	ps := sim.Presets()[0]
	p, disp := mount(t, link(ps.Scenario), false)
	before := ui.CodeRenders(p)
	if before < 1 {
		t.Fatalf("the code card rendered %d times once mounted, want it mounted", before)
	}
	for range 30 {
		ui.PlayFrame(disp, p, 100*time.Millisecond)
		disp.Consume()
	}
	if got := ui.CodeRenders(p); got != before {
		t.Errorf("the code card rendered %d times over 30 frames of an unchanged scenario, want 0", got-before)
	}
	ui.SubmitBurst(disp, p, sim.Burst{Count: 7, MinMS: 100, MaxMS: 200, Weight: 1, Outcome: sim.OutcomeMix{OK: 1}})
	disp.Consume()
	for range 3 {
		ui.PlayFrame(disp, p, 100*time.Millisecond)
		disp.Consume()
	}
	if got := ui.CodeRenders(p); got == before {
		t.Errorf("the code card did not render again once a burst changed the scenario")
	}
	html := app.HTMLString(p)
	i := strings.Index(html, `id="code-text"`)
	if i < 0 || !strings.Contains(html[i:], "count: 7,") {
		t.Errorf("the code card does not show the program with the burst of 7 added")
	}
}
