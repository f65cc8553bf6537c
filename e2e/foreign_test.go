//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// chromeTrace is a trace as Chromium writes it, of 0.25 s: two processes'
// named threads, a nested slice, one that never ends, and instant, flow,
// async and counter events.
const chromeTrace = `{"traceEvents":[
	{"ph":"M","pid":1,"tid":0,"name":"process_name","args":{"name":"Browser"}},
	{"ph":"M","pid":2,"tid":0,"name":"process_name","args":{"name":"Renderer"}},
	{"ph":"M","pid":1,"tid":11,"name":"thread_name","args":{"name":"CrBrowserMain"}},
	{"ph":"M","pid":2,"tid":21,"name":"thread_name","args":{"name":"CrRendererMain"}},
	{"ph":"X","pid":1,"tid":11,"ts":1000000,"dur":100000,"name":"RunTask"},
	{"ph":"X","pid":1,"tid":11,"ts":1010000,"dur":50000,"name":"Layout"},
	{"ph":"X","pid":1,"tid":11,"ts":1120000,"dur":10000,"name":"Paint"},
	{"ph":"B","pid":2,"tid":21,"ts":1005000,"name":"Parse"},
	{"ph":"i","pid":1,"tid":11,"ts":1015000,"name":"mark","s":"t"},
	{"ph":"i","pid":1,"tid":11,"ts":1016000,"name":"mark","s":"t"},
	{"ph":"s","pid":1,"tid":11,"ts":1017000,"id":1,"name":"flow"},
	{"ph":"f","pid":2,"tid":21,"ts":1018000,"id":1,"name":"flow","bp":"e"},
	{"ph":"b","pid":1,"tid":11,"ts":1019000,"id":"0x1","cat":"net","name":"Request"},
	{"ph":"C","pid":1,"tid":11,"ts":1020000,"name":"heap","args":{"used":5}},
	{"ph":"i","pid":2,"tid":21,"ts":1250000,"name":"last","s":"g"}
]}`

// TestForeignTrace opens another tool's trace, on desktop and phone: the
// page names what it does not show and the slice that never ends, draws a
// lane per thread and depth, and measures throughput over the trace.
func TestForeignTrace(t *testing.T) {
	file := filepath.Join(t.TempDir(), "chrome.json")
	if err := os.WriteFile(file, []byte(chromeTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, size := range []string{"desktop", "phone"} {
		t.Run(size, func(t *testing.T) {
			b := newBrowser(t)
			if size == "phone" {
				b.phone(t)
			}
			var ok bool
			var shown struct {
				Omitted    string  `json:"omitted"`
				Lanes      int     `json:"lanes"`
				Throughput float64 `json:"throughput"`
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
						throughput: Number(document.querySelector('#stats').dataset.throughput || -1)};
				})()`, &shown),
			)
			for _, want := range []string{"7 events: 3 instant, 2 flow, 1 async, 1 counter sample", "1 slice never ends"} {
				if !strings.Contains(shown.Omitted, want) {
					t.Errorf("the note on what is not shown is %q, want it to say %q", shown.Omitted, want)
				}
			}
			if shown.Lanes != 3 {
				t.Errorf("%d lanes, want 3: CrBrowserMain, its depth 1, CrRendererMain", shown.Lanes)
			}
			b.viewShot(t, "foreign-trace-"+size+".png")
			b.screenshot(t, "foreign-trace-"+size+"-page.png")
			b.checkClean(t)
		})
	}
}
