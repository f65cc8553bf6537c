package ui_test

import (
	"runtime"
	"testing"
	"time"

	"sluice/wasm/sim"
	"sluice/wasm/ui"
)

func TestZZSeekCheckpoints(t *testing.T) {
	runtime.GOMAXPROCS(1)
	defer ui.SetCheckpointFrom(1000)()
	sc := sim.Scenario{V: sim.Version, Primitive: sim.WorkQueue, Seed: 1, Limit: 50,
		Bursts: []sim.Burst{{Count: 10000, MinMS: 100, MaxMS: 500, Priority: sim.PriorityMix{Low: 1, Normal: 2, High: 1}}}}
	s, _ := ui.NewSession(sc, "")
	defer s.Close()
	s.Seek(time.Hour)
	start := time.Now()
	for len(ui.SessionCheckpoints(s)) < 5 {
		s.Frame(0, ui.SpanFor)
	}
	t.Logf("built %v in %v", ui.SessionCheckpoints(s), time.Since(start))
	for _, frac := range []float64{0.9, 0.1, 0.5, 0.3, 0.7} {
		for len(ui.SessionCheckpoints(s)) < 5 {
			s.Frame(0, ui.SpanFor)
		}
		at := time.Duration(frac * 60 * float64(time.Second)).Truncate(100 * time.Millisecond)
		t0 := time.Now()
		s.Seek(at)
		t1 := time.Now()
		s.Panel()
		t2 := time.Now()
		s.Frame(0, ui.SpanFor)
		t.Logf("seek %v: %v, panel %v, frame %v; cps %v", at, t1.Sub(t0), t2.Sub(t1), time.Since(t2), ui.SessionCheckpoints(s))
	}
}
