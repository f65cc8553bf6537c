//go:build e2e && perf

package e2e

import (
	"testing"

	"github.com/chromedp/chromedp"

	"sluice/wasm/sim"
)

// comparePerf reports the time a frame takes with two 1,000-task
// timelines live: a comparison of sc against sc with twice its limit. A
// frame's time covers both runs' model updates and both drawings.
func comparePerf(t *testing.T, sc sim.Scenario) {
	c, err := sim.Compare(sc, sim.Change{Limit: sim.Int(2 * sc.Limit)})
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t)
	f := b.liveFrames(t, "loading two runs of 1,000 live tasks", base+"/?v=2"+sim.ComparePrefix+c.Encode(),
		`!!document.querySelector('#timeline-b') && !!document.querySelector('#stats-b') &&
			Number(document.querySelector('#stats').dataset.running) + Number(document.querySelector('#stats').dataset.waiting) === 1000 &&
			Number(document.querySelector('#c-b-running').dataset.value) + Number(document.querySelector('#c-b-waiting').dataset.value) === 1000`)
	report("frame time with two timelines (a comparison) of %d and %d tasks live, %d and %d bars drawn: mean %.2f ms over %d frames, p95 %.2f ms (last 120), worst %.2f ms; target <= 8 ms",
		f.after.Live, f.after.LiveB, f.after.Bars, f.after.BarsB, f.mean(), f.n(), f.after.P95, f.after.Max)
	b.checkErrors(t)
	b.run(t, "leaving the page", chromedp.Navigate("about:blank"))
}
