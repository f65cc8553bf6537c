//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"sluice/wasm/sim"
)

// TestShared opens the preset of two work queues sharing one limit,
// pauses it while the shared limit holds both queues back, lets it run to
// its end, and takes screenshots at desktop and phone size.
func TestShared(t *testing.T) {
	t.Parallel()
	const id = "shared-limit"
	ps, ok := sim.PresetByID(id)
	if !ok {
		t.Fatalf("no preset %q", id)
	}
	b := newBrowser(t)
	var done bool
	open := func(what string) {
		t.Helper()
		b.run(t, what,
			openPreset(id),
			// At 1 s two reports and one import hold the three tokens.
			chromedp.Poll(`Number(document.querySelector('#stats').dataset.nowMs) >= 1000`, &done, chromedp.WithPollingTimeout(waitLong)),
			chromedp.Evaluate(`document.querySelector('#playground').dataset.phase === "playing" && document.querySelector('#play').click(), true`, &done),
			chromedp.Poll(`document.querySelector('#playground').dataset.phase !== "playing"`, &done, chromedp.WithPollingTimeout(waitLong)),
		)
	}
	open("opening the shared-limit preset")

	s := b.stats(t)
	if s.Primitive != sim.Shared {
		t.Errorf("data-primitive = %q, want %q", s.Primitive, sim.Shared)
	}
	if s.Running != 3 || s.MaxRunning != 3 || s.Waiting == 0 {
		t.Errorf("paused at 1 s: %d running (at most %d), %d waiting; want 3 (the shared limit) and work waiting", s.Running, s.MaxRunning, s.Waiting)
	}
	// The setup shows both queues, with their parallelism and priority.
	var form []string
	b.run(t, "reading the queues' form", chromedp.Evaluate(`[
		document.querySelector('#primitive').value,
		document.querySelector('#limit').value,
		document.querySelector('#queue-1-parallelism').value, document.querySelector('#queue-1-priority').value,
		document.querySelector('#queue-2-parallelism').value, document.querySelector('#queue-2-priority').value,
		String(document.querySelector('#add-queue') !== null),
	]`, &form))
	if want := []string{sim.Shared, "3", "3", "0", "2", "1", "true"}; fmt.Sprint(form) != fmt.Sprint(want) {
		t.Errorf("primitive, limit, queue-1 parallelism and priority, queue-2 parallelism and priority, add button = %q, want %q", form, want)
	}
	b.screenshot(t, "shared-desktop.png")
	var png []byte
	b.run(t, "screenshot of the view", chromedp.ScrollIntoView(".view", chromedp.ByQuery), chromedp.Screenshot(".view", &png, chromedp.ByQuery))
	if err := os.MkdirAll("artifacts", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("artifacts", "shared-view.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}

	// Then it runs to its end: the limit rises to 5 at 4 s, and both
	// queues run at their own limits.
	b.run(t, "playing on at 10×", chromedp.Click("#play", chromedp.ByQuery), chromedp.Evaluate(setSpeed, &done))
	s = b.waitFinished(t, id, totalTasks(ps.Scenario))
	checkRun(t, s, ps.Scenario)
	if s.MaxRunning != 5 || s.MaxLimit != 5 {
		t.Errorf("at the end: max in flight %d against a limit of %d, want 5 and 5", s.MaxRunning, s.MaxLimit)
	}
	if s.Failed != 2 || s.Succeeded != totalTasks(ps.Scenario)-2 {
		t.Errorf("succeeded %d, failed %d, want all but the two reports drawn to fail", s.Succeeded, s.Failed)
	}
	b.screenshot(t, "shared-finished.png")
	reportAxe(t, "/ with the shared-limit preset", b.runAxe(t))

	// From the keyboard: a queue's parallelism of 0 is refused with a
	// clear message; 1 restarts the run with it.
	typeInto := func(sel, text string) {
		t.Helper()
		b.run(t, "typing "+text+" into "+sel,
			chromedp.Focus(sel, chromedp.ByQuery),
			chromedp.Evaluate(`document.activeElement.select(), true`, &done),
			chromedp.KeyEvent(text),
			chromedp.KeyEvent(kb.Tab),
		)
	}
	typeInto("#queue-2-parallelism", "0")
	b.run(t, "waiting for the refusal", chromedp.Poll(
		`document.querySelector('#message').dataset.kind === "error" && document.querySelector('#message').textContent.includes("parallelism must be between 1 and 10,000; it is 0")`,
		&done, chromedp.WithPollingTimeout(waitLong)))
	typeInto("#queue-2-parallelism", "1")
	b.run(t, "waiting for the new setup", chromedp.Poll(
		`document.querySelector('#queue-2-parallelism').value === "1" && document.querySelector('#playground').dataset.preset !== "shared-limit"`,
		&done, chromedp.WithPollingTimeout(waitLong)))
	s = b.stats(t)
	link := s.Link
	if i := strings.Index(link, sim.LinkPrefix); i >= 0 {
		link = link[i:]
	}
	if sc, err := sim.Decode(link); err != nil {
		t.Errorf("the link after the change does not decode: %v", err)
	} else if sc.Primitive != sim.Shared || len(sc.Consumers) != 2 || sc.Consumers[1].Concurrency != 1 {
		t.Errorf("the link after the change carries %+v, want queue-2 with parallelism 1", sc)
	}

	b.phone(t)
	open("opening the shared-limit preset on a phone")
	b.run(t, "scrolling to the top", chromedp.Evaluate(`window.scrollTo(0, 0), true`, &done))
	b.viewShot(t, "shared-phone.png")
	b.run(t, "scrolling to the queues' form", chromedp.ScrollIntoView("#queue-1-parallelism", chromedp.ByQuery))
	b.viewShot(t, "shared-phone-form.png")
	b.screenshot(t, "shared-phone-full.png")
	b.checkClean(t)
}
