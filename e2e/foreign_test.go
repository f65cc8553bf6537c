//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"sluice/core/trace/tracetest"
)

// TestForeignTrace opens another tool's trace, on desktop and phone: the
// page names what it does not show and the slice that never ends, draws a
// lane per thread and depth, and measures throughput over the trace.
func TestForeignTrace(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "chrome.json")
	if err := os.WriteFile(file, []byte(tracetest.Chromium), 0o644); err != nil {
		t.Fatal(err)
	}
	eachSize(t, func(t *testing.T, b *browser, size string) {
		var ok bool
		var shown struct {
			Omitted    string  `json:"omitted"`
			Lanes      int     `json:"lanes"`
			Throughput float64 `json:"throughput"`
			Picker     bool    `json:"picker"`
		}
		b.run(t, "opening chrome.json",
			chromedp.Navigate(base+"/"),
			chromedp.WaitVisible(mounted),
			chromedp.SetUploadFiles("#load-trace", []string{file}, chromedp.ByQuery),
			chromedp.Poll(`document.querySelector('#playground').dataset.phase === "replay" && Number(document.querySelector('#timeline').dataset.tasks) === 4`,
				&ok, chromedp.WithPollingTimeout(waitLong)),
			chromedp.Evaluate(`(() => {
				const om = document.querySelector('#omitted');
				return {omitted: om ? om.textContent : "", lanes: Number(document.querySelector('#timeline').dataset.lanes),
					throughput: Number(document.querySelector('#stats').dataset.throughput || -1),
					picker: !!document.querySelector('#preset')};
			})()`, &shown),
		)
		for _, want := range []string{"7 events: 3 instant, 2 flow, 1 async, 1 counter sample", "1 slice never ends"} {
			if !strings.Contains(shown.Omitted, want) {
				t.Errorf("the note on what is not shown is %q, want it to say %q", shown.Omitted, want)
			}
		}
		if shown.Picker {
			t.Errorf("the transport bar offers the preset picker over a loaded trace, which is no preset; want only “Back to live”")
		}
		if shown.Lanes != 3 {
			t.Errorf("%d lanes, want 3: CrBrowserMain, its depth 1, CrRendererMain", shown.Lanes)
		}
		var rows bool
		b.run(t, "the event log's rows", chromedp.Poll(`document.querySelectorAll('#log li:not(.log-spacer)').length >= 7 && !document.querySelector('.log-held')`, &rows, chromedp.WithPollingTimeout(waitLong)))
		b.viewShot(t, "foreign-trace-"+size+".png")
		b.screenshot(t, "foreign-trace-"+size+"-page.png")
		b.checkClean(t)
	})
}
