//go:build !(js && wasm)

package ui_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/core/trace/tracetest"
	"sluice/wasm/sim"
	"sluice/wasm/ui"
)

// TestTraceShowsWhatApplies loads another tool's trace, whose slices start
// as they begin: the page draws no waiting rows or waiting track and shows
// no waiting, oldest-wait or refused counter, no table of waits, and no
// High/Low swatches for a trace of one priority. A trace the playground
// wrote, whose tasks waited, keeps its queue and its waits.
func TestTraceShowsWhatApplies(t *testing.T) {
	ps, _ := sim.PresetByID("workqueue-cancel")
	sc := ps.Scenario
	sc.Speed = 10
	p, disp := mount(t, link(sc), false)
	frames(t, p, disp)
	s := ui.PlaySession(p)
	var own bytes.Buffer
	if err := s.WriteTrace(&own); err != nil {
		t.Fatal(err)
	}

	show := func(t *testing.T, file, name string) (string, []string) {
		t.Helper()
		if err := s.LoadTrace(strings.NewReader(file), name); err != nil {
			t.Fatal(err)
		}
		ui.PlayFrame(disp, p, 100*time.Millisecond)
		disp.Consume()
		html := app.HTMLString(p)
		if got := attr(t, html, "playground", "data-phase"); got != "replay" {
			t.Fatalf("data-phase = %q with a trace loaded, want replay", got)
		}
		tl := ui.NewTimeline(false)
		var tp ui.TestPainter
		ui.DrawFrame(tl, &tp, s, 0, 1000, ui.Point{})
		return html, tp.Texts
	}
	has := func(texts []string, prefix string) bool {
		return slices.ContainsFunc(texts, func(s string) bool { return strings.HasPrefix(s, prefix) })
	}

	t.Run("foreign", func(t *testing.T) {
		html, texts := show(t, tracetest.Chromium, "chrome.json")
		for _, id := range []string{"c-waiting", "c-oldest-wait", "c-refused", "waits"} {
			if strings.Contains(html, `id="`+id+`"`) {
				t.Errorf("another tool's trace shows #%s, which does not apply to it", id)
			}
		}
		for _, w := range []string{"sw-high", "sw-low", "sw-limit"} {
			if strings.Contains(html, `"swatch `+w+`"`) {
				t.Errorf("the legend of a trace of Normal tasks with no limit shows %s", w)
			}
		}
		for _, bad := range []string{"High waiting", "Normal waiting", "Low waiting", "waiting "} {
			if has(texts, bad) {
				t.Errorf("the timeline of another tool's trace draws %q; it draws %q", bad, texts)
			}
		}
		if !has(texts, "running ") {
			t.Errorf("the timeline draws no running track: %q", texts)
		}
		if !strings.Contains(html, `id="c-running"`) {
			t.Errorf("the running counter is gone")
		}
		// What is shown is said in the transport bar, where the run's
		// controls, which a trace does not have, were.
		if got := text(t, html, "replay-status"); !strings.Contains(got, "chrome.json") || !strings.Contains(got, "read-only") {
			t.Errorf("the transport bar says %q, want it to name the trace and say it is read-only", got)
		}
		if strings.Contains(html, `id="speed"`) {
			t.Errorf("the transport bar shows the run's speed while a trace is shown")
		}
	})
	t.Run("own", func(t *testing.T) {
		html, texts := show(t, own.String(), "run.json")
		for _, id := range []string{"c-waiting", "c-oldest-wait", "waits"} {
			if !strings.Contains(html, `id="`+id+`"`) {
				t.Errorf("a trace whose tasks waited does not show #%s", id)
			}
		}
		for _, want := range []string{"High waiting", "waiting "} {
			if !has(texts, want) {
				t.Errorf("the timeline of a trace whose tasks waited does not draw %q; it draws %q", want, texts)
			}
		}
	})
}
