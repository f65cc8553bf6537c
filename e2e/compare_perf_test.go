//go:build e2e && perf

package e2e

import (
	"fmt"
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
	type frames struct {
		N     int     `json:"n"`
		Sum   float64 `json:"sum"`
		P95   float64 `json:"p95"`
		Max   float64 `json:"max"`
		LiveA int     `json:"liveA"`
		LiveB int     `json:"liveB"`
		BarsA int     `json:"barsA"`
		BarsB int     `json:"barsB"`
	}
	const read = `(() => {
		const d = document.querySelector('#timeline').dataset;
		const db = document.querySelector('#timeline-b').dataset;
		const s = document.querySelector('#stats').dataset;
		const sb = document.querySelector('#stats-b').dataset;
		return {n: Number(d.frames || 0), sum: Number(d.frameSumMs || 0), p95: Number(d.frameP95Ms || 0),
			max: Number(d.frameMaxMs || 0), barsA: Number(d.bars || 0), barsB: Number(db.bars || 0),
			liveA: Number(s.running) + Number(s.waiting), liveB: Number(document.querySelector('#c-b-running').dataset.value) + Number(document.querySelector('#c-b-waiting').dataset.value)};
	})()`
	var before, after frames
	var ok bool
	b.run(t, "loading two runs of 1,000 live tasks",
		chromedp.Navigate(base+"/?v=2"+sim.ComparePrefix+c.Encode()),
		chromedp.WaitVisible(mounted),
		chromedp.Poll(`!!document.querySelector('#timeline-b') && !!document.querySelector('#stats-b') &&
			Number(document.querySelector('#stats').dataset.running) + Number(document.querySelector('#stats').dataset.waiting) === 1000 &&
			Number(document.querySelector('#c-b-running').dataset.value) + Number(document.querySelector('#c-b-waiting').dataset.value) === 1000 &&
			Number(document.querySelector('#timeline').dataset.frames) > 30`, &ok, chromedp.WithPollingTimeout(waitLong)),
		chromedp.Evaluate(read, &before),
	)
	b.run(t, "drawing frames",
		chromedp.Poll(fmt.Sprintf(`Number(document.querySelector('#timeline').dataset.frames) >= %d`, before.N+180),
			&ok, chromedp.WithPollingTimeout(waitLong)),
		chromedp.Evaluate(read, &after),
	)
	n := after.N - before.N
	report("frame time with two timelines (a comparison) of %d and %d tasks live, %d and %d bars drawn: mean %.2f ms over %d frames, p95 %.2f ms (last 120), worst %.2f ms; target <= 8 ms",
		after.LiveA, after.LiveB, after.BarsA, after.BarsB, (after.Sum-before.Sum)/float64(max(n, 1)), n, after.P95, after.Max)
	b.checkErrors(t)
	b.run(t, "leaving the page", chromedp.Navigate("about:blank"))
}
