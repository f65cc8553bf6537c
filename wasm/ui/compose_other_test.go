//go:build !(js && wasm)

package ui_test

import (
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/wasm/sim"
	"sluice/wasm/ui"
)

// TestBurstFormNextToAddBurst opens the burst's settings: they are under
// "Add burst", in the timeline's section, not in the side column; a burst
// refused marks the inputs it is refused for (aria-invalid and the
// problem under each), opens the settings, and an accepted one clears
// the marks.
func TestBurstFormNextToAddBurst(t *testing.T) {
	ps, _ := sim.PresetByID("semaphore")
	p, disp := mount(t, link(ps.Scenario), false)
	html := app.HTMLString(p)
	actions := strings.Index(html, `id="actions"`)
	compose := strings.Index(html, `id="compose"`)
	side := strings.Index(html, `class="side"`)
	if actions < 0 || compose < 0 || compose < actions {
		t.Fatalf("the burst's settings (at %d) do not follow Add burst's row (at %d)", compose, actions)
	}
	if side >= 0 && side < compose && strings.Index(html[side:], `id="burst-count"`) >= 0 && strings.Index(html[side:], `id="burst-count"`) < strings.Index(html[side:], `id="actions"`) {
		t.Errorf("the burst's fields are in the side column")
	}
	if got := attr(t, html, "compose", "hidden"); got == "" {
		t.Errorf("the burst's settings show before they are opened")
	}
	if got := attr(t, html, "compose-toggle", "aria-expanded"); got != "false" {
		t.Errorf("Burst settings aria-expanded = %q before opening, want false", got)
	}
	ui.ToggleCompose(disp, p)
	disp.Consume()
	html = app.HTMLString(p)
	if got := attr(t, html, "compose-toggle", "aria-expanded"); got != "true" {
		t.Errorf("Burst settings aria-expanded = %q once opened, want true", got)
	}
	if strings.Contains(attrTag(html, "compose"), "hidden") {
		t.Errorf("the burst's settings stay hidden once opened")
	}
	ui.ToggleCompose(disp, p)
	disp.Consume()

	bad := sim.Burst{Count: 0, MinMS: 500, MaxMS: 100, Weight: 9, Outcome: sim.OutcomeMix{OK: 1}}
	ui.SubmitBurst(disp, p, bad)
	disp.Consume()
	html = app.HTMLString(p)
	for id, want := range map[string]string{
		"burst-count":  "at least one task",
		"burst-max":    "longest duration",
		"burst-weight": "weight",
	} {
		if got := attr(t, html, id, "aria-invalid"); got != "true" {
			t.Errorf("#%s aria-invalid = %q after a burst refused for it, want true", id, got)
		}
		if got := attr(t, html, id, "aria-describedby"); got != id+"-error" {
			t.Errorf("#%s aria-describedby = %q, want %s-error", id, got, id)
		}
		if got := text(t, html, id+"-error"); !strings.Contains(got, want) {
			t.Errorf("under #%s: %q, want it to say %q", id, got, want)
		}
	}
	for _, id := range []string{"burst-min", "mix-ok"} {
		if got := attr(t, html, id, "aria-invalid"); got != "false" {
			t.Errorf("#%s aria-invalid = %q, want false: the burst was not refused for it", id, got)
		}
	}
	if strings.Contains(attrTag(html, "compose"), "hidden") {
		t.Errorf("a refused burst leaves its settings closed")
	}
	if got := text(t, html, "burst-problems"); !strings.Contains(got, "3 fields") {
		t.Errorf("the settings say %q, want them to count the 3 fields to fix", got)
	}

	ui.SubmitBurst(disp, p, sim.Burst{Count: 2, MinMS: 100, MaxMS: 200, Weight: 1, Outcome: sim.OutcomeMix{OK: 1}})
	disp.Consume()
	html = app.HTMLString(p)
	if got := attr(t, html, "burst-count", "aria-invalid"); got != "false" {
		t.Errorf("#burst-count aria-invalid = %q after a burst was added, want false", got)
	}
	if strings.Contains(html, `id="burst-problems"`) {
		t.Errorf("the problems stay after a burst was added")
	}
}

// attrTag returns the opening tag of the element with the given ID.
func attrTag(html, id string) string {
	i := strings.Index(html, `id="`+id+`"`)
	if i < 0 {
		return ""
	}
	start := strings.LastIndex(html[:i], "<")
	end := strings.Index(html[i:], ">")
	return html[start : i+end+1]
}
