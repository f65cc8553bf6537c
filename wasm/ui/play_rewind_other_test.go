//go:build !(js && wasm)

package ui_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/wasm/sim"
	"sluice/wasm/ui"
)

// TestLinkMoment opens a link with t=: the page lands paused at that
// moment, and the address bar keeps it; played on, the run drops it. A
// t= that is no time gets a notice, and the run plays from the start.
func TestLinkMoment(t *testing.T) {
	ps, _ := sim.PresetByID("semaphore")
	base := link(ps.Scenario)
	at := strings.Replace(base, sim.LinkPrefix, "&t=1.500"+sim.LinkPrefix, 1)
	p, disp := mount(t, at, false)
	var html string
	for range 200 {
		ui.PlayFrame(disp, p, 100*time.Millisecond)
		disp.Consume()
		html = app.HTMLString(p)
		if attr(t, html, "rewind", "data-seeking") == "false" && attr(t, html, "stats", "data-now-ms") == "1500" {
			break
		}
	}
	if got := attr(t, html, "stats", "data-now-ms"); got != "1500" {
		t.Fatalf("a link with t=1.500 shows the run at %s ms", got)
	}
	if got := attr(t, html, "playground", "data-phase"); got != "paused" {
		t.Errorf("a link with t= opens %s, want paused", got)
	}
	if got := ui.PageURL(); !strings.Contains(got, "&t=1.500#s=") {
		t.Errorf("the address bar holds %q, want the moment kept", got)
	}
	ui.PlayFrame(disp, p, 100*time.Millisecond)
	disp.Consume()
	if got := attr(t, app.HTMLString(p), "stats", "data-now-ms"); got != "1500" {
		t.Errorf("paused at the link's moment, a frame moved the clock to %s ms", got)
	}

	for _, bad := range []string{"soon", "-2", "99999"} {
		t.Run(bad, func(t *testing.T) {
			p, disp := mount(t, strings.Replace(base, sim.LinkPrefix, fmt.Sprintf("&t=%s", bad)+sim.LinkPrefix, 1), false)
			ui.PlayFrame(disp, p, 100*time.Millisecond)
			disp.Consume()
			html := app.HTMLString(p)
			if got := attr(t, html, "message", "data-kind"); got != "error" || !strings.Contains(text(t, html, "message"), "t="+bad) {
				t.Errorf("a link with t=%s shows notice %s %q, want an error naming it", bad, got, text(t, html, "message"))
			}
			if got := attr(t, html, "playground", "data-phase"); got != "playing" {
				t.Errorf("a link with t=%s opens %s, want playing from the start", bad, got)
			}
		})
	}
}
