package ui_test

import (
	"strings"
	"testing"

	"sluice/wasm/sim"
	"sluice/wasm/ui"
)

// nestedTrace is a Chromium trace whose thread has a slice inside a
// slice: its lanes are "Browser / CrBrowserMain" and the same name
// followed by " · depth 1".
const nestedTrace = `{"traceEvents":[
	{"ph":"M","pid":1,"tid":0,"name":"process_name","args":{"name":"Browser"}},
	{"ph":"M","pid":2,"tid":0,"name":"process_name","args":{"name":"Renderer"}},
	{"ph":"M","pid":1,"tid":11,"name":"thread_name","args":{"name":"CrBrowserMain"}},
	{"ph":"M","pid":2,"tid":21,"name":"thread_name","args":{"name":"CrRendererMain"}},
	{"ph":"X","pid":1,"tid":11,"ts":1000000,"dur":100000,"name":"RunTask"},
	{"ph":"X","pid":1,"tid":11,"ts":1010000,"dur":50000,"name":"Layout"},
	{"ph":"X","pid":2,"tid":21,"ts":1005000,"dur":90000,"name":"Parse"}
]}`

// TestLaneLabelsKeepTheirSuffix draws a foreign trace on a phone's
// width, where its lane names do not fit: each is shortened, and the
// depth that tells a thread's lanes apart stays whole, after the thread's
// name (the process is named on the thread's own lane, just above).
func TestLaneLabelsKeepTheirSuffix(t *testing.T) {
	s, err := ui.NewSession(sim.Presets()[0].Scenario, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.LoadTrace(strings.NewReader(nestedTrace), "chrome.json"); err != nil {
		t.Fatal(err)
	}
	for _, compact := range []bool{false, true} {
		tl := ui.NewTimeline(compact)
		var p ui.TestPainter
		ui.DrawFrame(tl, &p, s, 0, 360, ui.Point{})
		var depth, shortened []string
		for _, text := range p.Texts {
			if strings.HasSuffix(text, " · depth 1") {
				depth = append(depth, text)
			}
			if strings.Contains(text, "…") {
				shortened = append(shortened, text)
			}
		}
		if len(depth) != 1 || !strings.HasPrefix(depth[0], "CrBrow") || !strings.Contains(depth[0], "…") {
			t.Errorf("compact %v: the lanes of depth 1 are drawn as %q, want one, shortened, that starts \"CrBrow\" (its thread) and ends \" · depth 1\" (texts %q)",
				compact, depth, p.Texts)
		}
		if len(shortened) < 3 {
			t.Errorf("compact %v: %q shortened, want the three lane names: the test wants names too long for the width", compact, shortened)
		}
	}
}
