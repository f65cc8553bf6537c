//go:build e2e && perf

package e2e

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"sluice/wasm/sim"
)

// TestPerfRewind reports, without asserting, how long the page takes to
// land on a moment of a finished 10,000-task run when the scrubber is set
// to it: from the input event to the page showing the run at that moment
// (moved on from the latest checkpoint before the moment, or from where
// the run is), once the paused page has built its checkpoints; and how
// long building them takes. make perf runs it.
func TestPerfRewind(t *testing.T) {
	sc := sim.Scenario{V: sim.Version, Primitive: sim.WorkQueue, Seed: 1, Limit: 50, Speed: 10,
		Bursts: []sim.Burst{{Count: sim.MaxTasks, MinMS: 100, MaxMS: 500, Priority: sim.PriorityMix{Low: 1, Normal: 2, High: 1}}}}
	b := newBrowser(t)
	b.run(t, "opening a 10,000-task run",
		chromedp.Navigate(base+"/?v=2"+sim.LinkPrefix+sc.Encode()),
		chromedp.WaitVisible(mounted),
	)
	b.finishedWith(t, "waiting for the 10,000 tasks to finish", sim.MaxTasks)
	var end int
	b.run(t, "reading the run's end", chromedp.Evaluate(`Number(document.querySelector('#stats').dataset.nowMs)`, &end))

	// Paused, the page builds checkpoints (runs parked at 0 and at each
	// fifth of the run's events) in each frame's spare time; a landing
	// uses one up, and the next frames build it again.
	const built = `document.querySelector('#rewind').dataset.building === "false"`
	var ok bool
	b.run(t, "watching for long tasks", chromedp.Evaluate(`(() => {
		window.sluiceLong = [];
		new PerformanceObserver((l) => {
			for (const e of l.getEntries()) {
				window.sluiceLong.push(e.duration);
				(window.sluiceLongTasks ||= []).push([e.startTime, e.duration]); // profileStop's
			}
		}).observe({type: "longtask"});
		return true;
	})()`, &ok))
	b.profileStart(t, "SLUICE_PERF_PROFILE_CHECKPOINTS")
	b.run(t, "pausing at the end", chromedp.Evaluate(`(() => {
		const el = document.querySelector('#scrubber');
		el.value = el.max;
		el.dispatchEvent(new Event('input', {bubbles: true}));
		return true;
	})()`, &ok))
	start := time.Now()
	b.run(t, "waiting for the checkpoints", chromedp.Poll(built, &ok, chromedp.WithPollingTimeout(waitLong)))
	building := time.Since(start)
	b.profileStop(t, "SLUICE_PERF_PROFILE_CHECKPOINTS")
	var long []float64
	b.run(t, "reading the long tasks", chromedp.Evaluate(`window.sluiceLong.splice(0)`, &long))
	report("checkpoints of the 10,000-task run built in the paused page's spare frame time: %.1f s, longest main-thread task %.0f ms, %d over 50 ms",
		building.Seconds(), slices.Max(append(long, 0)), len(long))

	// Landings once the paused page has built its checkpoints (a seek
	// uses one up, or parks the run it leaves, and the page builds what
	// is missing), then the same landings one right after another.
	b.profileStart(t, "SLUICE_PERF_PROFILE_REWIND")
	settled := b.landings(t, end, end, true)
	b.profileStop(t, "SLUICE_PERF_PROFILE_REWIND")
	b.run(t, "reading the long tasks", chromedp.Evaluate(`window.sluiceLong.splice(0)`, &long))
	report("landing anywhere in a 10,000-task run (%s s long), once the paused page has built its checkpoints, scrubber input to the page at that moment: %s; target <= 100 ms",
		fmt.Sprintf("%.1f", float64(end)/1000), settled)
	report("main-thread tasks over 50 ms while landing: %d, longest %.0f ms", len(long), slices.Max(append(long, 0)))
	rapid := b.landings(t, end, 4*end/10/100*100, false)
	report("the same landings one right after another, before the page has built again the checkpoints a landing used up: %s", rapid)
	b.checkErrors(t)
	b.run(t, "leaving the page", chromedp.Navigate("about:blank"))
}

// landings lands on ten moments of a paused run of length end, now at
// from, each from the scrubber as a person sets it, waiting before each
// for the page to have built its checkpoints if settle is set; and says
// how long the landings took, back and forward, and how long
// Session.Seek took of it.
func (b *browser) landings(t *testing.T, end, from int, settle bool) string {
	var back, fwd, seeks []float64
	now := from
	for _, frac := range []float64{0.9, 0.1, 0.5, 0.3, 0.7, 0.2, 0.95, 0.05, 0.6, 0.4} {
		at := int(frac*float64(end)) / 100 * 100 // the scrubber's step is 100 ms on a run this long
		if settle {
			var ok bool
			b.run(t, "waiting for the checkpoints", chromedp.Poll(`document.querySelector('#rewind').dataset.building === "false"`,
				&ok, chromedp.WithPollingTimeout(waitLong)))
		}
		var ms float64
		b.run(t, fmt.Sprintf("landing on %d ms", at),
			chromedp.Evaluate(fmt.Sprintf(`(() => {
				const el = document.querySelector('#scrubber');
				el.value = "%d";
				window.sluiceSeekStart = performance.now();
				el.dispatchEvent(new Event('input', {bubbles: true}));
				return true;
			})()`, at), new(bool)),
			chromedp.Poll(fmt.Sprintf(`(() => {
				const rw = document.querySelector('#rewind').dataset;
				const s = document.querySelector('#stats').dataset;
				return rw.seeking === "false" && Number(s.nowMs) === %d && performance.now() - window.sluiceSeekStart;
			})()`, at), &ms, chromedp.WithPollingTimeout(waitLong), chromedp.WithPollingInterval(2e6)),
		)
		var seek float64
		b.run(t, "reading the seek's own time", chromedp.Evaluate(`Number(document.querySelector('#rewind').dataset.seekMs)`, &seek))
		seeks = append(seeks, seek)
		if at < now {
			back = append(back, ms)
		} else {
			fwd = append(fwd, ms)
		}
		now = at
	}
	slices.Sort(back)
	slices.Sort(fwd)
	slices.Sort(seeks)
	return fmt.Sprintf("back median %.0f ms, worst %.0f ms over %d; forward median %.0f ms, worst %.0f ms over %d; of which Session.Seek (the run moved to the moment) median %.0f ms, worst %.0f ms",
		back[len(back)/2], back[len(back)-1], len(back), fwd[len(fwd)/2], fwd[len(fwd)-1], len(fwd), seeks[len(seeks)/2], seeks[len(seeks)-1])
}
