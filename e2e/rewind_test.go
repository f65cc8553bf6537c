//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"sluice/wasm/sim"
)

// rewindScenario is a keyed queue whose lanes come and go: two bursts
// over four and three keys, lanes evicted after 400 ms idle, at 10×.
var rewindScenario = sim.Scenario{V: sim.Version, Primitive: sim.Keyed, Seed: 5, Limit: 2, IdleMS: 400, Speed: 10,
	Bursts: []sim.Burst{
		{Count: 10, MinMS: 200, MaxMS: 600, Keys: 4, Priority: sim.PriorityMix{Low: 1, Normal: 1, High: 1}, Outcome: sim.OutcomeMix{OK: 4, Fail: 1}},
		{AtMS: 1500, Count: 6, MinMS: 200, MaxMS: 500, Keys: 3},
	}}

// moment is what the page shows of a run at one moment: every counter of
// #stats (but the program's goroutines), the lanes and tasks the timeline
// draws, and the whole event log, oldest first.
type moment struct {
	NowMS  int               `json:"nowMs"`
	Stats  map[string]string `json:"stats"`
	Lanes  string            `json:"lanes"`
	Tasks  string            `json:"tasks"`
	Total  int               `json:"total"`
	Events []string          `json:"events"`
}

const readMoment = `(async () => {
	` + readLogFn + `
	const s = Object.assign({}, document.querySelector('#stats').dataset);
	delete s.goroutines;
	const tl = document.querySelector('#timeline').dataset;
	return {nowMs: Number(s.nowMs), stats: s, lanes: tl.lanes, tasks: tl.tasks,
		total: Number(document.querySelector('#log-count').textContent.replace(/,/g, "")),
		events: await readLog()};
})()`

// atRest is true once the page is paused, no seek is in flight, and the
// timeline has drawn a few frames since.
const atRest = `(() => {
	const pg = document.querySelector('#playground').dataset;
	const rw = document.querySelector('#rewind');
	return pg.phase === "paused" && rw && rw.dataset.seeking === "false";
})()`

// settled waits until the page is paused at rest at a moment that holds
// across two reads, and returns it; the timeline shows its default
// window (Fit), which a fresh run's page shows too.
func (b *browser) settled(t *testing.T, what string) moment {
	t.Helper()
	var ok bool
	var m, again moment
	b.run(t, what, chromedp.Poll(atRest, &ok, chromedp.WithPollingTimeout(waitLong)), chromedp.Click("#zoom-fit", chromedp.ByQuery))
	for range 50 {
		b.run(t, what, chromedp.Poll(atRest, &ok, chromedp.WithPollingTimeout(waitLong)), chromedp.Evaluate(readMoment, &m, awaitPromise))
		b.run(t, what, chromedp.Sleep(300e6), chromedp.Poll(atRest, &ok, chromedp.WithPollingTimeout(waitLong)), chromedp.Evaluate(readMoment, &again, awaitPromise))
		if reflect.DeepEqual(m, again) {
			return m
		}
	}
	t.Fatalf("%s: the page did not come to rest: %+v, then %+v", what, m, again)
	return m
}

// compareMoments fails the test when got, what the page shows after
// rewinding, differs from want, a fresh run's.
func compareMoments(t *testing.T, what string, got, want moment) {
	t.Helper()
	if got.NowMS != want.NowMS {
		t.Errorf("%s: the clock reads %d ms, the fresh run's %d ms", what, got.NowMS, want.NowMS)
	}
	for k, w := range want.Stats {
		if k == "link" {
			continue // a played run logs its pauses
		}
		if g := got.Stats[k]; g != w {
			t.Errorf("%s: %s = %s, the fresh run's %s", what, k, g, w)
		}
	}
	if got.Lanes != want.Lanes || got.Tasks != want.Tasks {
		t.Errorf("%s: the timeline draws %s lanes and %s tasks, the fresh run's %s and %s", what, got.Lanes, got.Tasks, want.Lanes, want.Tasks)
	}
	if len(want.Events) == 0 || want.Total != len(want.Events) || got.Total != len(got.Events) {
		t.Errorf("%s: the event logs list %d of %d events and %d of %d (the fresh run's): the test wants whole logs", what, len(got.Events), got.Total, len(want.Events), want.Total)
	}
	if ge, we := byInstant(got.Events), byInstant(want.Events); !reflect.DeepEqual(ge, we) {
		t.Errorf("%s: the event log has %d events, the fresh run's %d", what, len(ge), len(we))
		for i := range min(len(ge), len(we)) {
			if ge[i] != we[i] {
				t.Errorf("%s: event %d = %q, the fresh run's %q", what, i+1, ge[i], we[i])
				break
			}
		}
	}
}

// freshAt opens link in the tab at moment ms (t=): a new run, played
// from 0 to that moment, paused.
func (b *browser) freshAt(t *testing.T, link string, ms int) moment {
	t.Helper()
	url := fmt.Sprintf("%s/?v=%d&t=%d.%03d%s%s", base, sim.Version, ms/1000, ms%1000, sim.LinkPrefix, link)
	b.run(t, "opening the run at "+strconv.Itoa(ms)+" ms in a fresh page",
		chromedp.Navigate("about:blank"),
		chromedp.Navigate(url),
		chromedp.WaitVisible(mounted),
	)
	m := b.settled(t, "waiting for the fresh page at its moment")
	if m.NowMS != ms {
		t.Fatalf("the link's t=%d ms opened at %d ms", ms, m.NowMS)
	}
	return m
}

// nowLine returns where, in the viewport, the now-line is drawn: its x,
// and a y in the middle of the canvas; and where the plot starts.
func (b *browser) nowLine(t *testing.T) (x, y, left float64) {
	t.Helper()
	var at struct{ X, Y, Left float64 }
	b.run(t, "finding the now-line", chromedp.Evaluate(`(() => {
		const c = document.querySelector('#timeline');
		c.scrollIntoView({block: "center"});
		const r = c.getBoundingClientRect();
		const d = c.dataset;
		const [l, rr] = d.plot.split(" ").map(Number);
		const from = Number(d.fromUs) / 1000, to = Number(d.toUs) / 1000;
		const now = Number(document.querySelector('#stats').dataset.nowMs);
		return {x: r.left + l + (now - from) / (to - from) * (rr - l), y: r.top + r.height / 2, left: r.left + l};
	})()`, &at))
	return at.X, at.Y, at.Left
}

// dragMouse drags with the mouse from x0 to x1 at y, in steps.
func dragMouse(x0, x1, y float64) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		if err := input.DispatchMouseEvent(input.MouseMoved, x0, y).Do(ctx); err != nil {
			return err
		}
		if err := input.DispatchMouseEvent(input.MousePressed, x0, y).WithButton(input.Left).WithClickCount(1).Do(ctx); err != nil {
			return err
		}
		for i := 1; i <= 8; i++ {
			x := x0 + (x1-x0)*float64(i)/8
			if err := input.DispatchMouseEvent(input.MouseMoved, x, y).WithButton(input.Left).WithButtons(1).Do(ctx); err != nil {
				return err
			}
		}
		return input.DispatchMouseEvent(input.MouseReleased, x1, y).WithButton(input.Left).WithClickCount(1).Do(ctx)
	})
}

// dragTouch drags one finger from x0 to x1 at y, in steps.
func dragTouch(x0, x1, y float64) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		if err := input.DispatchTouchEvent(input.TouchStart, []*input.TouchPoint{{X: x0, Y: y, ID: 1}}).Do(ctx); err != nil {
			return err
		}
		for i := 1; i <= 8; i++ {
			x := x0 + (x1-x0)*float64(i)/8
			if err := input.DispatchTouchEvent(input.TouchMove, []*input.TouchPoint{{X: x, Y: y, ID: 1}}).Do(ctx); err != nil {
				return err
			}
		}
		return input.DispatchTouchEvent(input.TouchEnd, []*input.TouchPoint{}).Do(ctx)
	})
}

// finishedMoment shows a finished run whole (Fit) and returns what the
// page shows of it.
func (b *browser) finishedMoment(t *testing.T) moment {
	t.Helper()
	var m moment
	var n int
	b.run(t, "fitting the finished run",
		chromedp.Click("#zoom-fit", chromedp.ByQuery),
		chromedp.Evaluate(`Number(document.querySelector('#timeline').dataset.framesHandled)`, &n))
	var ok bool
	b.run(t, "reading the finished run",
		chromedp.Poll(fmt.Sprintf(`Number(document.querySelector('#timeline').dataset.framesHandled) > %d`, n+20), &ok, chromedp.WithPollingTimeout(waitLong)),
		chromedp.Evaluate(readMoment, &m, awaitPromise))
	return m
}

// playedRun opens rewindScenario and lets it finish.
func (b *browser) playedRun(t *testing.T) moment {
	t.Helper()
	b.run(t, "opening the scenario",
		chromedp.Navigate(base+"/?v=2"+sim.LinkPrefix+rewindScenario.Encode()),
		chromedp.WaitVisible(mounted),
	)
	b.finishedWith(t, "waiting for the run to finish", totalTasks(rewindScenario))
	var m moment
	b.run(t, "reading the finished run", chromedp.Evaluate(readMoment, &m, awaitPromise))
	return m
}

// TestRewindDesktop rewinds a finished run on a desktop: the now-line
// dragged back with the mouse, and the scrubber moved from the keyboard,
// each show what a fresh run stopped at that moment shows; Step back then
// Step comes back to the same state; an action at a past moment forks
// the run, and the fork's link replays it in a fresh page.
func TestRewindDesktop(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	end := b.playedRun(t)
	link := rewindScenario.Encode()

	x, y, left := b.nowLine(t)
	b.run(t, "dragging the now-line back with the mouse", dragMouse(x, (x+left)/2, y))
	dragged := b.settled(t, "waiting for the rewound run")
	if dragged.NowMS <= 0 || dragged.NowMS >= end.NowMS {
		t.Fatalf("after the drag the clock reads %d ms, want between 0 and the end, %d ms", dragged.NowMS, end.NowMS)
	}
	var horizon string
	b.run(t, "reading the scrubber", chromedp.AttributeValue("#rewind", "data-horizon-ms", &horizon, nil))
	if horizon != strconv.Itoa(end.NowMS) {
		t.Errorf("the scrubber reaches %s ms, want the run's end %d ms", horizon, end.NowMS)
	}
	var href string
	b.run(t, "reading the address bar", chromedp.Evaluate(`location.href`, &href))
	if want := fmt.Sprintf("&t=%d.%03d#s=", dragged.NowMS/1000, dragged.NowMS%1000); !strings.Contains(href, want) {
		t.Errorf("the address bar holds %q, want the moment shown, %q", href, want)
	}
	reportAxe(t, "rewound playground", b.runAxe(t))
	b.screenshot(t, "rewind-desktop.png")

	// Step, then Step back and Step: the same state.
	b.run(t, "stepping", chromedp.Click("#step", chromedp.ByQuery))
	before := b.settled(t, "waiting for the step")
	b.run(t, "stepping back", chromedp.Click("#step-back", chromedp.ByQuery))
	back := b.settled(t, "waiting for the step back")
	if back.NowMS >= before.NowMS || len(back.Events) >= len(before.Events) {
		t.Errorf("Step back went from %d ms (%d events) to %d ms (%d events), want earlier and fewer", before.NowMS, len(before.Events), back.NowMS, len(back.Events))
	}
	b.run(t, "stepping again", chromedp.Click("#step", chromedp.ByQuery))
	compareMoments(t, "Step back then Step", b.settled(t, "waiting for the step"), before)

	// The scrubber, from the keyboard: Home, then Page Up twice.
	b.run(t, "moving the scrubber from the keyboard",
		chromedp.Focus("#scrubber", chromedp.ByQuery),
		chromedp.KeyEvent(kb.Home),
	)
	b.settled(t, "waiting for the run at 0")
	b.run(t, "paging the scrubber on", chromedp.Focus("#scrubber", chromedp.ByQuery), chromedp.KeyEvent(kb.PageUp), chromedp.KeyEvent(kb.PageUp))
	keyed := b.settled(t, "waiting for the run at the scrubber's moment")
	if keyed.NowMS <= 0 || keyed.NowMS >= end.NowMS {
		t.Errorf("after Home and two Page Ups the clock reads %d ms, want inside the run (end %d ms)", keyed.NowMS, end.NowMS)
	}
	b.scrubberSays(t, "after Home and two Page Ups", keyed.NowMS, end.NowMS)
	// A drag to the end, to 0 and back, faster than the page lands: the
	// scrubber's words are set as it moves, and say where it stops.
	b.run(t, "dragging the scrubber to the end, to 0 and back", chromedp.Evaluate(fmt.Sprintf(`(() => {
		const el = document.querySelector('#scrubber');
		for (const v of [el.max, 0, %d]) {
			el.value = v;
			el.dispatchEvent(new Event('input', {bubbles: true}));
		}
		return true;
	})()`, keyed.NowMS), new(bool)))
	if m := b.settled(t, "waiting for the run at the scrubber's moment"); m.NowMS != keyed.NowMS {
		t.Errorf("after a drag there and back the clock reads %d ms, want %d ms", m.NowMS, keyed.NowMS)
	}
	b.scrubberSays(t, "after a drag there and back", keyed.NowMS, end.NowMS)

	// A burst at a past moment forks the run.
	b.run(t, "adding a burst at that moment", chromedp.Click("#add-burst", chromedp.ByQuery))
	var note string
	b.run(t, "reading the fork's note", chromedp.Poll(`(() => { const m = document.querySelector('#message'); return m && m.textContent.includes("Forked at") && m.textContent; })()`,
		&note, chromedp.WithPollingTimeout(waitLong)))
	if want := fmt.Sprintf("Forked at %d.%03d s", keyed.NowMS/1000, keyed.NowMS%1000); !strings.Contains(note, want) {
		t.Errorf("the fork's note is %q, want it to say %q", note, want)
	}
	b.run(t, "playing the fork to its end", chromedp.Click("#play", chromedp.ByQuery))
	b.finishedWith(t, "waiting for the fork to finish", totalTasks(rewindScenario)+10)
	forked := b.finishedMoment(t)
	forkLink := forked.Stats["link"]
	b.checkErrors(t)

	// The moments against fresh runs, and the fork's link in a fresh page.
	compareMoments(t, "dragged back with the mouse", dragged, b.freshAt(t, link, dragged.NowMS))
	compareMoments(t, "moved with the scrubber", keyed, b.freshAt(t, link, keyed.NowMS))
	b.run(t, "opening the fork's link",
		chromedp.Navigate("about:blank"),
		chromedp.Navigate(base+"/?v=2"+sim.LinkPrefix+forkLink),
		chromedp.WaitVisible(mounted),
	)
	b.finishedWith(t, "waiting for the fork's replay to finish", totalTasks(rewindScenario)+10)
	compareMoments(t, "the fork's link", b.finishedMoment(t), forked)
	b.checkErrors(t)
}

// scrubberSays checks what the scrubber says, to the eye (its output) and
// to assistive technology (its aria-valuetext): the moment shown, ms, of
// the run's end, to 10 ms.
func (b *browser) scrubberSays(t *testing.T, what string, ms, end int) {
	t.Helper()
	var said struct{ Words, ValueText string }
	b.run(t, "reading the scrubber's words", chromedp.Evaluate(`({words: document.querySelector('#scrubber-value').textContent,
		valueText: document.querySelector('#scrubber').getAttribute('aria-valuetext')})`, &said))
	clock := func(ms int) string { return strconv.FormatFloat(float64((ms+5)/10*10)/1000, 'f', -1, 64) + "s" }
	if want := clock(ms) + " of " + clock(end); said.Words != want || said.ValueText != want {
		t.Errorf("%s: the scrubber says %q (aria-valuetext %q), want %q", what, said.Words, said.ValueText, want)
	}
}

// TestRewindPhone drags the now-line back with a finger on a phone: the
// page shows what a fresh run stopped at that moment shows.
func TestRewindPhone(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	b.phone(t)
	end := b.playedRun(t)
	x, y, left := b.nowLine(t)
	b.run(t, "dragging the now-line back with a finger", dragTouch(x, (x+left)/2, y))
	dragged := b.settled(t, "waiting for the rewound run")
	if dragged.NowMS <= 0 || dragged.NowMS >= end.NowMS {
		t.Fatalf("after the drag the clock reads %d ms, want between 0 and the end, %d ms", dragged.NowMS, end.NowMS)
	}
	b.run(t, "showing the scrubber", chromedp.Evaluate(`document.querySelector('#rewind').scrollIntoView({block: "center"}), true`, new(bool)))
	b.viewShot(t, "rewind-phone.png")
	b.checkErrors(t)
	compareMoments(t, "dragged back with a finger", dragged, b.freshAt(t, rewindScenario.Encode(), dragged.NowMS))
}

// TestRewindThumbAtNow steps a paused run on from 0, a step at a time:
// each step moves the run past its horizon, so the scrubber's end and
// its value both grow in one render, and after each the thumb is where
// the value says (the page sets an input's attributes in no set order,
// and a value set before a larger max is clamped to the old max), and
// the end is at or after now, so that a drag to it never goes back.
func TestRewindThumbAtNow(t *testing.T) {
	b := newBrowser(t)
	b.run(t, "opening the scenario paused at 0",
		chromedp.Navigate(base+"/?v=2&t=0"+sim.LinkPrefix+rewindScenario.Encode()),
		chromedp.WaitVisible(mounted),
	)
	type thumb struct {
		Value, Max, Now, Horizon int
	}
	for i := range 10 {
		b.run(t, "stepping", chromedp.Click("#step", chromedp.ByQuery))
		m := b.settled(t, "waiting for the step")
		var th thumb
		b.run(t, "reading the scrubber", chromedp.Evaluate(`(() => {
			const el = document.querySelector('#scrubber');
			return {value: Number(el.value), max: Number(el.max), now: Number(document.querySelector('#stats').dataset.nowMs),
				horizon: Number(document.querySelector('#rewind').dataset.horizonMs)};
		})()`, &th))
		if th.Now != m.NowMS || th.Horizon != th.Now {
			t.Fatalf("step %d: the clock reads %d ms and the scrubber reaches %d ms, want a run stepped on at its horizon", i+1, th.Now, th.Horizon)
		}
		// The thumb snaps to the nearest step, the upper of two (HTML's
		// range input); the scrubber's end is a step at or after now.
		if want := min((th.Now+5)/10*10, th.Max); th.Value != want && th.Value != th.Now || th.Max < th.Now {
			t.Errorf("step %d: at %d ms (the scrubber's end %d ms), the thumb is at %d ms, want %d ms", i+1, th.Now, th.Max, th.Value, want)
		}
	}
	b.checkErrors(t)
}
