//go:build e2e

package e2e

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestSkipLinkAndHeadings checks the page's outline and its first Tab
// stop: each page has one h1 and no heading skips a level, and on the full
// page the first Tab reaches "Skip to the timeline", whose Enter puts the
// keyboard focus on the timeline.
func TestSkipLinkAndHeadings(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	for _, path := range []string{"/", "/embed"} {
		t.Run(path, func(t *testing.T) {
			var levels []int
			b.run(t, "reading the headings",
				chromedp.Navigate(base+path),
				chromedp.WaitVisible(mounted),
				chromedp.Evaluate(`[...document.querySelectorAll('h1,h2,h3,h4,h5,h6')].map(h => Number(h.tagName[1]))`, &levels),
			)
			if len(levels) == 0 || levels[0] != 1 {
				t.Fatalf("heading levels %v: want an h1 first", levels)
			}
			for i := 1; i < len(levels); i++ {
				if levels[i] > levels[i-1]+1 {
					t.Errorf("heading levels %v: h%d follows h%d", levels, levels[i], levels[i-1])
				}
			}
			var active string
			b.run(t, "tabbing once, then pressing Enter",
				chromedp.Evaluate(`document.activeElement && document.activeElement.blur(), true`, nil),
				chromedp.KeyEvent(kb.Tab),
				chromedp.Evaluate(`document.activeElement.id`, &active),
			)
			if active != "skip-to-timeline" {
				t.Fatalf("the first Tab stop is #%s, want #skip-to-timeline", active)
			}
			b.run(t, "following the skip link",
				chromedp.KeyEvent(kb.Enter),
				chromedp.Poll(`document.activeElement.id === "timeline"`, nil, chromedp.WithPollingTimeout(waitLong)),
			)
		})
	}
	b.checkClean(t)
}
