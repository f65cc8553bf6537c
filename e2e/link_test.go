//go:build e2e

package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBadEscapeLink opens links whose fragment holds a "%" that starts no
// escape (a link cut short, or typed by hand), on the page and in the
// embed, then types one into the address bar of a page that runs: the page
// starts, says the link is damaged, and keeps working.
func TestBadEscapeLink(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	var ok bool
	for _, tc := range []struct{ name, url string }{
		{"percents", base + "/#s=%%%"},
		{"cut-short", base + "/#s=abc%2"},
		{"embed", base + "/embed#s=%%%"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b.run(t, "opening "+tc.url,
				chromedp.Navigate(tc.url),
				chromedp.WaitVisible(mounted),
				chromedp.WaitVisible(`#message[data-kind="error"]`),
				chromedp.Poll(`Number(document.querySelector('#stats').dataset.nowMs) > 300`, &ok, chromedp.WithPollingTimeout(waitLong)),
			)
			if s := b.stats(t); !strings.Contains(s.Message, "damaged") {
				t.Errorf("message = %q, want it to say the link is damaged", s.Message)
			}
			b.run(t, "pausing, then playing: the controls work",
				chromedp.Click("#play", chromedp.ByQuery),
				chromedp.Poll(`document.querySelector('#playground').dataset.phase === "paused"`, &ok, chromedp.WithPollingTimeout(waitLong)),
			)
		})
	}
	t.Run("edited", func(t *testing.T) {
		b.run(t, "opening the playground, then typing a damaged link",
			chromedp.Navigate(base+"/"),
			chromedp.WaitVisible(mounted),
			chromedp.Evaluate(`location.hash = "#s=%%%"; true`, &ok),
			chromedp.WaitVisible(`#message[data-kind="error"]`),
		)
		if s := b.stats(t); !strings.Contains(s.Message, "damaged") {
			t.Errorf("message = %q, want it to say the link is damaged", s.Message)
		}
		b.run(t, "choosing a preset",
			chromedp.Click("#preset-keyed-devices", chromedp.ByQuery),
			chromedp.Poll(`location.hash.startsWith("#s=") && document.querySelector('#playground').dataset.preset === "keyed-devices"`, &ok, chromedp.WithPollingTimeout(waitLong)),
		)
	})
	b.checkClean(t)
}
