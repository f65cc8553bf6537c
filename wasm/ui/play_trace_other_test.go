//go:build !(js && wasm)

package ui_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/wasm/sim"
	"sluice/wasm/ui"
)

// TestPlayTraceTexts loads a trace into the playground: the cards that
// describe the live run (its goroutines in this tab, its virtual clock)
// say so no longer, and say it again once the page is back to live.
func TestPlayTraceTexts(t *testing.T) {
	ps, _ := sim.PresetByID("semaphore")
	sc := ps.Scenario
	sc.Speed = 10
	p, disp := mount(t, link(sc), false)
	frames(t, p, disp)
	live := app.HTMLString(p)
	for _, w := range []string{"live in this tab", "virtual time"} {
		if !strings.Contains(live, w) {
			t.Errorf("the live run's page does not say %q", w)
		}
	}

	showOwnTrace(t, p)
	ui.PlayFrame(disp, p, 100*time.Millisecond)
	disp.Consume()
	shown := app.HTMLString(p)
	if got := attr(t, shown, "playground", "data-phase"); got != "replay" {
		t.Fatalf("data-phase = %q with a trace loaded, want replay", got)
	}
	for _, bad := range []string{"live in this tab", "virtual time"} {
		if strings.Contains(shown, bad) {
			t.Errorf("with a trace shown, the page says %q", bad)
		}
	}
	if !strings.Contains(shown, "the trace&#39;s own times") {
		t.Errorf("with a trace shown, the page does not say %q", "the trace's own times")
	}
	// What acts on the live run, or counts its goroutines, is not shown
	// (disabled, it said nothing of the trace).
	for _, id := range []string{`id="actions"`, `id="add-burst"`, `id="c-goroutines"`} {
		if strings.Contains(shown, id) {
			t.Errorf("with a trace shown, the page has %s", id)
		}
		if !strings.Contains(live, id) {
			t.Errorf("the live run's page has no %s", id)
		}
	}
}

// showOwnTrace loads the trace of the page's run into the page, as a
// person does with a downloaded one, and returns the page's session.
func showOwnTrace(t *testing.T, p *ui.Play) *ui.Session {
	t.Helper()
	s := ui.PlaySession(p)
	var buf bytes.Buffer
	if err := s.WriteTrace(&buf); err != nil {
		t.Fatal(err)
	}
	if err := s.LoadTrace(&buf, "run.json"); err != nil {
		t.Fatal(err)
	}
	return s
}
