//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// heavyHolder waits, in the "Async semaphore" preset, until the request
// holding the three tokens is drawn, pauses the run, and returns where
// the timeline says it drew it: its name, the lanes its bar covers, and
// the centre of the bar in the viewport.
func (b *browser) heavyHolder(t *testing.T) (name, lanes string, x, y float64) {
	t.Helper()
	var wide string
	b.run(t, "loading the Async semaphore preset",
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(mounted),
		chromedp.WaitVisible(`#timeline[data-interactive="true"]`),
		chromedp.Click("#preset-semaphore", chromedp.ByQuery),
		chromedp.Poll(`(() => { const w = document.querySelector('#timeline').dataset.wide;
			return Number(document.querySelector('#stats').dataset.nowMs) > 1600 && w; })()`, &wide, chromedp.WithPollingTimeout(waitLong)),
		chromedp.Click("#play", chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#playground').dataset.phase === "paused" && document.querySelector('#timeline').dataset.wide`,
			&wide, chromedp.WithPollingTimeout(waitLong)),
	)
	first, _, _ := strings.Cut(wide, "|")
	name, rest, _ := strings.Cut(first, ":")
	lanes, at, _ := strings.Cut(rest, "@")
	var cx, cy float64
	if _, err := fmt.Sscanf(at, "%g %g", &cx, &cy); err != nil {
		t.Fatalf("canvas data-wide = %q: %v", wide, err)
	}
	var rect struct{ Left, Top float64 }
	b.run(t, "finding the canvas", chromedp.Evaluate(`(() => {
		const c = document.querySelector('#timeline');
		c.scrollIntoView({block: "center"});
		const r = c.getBoundingClientRect();
		return {left: r.left, top: r.top};
	})()`, &rect))
	return name, lanes, rect.Left + cx, rect.Top + cy
}

// TestSemaphoreHolderLanes checks that in "Async semaphore" the request
// of weight 3 occupies the three token lanes, as one task: a tap on the
// middle of its bar, on token 2, opens its details, which name the three
// tokens. At desktop and phone size.
func TestSemaphoreHolderLanes(t *testing.T) {
	t.Parallel()
	eachSize(t, func(t *testing.T, b *browser, size string) {
		name, lanes, x, y := b.heavyHolder(t)
		if want := "token 1+token 2+token 3"; lanes != want {
			t.Errorf("%s is drawn across %q, want %q", name, lanes, want)
		}
		var n int
		b.run(t, "counting the lanes", chromedp.Evaluate(`Number(document.querySelector('#timeline').dataset.lanes)`, &n))
		if n != 3 {
			t.Errorf("%d lanes drawn, want the 3 tokens", n)
		}
		b.viewShot(t, "semaphore-holder-"+size+".png")
		var ok bool
		var text string
		b.run(t, "tapping "+name+" on token 2",
			tap(x, y),
			chromedp.Poll(sheetFor(name), &ok, chromedp.WithPollingTimeout(waitLong)),
			chromedp.Evaluate(`document.querySelector('#details-sheet').textContent`, &text),
		)
		if want := "on token 1, token 2, token 3"; !strings.Contains(text, want) {
			t.Errorf("%s's details say %q, want them to contain %q", name, text, want)
		}
		b.viewShot(t, "semaphore-holder-details-"+size+".png")
		b.checkClean(t)
	})
}
