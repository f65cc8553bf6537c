//go:build !(js && wasm)

package ui_test

import (
	"testing"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/wasm/sim"
	"sluice/wasm/ui"
)

// BenchmarkPlayRender renders the page of a run with a full event log
// again, as a change of the page's own state (a button, a field) does.
func BenchmarkPlayRender(b *testing.B) {
	sc := sim.Scenario{V: sim.Version, Primitive: sim.WorkQueue, Seed: 1, Limit: 4, Speed: 10,
		Bursts: []sim.Burst{{Count: 1000, MinMS: 100, MaxMS: 500, Priority: sim.PriorityMix{Low: 1, Normal: 2, High: 1}}}}
	ui.SetLocation(link(sc))
	p := &ui.Play{}
	disp := app.NewClientTester(p)
	defer disp.Close()
	for range 100 {
		ui.PlayFrame(disp, p, 100*time.Millisecond)
		disp.Consume()
	}
	if n := ui.PlayLogLen(p); n < 200 {
		b.Fatalf("the event log shows %d events, want a full one", n)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		disp.Dispatch(app.Dispatch{Mode: app.Update, Source: p, Function: func(app.Context) {}})
		disp.Consume()
	}
}
