//go:build e2e

package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"sluice/core/trace"
	"sluice/wasm/gotrace"
)

// goTraceShown is what the page shows of a loaded Go execution trace.
type goTraceShown struct {
	Phase     string `json:"phase"`
	Tasks     int    `json:"tasks"`
	Lanes     int    `json:"lanes"`
	RunRows   int    `json:"runRows"`
	Succeeded int    `json:"succeeded"`
	Failed    int    `json:"failed"`
	WaitRows  int    `json:"waitRows"`
	Times     string `json:"times"`
	Omitted   string `json:"omitted"`
}

const readGoTraceShown = `(() => {
	const s = document.querySelector('#stats').dataset;
	const tl = document.querySelector('#timeline').dataset;
	const om = document.querySelector('#omitted');
	return {
		phase: document.querySelector('#playground').dataset.phase,
		tasks: Number(tl.tasks), lanes: Number(tl.lanes), runRows: Number(tl.runRows),
		succeeded: Number(s.succeeded), failed: Number(s.failed),
		waitRows: document.querySelectorAll('#waits tr[data-priority]').length,
		times: document.querySelector('#playground').textContent,
		omitted: om ? om.textContent : "",
	};
})()`

// expectGoTrace converts a Go execution trace as the page's worker does,
// natively, and returns what the page must show of it.
func expectGoTrace(t *testing.T, path string) (*gotrace.Result, *trace.Snapshot) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := gotrace.Convert(f, nil)
	if err != nil {
		t.Fatalf("converting %s: %v", path, err)
	}
	rec, err := trace.ReadJSON(bytes.NewReader(res.JSON))
	if err != nil {
		t.Fatal(err)
	}
	return res, rec.Snapshot(time.Time{})
}

// goTestTrace writes the execution trace of a go test run of core's
// Processor tests (go test -trace) and returns its path.
func goTestTrace(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "test.trace")
	cmd := exec.Command("go", "test", "-count=1", "-run", "^TestProcessor", "-trace", out, ".")
	cmd.Dir = filepath.Join(root, "core")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test -trace: %v\n%s", err, b)
	}
	return out
}

// TestGoTrace opens Go execution traces in the playground: the example
// service's flight-recorder snapshot (e2e/testdata/service-snapshot.out,
// written by examples/service under load) and a go test -trace file, on
// desktop and phone, and checks the tasks, lanes, outcomes and waits
// against the same conversion run natively, and the goroutine and proc
// lanes below the tasks' (a bar per run of a goroutine; on a phone, the
// goroutines' rows that do not fit folded into one); a cut-short file, and
// one of a Go version the reader does not know, get a message saying so.
func TestGoTrace(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"snapshot": filepath.Join(root, "e2e", "testdata", "service-snapshot.out"),
		"go-test":  goTestTrace(t),
	}
	for _, kind := range []string{"snapshot", "go-test"} {
		for _, size := range []string{"desktop", "phone"} {
			if kind == "go-test" && size == "phone" {
				continue
			}
			t.Run(kind+"-"+size, func(t *testing.T) {
				t.Parallel()
				path := files[kind]
				res, snap := expectGoTrace(t, path)
				b := newBrowser(t)
				if size == "phone" {
					b.phone(t)
				}
				var ok bool
				b.run(t, "opening "+filepath.Base(path),
					chromedp.Navigate(base+"/"),
					chromedp.WaitVisible(mounted),
					chromedp.SetUploadFiles("#load-trace", []string{path}, chromedp.ByQuery),
					chromedp.Poll(fmt.Sprintf(`document.querySelector('#playground').dataset.phase === "replay" && Number(document.querySelector('#timeline').dataset.tasks) === %d`, res.Tasks+len(res.Lanes.Runs)),
						&ok, chromedp.WithPollingTimeout(waitLong)),
				)
				var shown goTraceShown
				b.run(t, "reading what is shown", chromedp.Evaluate(readGoTraceShown, &shown))
				if shown.Tasks != res.Tasks+len(res.Lanes.Runs) || res.Tasks != len(snap.Tasks) {
					t.Errorf("%d bars in the model, want the %d sluice tasks of the trace and %d runs of their goroutines", shown.Tasks, res.Tasks, len(res.Lanes.Runs))
				}
				// A lane per queue slot, key or holder, then one per
				// goroutine (or row of goroutines) and proc.
				wantLanes, wantRunRows := len(snap.Lanes)+len(res.Lanes.Names), len(res.Lanes.Names)
				if shown.Lanes != wantLanes || shown.RunRows != wantRunRows || wantRunRows == 0 {
					t.Errorf("%d lanes drawn, %d of them of goroutines and procs; want %d and %d", shown.Lanes, shown.RunRows, wantLanes, wantRunRows)
				}
				if shown.Succeeded != int(snap.Stats.Succeeded) || shown.Failed != int(snap.Stats.Failed) {
					t.Errorf("the page shows %d succeeded, %d failed; the trace %d and %d", shown.Succeeded, shown.Failed, snap.Stats.Succeeded, snap.Stats.Failed)
				}
				if shown.WaitRows != len(snap.Stats.Waits) {
					t.Errorf("%d rows of waits by priority, want %d", shown.WaitRows, len(snap.Stats.Waits))
				}
				if !strings.Contains(shown.Omitted, "goroutines") {
					t.Errorf("the note on what is not shown is %q, want the goroutines and procs counted", shown.Omitted)
				}
				if !strings.Contains(shown.Times, "sluice tasks by queue") {
					t.Errorf("the page does not say which queues the trace's tasks came from")
				}
				b.viewShot(t, "gotrace-"+kind+"-"+size+".png")
				// The goroutines' and procs' lanes, at the timeline's foot.
				b.run(t, "scrolling to the goroutines and procs",
					chromedp.Evaluate(`document.querySelector('#timeline').scrollIntoView({block: "end"}); true`, &ok),
					chromedp.Sleep(300*time.Millisecond))
				b.viewShot(t, "gotrace-"+kind+"-"+size+"-goroutines.png")
				b.checkClean(t)
			})
		}
	}

	t.Run("cut short or unknown", func(t *testing.T) {
		t.Parallel()
		data, err := os.ReadFile(files["snapshot"])
		if err != nil {
			t.Fatal(err)
		}
		cut := filepath.Join(t.TempDir(), "cut.out")
		if err := os.WriteFile(cut, data[:len(data)/2], 0o644); err != nil {
			t.Fatal(err)
		}
		b := newBrowser(t)
		var ok bool
		b.run(t, "opening a cut-short trace",
			chromedp.Navigate(base+"/"),
			chromedp.WaitVisible(mounted),
			chromedp.SetUploadFiles("#load-trace", []string{cut}, chromedp.ByQuery),
			chromedp.Poll(`document.querySelector('#message').dataset.kind === "error"`, &ok, chromedp.WithPollingTimeout(waitLong)),
		)
		if s := b.stats(t); !strings.Contains(s.Message, "cut.out") || !strings.Contains(s.Message, "cut short") || s.Phase == "replay" {
			t.Errorf("after a cut-short trace: message %q, phase %q; want the file named, said to be cut short, and the run shown", s.Message, s.Phase)
		}
		b.viewShot(t, "gotrace-cut-short.png")

		future := filepath.Join(t.TempDir(), "future.out")
		if err := os.WriteFile(future, []byte("go 1.99 trace\x00\x00\x00"), 0o644); err != nil {
			t.Fatal(err)
		}
		b.run(t, "opening a trace of an unknown Go version",
			chromedp.Evaluate(`document.querySelector('#message').dataset.kind = "none"`, nil),
			chromedp.SetUploadFiles("#load-trace", []string{future}, chromedp.ByQuery),
			chromedp.Poll(`document.querySelector('#message').dataset.kind === "error" && document.querySelector('#message').textContent.includes("future.out")`, &ok, chromedp.WithPollingTimeout(waitLong)),
		)
		if s := b.stats(t); !strings.Contains(s.Message, "Go version") || s.Phase == "replay" {
			t.Errorf("after a trace of Go 1.99: message %q, phase %q; want it to say the Go version is one the playground cannot read", s.Message, s.Phase)
		}
		b.checkErrors(t)
	})
}
