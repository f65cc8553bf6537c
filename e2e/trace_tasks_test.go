//go:build e2e

package e2e

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestTraceRendersOutsideFrames loads a trace and checks that the page's
// renders of it (the panels that change for a trace, then the side column
// and the code card, then the event log's rows) each run in a task of
// their own, never in an animation frame's callback: there the render
// would share a task with the timeline's drawing and the browser's layout
// of what the render changed, one task of 50-80 ms on a small machine
// with a large trace (make perf reports the longest). The page's own
// animation frame callbacks are wrapped to see what changed the document
// while each ran.
func TestTraceRendersOutsideFrames(t *testing.T) {
	const maxInFrame = 4
	t.Parallel()
	const n = 20_000
	file := foreignTrace(t, n, 8, 5_000_000, 50, 40)
	b := newBrowser(t)
	var ok bool
	b.run(t, "opening the playground, paused",
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(mounted),
		chromedp.WaitVisible(`#timeline[data-interactive="true"]`),
		chromedp.Click("#play", chromedp.ByQuery),
		chromedp.Evaluate(`(() => {
			const seen = new MutationObserver(() => {});
			seen.observe(document.body, {subtree: true, childList: true, characterData: true});
			window.sluiceInFrames = [];
			const raf = window.requestAnimationFrame;
			window.requestAnimationFrame = function(cb) {
				return raf.call(window, function(ts) {
					seen.takeRecords();
					try { return cb.call(this, ts); } finally {
						const recs = seen.takeRecords();
						if (recs.length > 0) {
							const where = new Set(recs.map((r) => {
								const e = r.target.nodeType === 1 ? r.target : r.target.parentElement;
								const w = e && e.closest('section, .transport, [id]');
								return !w ? "?" : w.id ? "#" + w.id : "." + (w.classList[0] || w.tagName.toLowerCase());
							}));
							window.sluiceInFrames.push({n: recs.length, where: [...where].join(" ")});
						}
					}
				});
			};
			return true;
		})()`, &ok),
	)
	b.run(t, "loading the trace",
		chromedp.SetUploadFiles("#load-trace", []string{file}, chromedp.ByQuery),
		chromedp.Poll(fmt.Sprintf(`document.querySelector('#playground').dataset.phase === "replay" && Number(document.querySelector('#timeline').dataset.tasks) === %d`, n),
			&ok, chromedp.WithPollingTimeout(waitLong)),
		chromedp.Poll(`document.querySelectorAll('#log li:not(.log-spacer)').length > 0 && !document.querySelector('.log-held')`, &ok, chromedp.WithPollingTimeout(waitLong)),
	)
	var in []struct {
		N     int    `json:"n"`
		Where string `json:"where"`
	}
	b.run(t, "reading what changed in animation frames", chromedp.Evaluate(`window.sluiceInFrames`, &in))
	for _, c := range in {
		// A note's text (the reading's progress) may change in one; a
		// render of the trace's panels changes dozens of nodes.
		if c.N > maxInFrame {
			t.Errorf("an animation frame's callback changed the document %d times (in %s), want at most %d: a render of the trace's panels ran in it", c.N, c.Where, maxInFrame)
		}
	}
	t.Logf("changes in animation frames: %+v", in)
	b.checkErrors(t)
}
