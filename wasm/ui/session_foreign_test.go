package ui_test

import (
	"strings"
	"testing"

	"sluice/core/trace/tracetest"
	"sluice/wasm/sim"
	"sluice/wasm/ui"
)

// TestLoadForeignTraceSaysWhatIsLeftOut loads another tool's trace: the
// page counts and names the events it does not show, says which slices
// never end, shows a lane per thread and depth (no lane the trace does
// not have), and measures throughput over the trace's own 0.25 s.
func TestLoadForeignTraceSaysWhatIsLeftOut(t *testing.T) {
	s, err := ui.NewSession(sim.Presets()[0].Scenario, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.LoadTrace(strings.NewReader(tracetest.Chromium), "chrome.json"); err != nil {
		t.Fatal(err)
	}
	pn := s.Panel()
	for _, want := range []string{"7 events: 3 instant, 2 flow, 1 async, 1 counter sample", "1 slice never ends in the trace"} {
		if !strings.Contains(pn.Omitted, want) {
			t.Errorf("the note on what is not shown is %q, want it to say %q", pn.Omitted, want)
		}
	}
	// 3 slices ended (RunTask, Layout, Paint) in the 0.25 s from the
	// trace's first event to its last.
	if got, want := pn.Throughput, 3/0.25; got < want*0.99 || got > want*1.01 {
		t.Errorf("throughput %.2f/s, want %.2f/s: the ended slices over the trace's span", got, want)
	}
	fr := s.Frame(0, 0)
	var lanes []string
	for _, l := range fr.Snap.Lanes {
		lanes = append(lanes, l.Name)
		if strings.HasPrefix(l.Name, "slot ") {
			t.Errorf("lane %q: a lane the trace does not have", l.Name)
		}
	}
	if want := "Browser / CrBrowserMain,Browser / CrBrowserMain · depth 1,Renderer / CrRendererMain"; strings.Join(lanes, ",") != want {
		t.Errorf("lanes %q, want %q", lanes, want)
	}
	if end := fr.Origin.Add(fr.Now).UnixMicro(); end != 1_250_000 {
		t.Errorf("the replay ends at ts %d µs, want at the trace's last event, ts 1,250,000 µs", end)
	}
}
