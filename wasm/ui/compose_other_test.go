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

// TestComposerKeepsItsState types a list the composer refuses: the text
// stays as typed, the input is marked (aria-invalid, the reason under
// it), "Add burst" refuses to run and opens the settings on it; all of it
// is the composer's own state, kept while the page renders again, while
// a loaded trace is shown and back to live, until the text is fixed. A
// preset chosen, a comparison's included, brings back the first burst.
func TestComposerKeepsItsState(t *testing.T) {
	ps, _ := sim.PresetByID("semaphore")
	sc := ps.Scenario
	sc.Speed = 10
	p, disp := mount(t, link(sc), false)
	ui.TypeList(disp, p, "burst-levels", "5, high")
	disp.Consume()
	ui.ClickAddForm(disp, p, 5)
	disp.Consume()
	marked := func(when string) {
		t.Helper()
		html := app.HTMLString(p)
		if got := attr(t, html, "burst-levels", "value"); got != "5, high" {
			t.Errorf("%s: #burst-levels shows %q, want the text as typed", when, got)
		}
		if got := attr(t, html, "burst-levels", "aria-invalid"); got != "true" {
			t.Errorf("%s: #burst-levels aria-invalid = %q, want true", when, got)
		}
		if got := text(t, html, "burst-levels-error"); !strings.Contains(got, `"high" is not a whole number`) {
			t.Errorf("%s: under #burst-levels: %q, want the reason", when, got)
		}
		if got := text(t, html, "burst-problems"); !strings.Contains(got, "fix the field marked below") {
			t.Errorf("%s: the settings say %q, want them to name the field to fix", when, got)
		}
		if strings.Contains(attrTag(html, "compose"), "hidden") {
			t.Errorf("%s: the settings are hidden, want them open on the refused input", when)
		}
	}
	marked("after Add burst")
	if msg := text(t, app.HTMLString(p), "message"); !strings.Contains(msg, "fix it before adding work") {
		t.Errorf("notice after adding with a bad list = %q", msg)
	}
	for range 5 {
		ui.PlayFrame(disp, p, 100*time.Millisecond)
		disp.Consume()
	}
	marked("after the page rendered again")

	s := showOwnTrace(t, p)
	ui.PlayFrame(disp, p, 100*time.Millisecond)
	disp.Consume()
	if html := app.HTMLString(p); strings.Contains(html, `id="burst-levels"`) {
		t.Errorf("with a trace shown, the page has the burst's settings")
	}
	s.BackToLive()
	ui.PlayFrame(disp, p, 100*time.Millisecond)
	disp.Consume()
	marked("back to live")

	ui.TypeList(disp, p, "burst-levels", "5, -3")
	disp.Consume()
	html := app.HTMLString(p)
	if got := attr(t, html, "burst-levels", "aria-invalid"); got != "false" {
		t.Errorf("#burst-levels aria-invalid = %q once fixed, want false", got)
	}
	if strings.Contains(html, `id="burst-problems"`) || strings.Contains(html, `id="burst-levels-error"`) {
		t.Errorf("the marks stay once the list is fixed")
	}
	if got := attr(t, html, "message", "data-kind"); got != "none" {
		t.Errorf("the notice is %q once the list is fixed, want none", got)
	}

	ui.SubmitBurst(disp, p, sim.Burst{Count: 0, MinMS: 10, MaxMS: 20, Weight: 1, Outcome: sim.OutcomeMix{OK: 1}})
	disp.Consume()
	if got := attr(t, app.HTMLString(p), "burst-count", "aria-invalid"); got != "true" {
		t.Fatalf("#burst-count aria-invalid = %q after a burst of 0 tasks, want true", got)
	}
	for _, id := range []string{"compare-parallelism", "semaphore"} {
		ui.ClickPreset(disp, p, id)
		disp.Consume()
		html = app.HTMLString(p)
		if strings.Contains(html, `aria-invalid="true"`) || strings.Contains(html, `id="burst-problems"`) {
			t.Errorf("after choosing preset %s, inputs stay marked", id)
		}
		if got := attr(t, html, "burst-count", "value"); got != "10" {
			t.Errorf("after choosing preset %s, #burst-count shows %q, want the first burst's 10", id, got)
		}
		if tag := attrTag(html, "burst-levels"); strings.Contains(tag, `value="5, -3"`) {
			t.Errorf("after choosing preset %s, #burst-levels keeps the levels typed: %s", id, tag)
		}
		// A preset's first burst is ready again, and the settings stay
		// as the person left them.
		if strings.Contains(attrTag(html, "compose"), "hidden") {
			t.Errorf("after choosing preset %s, the settings closed", id)
		}
		ui.SubmitBurst(disp, p, sim.Burst{Count: 0, MinMS: 10, MaxMS: 20, Weight: 1, Outcome: sim.OutcomeMix{OK: 1}})
		disp.Consume()
	}
}
