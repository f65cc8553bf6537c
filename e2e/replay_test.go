//go:build e2e

package e2e

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"sluice/wasm/sim"
)

// replayOutcome is what a replay must reproduce: the final counters and
// the whole event log.
type replayOutcome struct {
	Stats  stats
	Events []string
}

// readEvents is the event log as the page lists it, oldest first.
const readEvents = `(async () => {
	` + readLogFn + `
	return await readLog();
})()`

// byInstant sorts the events of each instant among themselves: the page
// lists the events of one instant (a cancel-all's) in the order their
// goroutines reported them.
func byInstant(es []string) []string {
	es = slices.Clone(es)
	for i := 0; i < len(es); {
		at, _, _ := strings.Cut(es[i], " | ")
		j := i + 1
		for j < len(es) && strings.HasPrefix(es[j], at+" | ") {
			j++
		}
		slices.Sort(es[i:j])
		i = j
	}
	return es
}

// finishedWith waits until the run has finished with tasks tasks, whatever
// its preset.
func (b *browser) finishedWith(t *testing.T, what string, tasks int) {
	t.Helper()
	var ok bool
	b.run(t, what, chromedp.Poll(fmt.Sprintf(`(() => {
		const s = document.querySelector('#stats').dataset;
		const pg = document.querySelector('#playground').dataset;
		return pg.phase === "finished" && s.finished === "true" && Number(s.tasks) === %d;
	})()`, tasks), &ok, chromedp.WithPollingTimeout(waitLong)))
}

func (b *browser) outcome(t *testing.T) replayOutcome {
	t.Helper()
	var o replayOutcome
	o.Stats = b.stats(t)
	b.run(t, "reading the event log", chromedp.Evaluate(readEvents, &o.Events, awaitPromise))
	if len(o.Events) == 0 {
		t.Fatalf("the event log is empty")
	}
	return o
}

func compareOutcomes(t *testing.T, got, want replayOutcome) {
	t.Helper()
	g, w := got.Stats, want.Stats
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"tasks", g.Tasks, w.Tasks}, {"succeeded", g.Succeeded, w.Succeeded}, {"failed", g.Failed, w.Failed},
		{"canceled", g.Canceled, w.Canceled}, {"panicked", g.Panicked, w.Panicked}, {"refused", g.Refused, w.Refused},
		{"withdrawn", g.Withdrawn, w.Withdrawn}, {"max running", g.MaxRunning, w.MaxRunning}, {"max tokens", g.MaxTokens, w.MaxTokens},
		{"recorded done", g.TraceDone, w.TraceDone}, {"recorded failed", g.TraceFail, w.TraceFail},
	} {
		if c.got != c.want {
			t.Errorf("after the reload, %s = %d; the run had %d", c.name, c.got, c.want)
		}
	}
	if ge, we := byInstant(got.Events), byInstant(want.Events); !reflect.DeepEqual(ge, we) {
		for i := range min(len(ge), len(we)) {
			if ge[i] != we[i] {
				t.Errorf("after the reload, event %d of the log = %q; the run had %q", i+1, ge[i], we[i])
				break
			}
		}
		t.Errorf("after the reload the event log has %d events; the run had %d", len(ge), len(we))
	}
}

// TestReplayReload does what a person does to the async semaphore preset:
// lets it finish, cancels all, adds a burst, pauses, cancels one task,
// steps, changes the limit, plays on, and while it plays cancels all and
// adds more; then reloads the page. The link replays the run event for
// event: the same counters and the same event log.
func TestReplayReload(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	var ok bool
	b.run(t, "opening the async semaphore preset at 10×",
		openPreset("semaphore"),
		chromedp.Evaluate(setSpeed, &ok),
	)
	ps, _ := sim.PresetByID("semaphore")
	n := totalTasks(ps.Scenario)
	b.waitFinished(t, "semaphore", n)

	b.run(t, "canceling all, then adding a burst, with the clock stopped",
		chromedp.Click("#cancel-all", chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#message').textContent.includes("canceled")`, &ok, chromedp.WithPollingTimeout(waitLong)),
		chromedp.Click("#add-burst", chromedp.ByQuery),
		// Paused from the page, in the poll that sees the run playing
		// again: at 10× the burst's tasks end within a quarter of a
		// second, sooner than a click sent from here may arrive on a
		// loaded machine.
		chromedp.Poll(`(() => {
			if (document.querySelector('#message').textContent.includes("Added 10 tasks") &&
				document.querySelector('#playground').dataset.phase === "playing") {
				document.querySelector('#play').click();
				return true;
			}
			return false;
		})()`, &ok, chromedp.WithPollingTimeout(waitLong)),
		chromedp.Poll(`document.querySelector('#playground').dataset.phase === "paused"`, &ok, chromedp.WithPollingTimeout(waitLong)),
	)
	n += 10
	// A task of the new burst that has not ended: cancel it by name, as
	// a click on its bar and the details sheet's Cancel do.
	victim := fmt.Sprintf("t%d", n) // the last of the burst: still waiting
	// The burst's "Added 10 tasks" is still shown: wait for the message
	// that names the task.
	b.run(t, "canceling one task",
		typeInto("#cancel-name", victim),
		chromedp.Click("#cancel-task", chromedp.ByQuery),
		chromedp.Poll(fmt.Sprintf(`document.querySelector('#message').textContent.includes(%q)`, victim), &ok, chromedp.WithPollingTimeout(waitLong)),
	)
	if s := b.stats(t); !strings.Contains(s.Message, victim+" was canceled") {
		t.Fatalf("after canceling %s the message is %q", victim, s.Message)
	}
	b.run(t, "stepping, changing the limit",
		chromedp.Click("#step", chromedp.ByQuery),
		chromedp.Click("#step", chromedp.ByQuery),
		typeInto("#limit-now", "2"),
		chromedp.Click("#set-limit", chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#stats').dataset.limit === "2"`, &ok, chromedp.WithPollingTimeout(waitLong)),
	)
	b.run(t, "playing, and while it plays at 10×, canceling all and adding a burst",
		chromedp.Click("#play", chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#playground').dataset.phase === "playing"`, &ok, chromedp.WithPollingTimeout(waitLong)),
		chromedp.Click("#cancel-all", chromedp.ByQuery),
		chromedp.Click("#add-burst", chromedp.ByQuery),
	)
	n += 10
	b.finishedWith(t, "waiting for the run to finish", n)
	first := b.outcome(t)
	if first.Stats.Canceled == 0 || first.Stats.Succeeded == 0 {
		t.Fatalf("the run canceled %d and finished %d tasks; the test wants some of each", first.Stats.Canceled, first.Stats.Succeeded)
	}
	var href string
	b.run(t, "reading the address bar", chromedp.Evaluate(`location.href`, &href))
	if !strings.Contains(href, "?v="+strconv.Itoa(sim.Version)+"#s=") {
		t.Errorf("the address bar holds %q, want a link of version %d", href, sim.Version)
	}
	sc, err := sim.Decode(first.Stats.Link)
	if err != nil {
		t.Fatalf("the run's link does not decode: %v", err)
	}
	kinds := map[string]bool{}
	for _, st := range sc.Log {
		kinds[st.Do] = true
	}
	for _, k := range []string{sim.ActionCancelAll, sim.StepBurst, sim.StepCancel, sim.ActionLimit, sim.StepPause, sim.StepStep} {
		if !kinds[k] {
			t.Errorf("the link's log has no %q entry: %+v", k, sc.Log)
		}
	}

	b.run(t, "reloading the page",
		chromedp.Reload(),
		chromedp.WaitVisible(mounted),
	)
	b.finishedWith(t, "waiting for the replay to finish", n)
	compareOutcomes(t, b.outcome(t), first)

	// A person given the link sees the same run.
	b2 := newBrowser(t)
	b2.run(t, "opening the link in another tab",
		chromedp.Navigate(href),
		chromedp.WaitVisible(mounted),
	)
	b2.finishedWith(t, "waiting for the run of the link", n)
	compareOutcomes(t, b2.outcome(t), first)
	b.checkClean(t)
	b2.checkClean(t)
}

// packLink deflates and encodes a scenario's JSON as a link carries it.
func packLink(js string) string {
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.BestCompression)
	w.Write([]byte(js))
	w.Close()
	return base64.RawURLEncoding.EncodeToString(buf.Bytes())
}

// TestReplayOldLink opens a link of version 1, whose burst and cancel-all
// of one instant ran burst first: it still runs as it did.
func TestReplayOldLink(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	v1 := packLink(`{"v":1,"primitive":"semaphore","seed":2,"limit":1,"speed":10,` +
		`"bursts":[{"count":2,"minMs":100,"maxMs":100},{"at":500,"count":3,"minMs":100,"maxMs":100}],` +
		`"actions":[{"at":500,"do":"cancel-all"}]}`)
	b.run(t, "opening a version-1 link",
		chromedp.Navigate(base+"/?v=1#s="+v1),
		chromedp.WaitVisible(mounted),
	)
	b.finishedWith(t, "waiting for its run", 5)
	if s := b.stats(t); s.Succeeded != 2 || s.Canceled != 3 || s.Kind == "error" {
		t.Errorf("a version-1 link ran %d done, %d canceled (notice %q); want 2 done, 3 canceled, as it always did", s.Succeeded, s.Canceled, s.Message)
	}
	b.checkClean(t)
}

// TestMalformedLinkKept opens a damaged link and a link from a newer
// playground: the page says what is wrong and keeps working, and the
// person's link stays in the address bar, so that a reload opens it again.
func TestMalformedLinkKept(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	var ok bool
	ps, _ := sim.PresetByID("semaphore")
	for _, tc := range []struct {
		name, url, want string
	}{
		{"damaged", base + "/?v=2#s=not*a%20scenario", "link"},
		{"newer", base + "/?v=99#s=" + ps.Scenario.Encode(), "reload"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b.run(t, "opening the link",
				chromedp.Navigate(tc.url),
				chromedp.WaitVisible(mounted),
				chromedp.WaitVisible(`#message[data-kind="error"]`),
				chromedp.Poll(`Number(document.querySelector('#stats').dataset.nowMs) > 300`, &ok, chromedp.WithPollingTimeout(waitLong)),
			)
			s := b.stats(t)
			if !strings.Contains(s.Message, tc.want) {
				t.Errorf("message = %q, want it to speak of the %s", s.Message, tc.want)
			}
			var href string
			b.run(t, "reading the address bar", chromedp.Evaluate(`location.href`, &href))
			if href != tc.url {
				t.Errorf("the address bar holds %q, want the person's link %q", href, tc.url)
			}
			b.run(t, "reloading, as the message advises",
				chromedp.Reload(),
				chromedp.WaitVisible(mounted),
				chromedp.WaitVisible(`#message[data-kind="error"]`),
				chromedp.Evaluate(`location.href`, &href),
			)
			if href != tc.url {
				t.Errorf("after a reload the address bar holds %q, want the person's link %q", href, tc.url)
			}
			// The page works: a change of preset puts its link in the bar.
			b.run(t, "choosing a preset",
				chromedp.Click("#preset-keyed-devices", chromedp.ByQuery),
				chromedp.Poll(`location.hash.startsWith("#s=") && document.querySelector('#playground').dataset.preset === "keyed-devices"`, &ok, chromedp.WithPollingTimeout(waitLong)),
			)
		})
	}
	b.checkClean(t)
}

// typeInto types value into the input sel and commits it, as a person does.
func typeInto(sel, value string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var ok bool
		return chromedp.Run(ctx, chromedp.Evaluate(fmt.Sprintf(`(() => {
			const el = document.querySelector(%q);
			el.value = %q;
			el.dispatchEvent(new Event('change', {bubbles: true}));
			return true;
		})()`, sel, value), &ok))
	})
}

// TestRejectedValuesCleared types values the playground refuses: each gets
// a clear message, and none stays in the form once refused, across
// preset and primitive changes.
func TestRejectedValuesCleared(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	var ok bool
	b.run(t, "opening the work queue preset",
		openPreset("workqueue-cancel"),
	)
	value := func(sel string) string {
		t.Helper()
		var v string
		b.run(t, "reading "+sel, chromedp.Evaluate(fmt.Sprintf(`document.querySelector(%q).value`, sel), &v))
		return v
	}
	refuse := func(sel, typed, want, keep string) {
		t.Helper()
		b.run(t, "typing "+typed+" into "+sel,
			chromedp.Evaluate(`document.querySelector('#dismiss')?.click(), true`, &ok),
			chromedp.Poll(`document.querySelector('#message').dataset.kind === "none"`, &ok, chromedp.WithPollingTimeout(waitLong)),
			typeInto(sel, typed),
			chromedp.Poll(`document.querySelector('#message').dataset.kind === "error"`, &ok, chromedp.WithPollingTimeout(waitLong)),
		)
		if s := b.stats(t); !strings.Contains(s.Message, want) {
			t.Errorf("after %s in %s the message is %q, want it to say %q", typed, sel, s.Message, want)
		}
		if got := value(sel); got != keep {
			t.Errorf("after %s was refused, %s shows %q, want the value in effect, %q", typed, sel, got, keep)
		}
	}
	refuse("#seed", "-1", "seed must be 0 or more; it is -1", "13")
	refuse("#capacity", "-1", "must be between 0 (unbounded) and 10,000; it is -1", "0")
	refuse("#limit", "0", "between 1 and 10,000; it is 0", "3")
	refuse("#limit", "-3", "between 1 and 10,000; it is -3", "3")
	if s := b.stats(t); s.MaxLimit != 3 {
		t.Errorf("the limit became %d: a refused limit was applied", s.MaxLimit)
	}

	b.run(t, "changing the primitive to Processor",
		chromedp.SetValue("#primitive", sim.Processor, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('#primitive').dispatchEvent(new Event('change', {bubbles: true})), true`, &ok),
		chromedp.Poll(`document.querySelector('#playground').dataset.primitive === "processor"`, &ok, chromedp.WithPollingTimeout(waitLong)),
	)
	for sel, want := range map[string]string{"#seed": "13", "#capacity": "0", "#limit": "3"} {
		if got := value(sel); got != want {
			t.Errorf("after a primitive change, %s shows %q, want %q", sel, got, want)
		}
	}
	refuse("#seed", "-1", "seed must be 0 or more; it is -1", "13")
	b.run(t, "choosing the async semaphore preset",
		chromedp.Click("#preset-semaphore", chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#playground').dataset.preset === "semaphore"`, &ok, chromedp.WithPollingTimeout(waitLong)),
	)
	if got := value("#seed"); got != "2" {
		t.Errorf("after a preset change, #seed shows %q, want the preset's 2", got)
	}
	refuse("#limit", "0", "between 1 and 10,000; it is 0", "3")
	refuse("#limit-now", "-3", "between 1 and 10,000; it is -3", "3")

	// A refused value gives way to the value in effect now, not to the
	// one the field first showed: this preset's limit is 2, its seed 3,
	// its aging step 1,000 ms; the page opened with 3, 13 and none.
	b.run(t, "choosing the priority semaphore preset",
		chromedp.Click("#preset-priority-semaphore", chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#playground').dataset.preset === "priority-semaphore"`, &ok, chromedp.WithPollingTimeout(waitLong)),
	)
	refuse("#limit", "0", "between 1 and 10,000; it is 0", "2")
	refuse("#seed", "-1", "seed must be 0 or more; it is -1", "3")
	b.run(t, "setting the limit to 5",
		typeInto("#limit", "5"),
		chromedp.Poll(`document.querySelector('#stats').dataset.limit === "5"`, &ok, chromedp.WithPollingTimeout(waitLong)),
	)
	refuse("#limit", "-1", "between 1 and 10,000; it is -1", "5")

	// A group's fields name the group the primitive has: a consumer of
	// Consume, a work queue sharing the limit once the primitive is
	// changed to that.
	b.run(t, "choosing the consumers preset",
		chromedp.Click("#preset-consumers", chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#playground').dataset.preset === "consumers"`, &ok, chromedp.WithPollingTimeout(waitLong)),
	)
	refuse("#consumer-1-priority", "x", "consumer's priority must be a whole number", "1")
	refuse("#consumer-1-concurrency", "0", "concurrency", "3")
	b.run(t, "changing the primitive to shared",
		chromedp.SetValue("#primitive", sim.Shared, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('#primitive').dispatchEvent(new Event('change', {bubbles: true})), true`, &ok),
		chromedp.Poll(`document.querySelector('#playground').dataset.primitive === "shared" && !!document.querySelector('#queue-1-priority')`, &ok, chromedp.WithPollingTimeout(waitLong)),
	)
	refuse("#queue-1-priority", "x", "queue's priority must be a whole number", value("#queue-1-priority"))
	b.checkClean(t)
}

// TestBlankSlate starts from the blank slate: the advertised 10,000-task
// burst is accepted, and Reset clears the person's work.
func TestBlankSlate(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	var ok bool
	b.run(t, "choosing the blank slate",
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(mounted),
		chromedp.Click("#preset-"+sim.BlankID, chromedp.ByQuery),
		chromedp.Poll(fmt.Sprintf(`document.querySelector('#playground').dataset.preset === %q && document.querySelector('#stats').dataset.tasks === "0"`, sim.BlankID),
			&ok, chromedp.WithPollingTimeout(waitLong)),
	)
	b.run(t, "adding 10,000 tasks",
		typeInto("#burst-count", "10000"),
		chromedp.Click("#add-burst", chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#message').dataset.kind !== "none"`, &ok, chromedp.WithPollingTimeout(waitLong)),
	)
	if s := b.stats(t); !strings.Contains(s.Message, "Added 10,000 tasks") {
		t.Fatalf("after a burst of 10,000 on the blank slate the message is %q (%s), want it added", s.Message, s.Kind)
	}
	b.run(t, "handing the burst over",
		chromedp.Poll(`Number(document.querySelector('#stats').dataset.tasks) === 10000 && Number(document.querySelector('#stats').dataset.scheduled) === 0`,
			&ok, chromedp.WithPollingTimeout(waitLong)))
	if s := b.stats(t); s.Refused != 0 {
		t.Errorf("%d tasks were refused", s.Refused)
	}
	b.run(t, "resetting",
		chromedp.Click("#reset", chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#stats').dataset.tasks === "0"`, &ok, chromedp.WithPollingTimeout(waitLong)),
		chromedp.Poll(`document.querySelector('#playground').dataset.phase === "finished"`, &ok, chromedp.WithPollingTimeout(waitLong)),
	)
	s := b.stats(t)
	sc, err := sim.Decode(s.Link)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Log) != 0 || s.Preset != sim.BlankID {
		t.Errorf("after Reset the link's log holds %d entries and the preset is %q; want an empty log and the blank slate", len(sc.Log), s.Preset)
	}

	// Reset clears work added to a preset too.
	ps, _ := sim.PresetByID("semaphore")
	b.run(t, "adding work to a preset, then resetting",
		chromedp.Click("#preset-semaphore", chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#playground').dataset.preset === "semaphore"`, &ok, chromedp.WithPollingTimeout(waitLong)),
		chromedp.Click("#add-burst", chromedp.ByQuery),
		chromedp.Poll(fmt.Sprintf(`Number(document.querySelector('#stats').dataset.tasks) === %d`, totalTasks(ps.Scenario)+10), &ok, chromedp.WithPollingTimeout(waitLong)),
		chromedp.Click("#reset", chromedp.ByQuery),
		chromedp.Poll(fmt.Sprintf(`Number(document.querySelector('#stats').dataset.tasks) <= %d && document.querySelector('#playground').dataset.preset === "semaphore"`, totalTasks(ps.Scenario)),
			&ok, chromedp.WithPollingTimeout(waitLong)),
	)
	b.checkClean(t)
}

// TestCodeView reads the Go code of a scenario, with the person's work in
// it, copies it, and takes screenshots at desktop and phone size.
func TestCodeView(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	var ok bool
	b.run(t, "opening the async semaphore preset",
		cdpbrowser.SetPermission(&cdpbrowser.PermissionDescriptor{Name: "clipboard-read"}, cdpbrowser.PermissionSettingGranted).WithOrigin(base),
		cdpbrowser.SetPermission(&cdpbrowser.PermissionDescriptor{Name: "clipboard-write"}, cdpbrowser.PermissionSettingGranted).WithOrigin(base),
		openPreset("semaphore"),
	)
	var code string
	b.run(t, "reading the code", chromedp.Evaluate(`document.querySelector('#code-text').value`, &code))
	ps, _ := sim.PresetByID("semaphore")
	// The view indents by four spaces; a textarea's value drops the
	// text's last newline.
	shown := func(program string) string {
		return strings.ReplaceAll(strings.TrimSuffix(program, "\n"), "\t", "    ")
	}
	if want := shown(ps.Scenario.GoCode()); code != want {
		i := 0
		for i < min(len(code), len(want)) && code[i] == want[i] {
			i++
		}
		t.Errorf("the code view shows %d characters, want the preset's program of %d; they differ at %d: %q, want %q",
			len(code), len(want), i, code[i:min(i+40, len(code))], want[i:min(i+40, len(want))])
	}
	for _, want := range []string{"package main", `"sluice/core"`, "core.NewSemaphore(3", "weight: 3", "sem.Do("} {
		if !strings.Contains(code, want) {
			t.Errorf("the code lacks %q", want)
		}
	}
	b.run(t, "adding work and changing the limit",
		typeInto("#burst-count", "7"),
		chromedp.Click("#add-burst", chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#message').textContent.includes("Added 7 tasks")`, &ok, chromedp.WithPollingTimeout(waitLong)),
		typeInto("#limit-now", "5"),
		chromedp.Click("#set-limit", chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#code-text').value.includes("do: func() { setLimit(5) }") && document.querySelector('#code-text').value.includes("count: 7,")`,
			&ok, chromedp.WithPollingTimeout(waitLong)),
		chromedp.Evaluate(`document.querySelector('#code-text').value`, &code),
	)
	var link string
	b.run(t, "reading the link", chromedp.Evaluate(`document.querySelector('#stats').dataset.link`, &link))
	sc, err := sim.Decode(link)
	if err != nil {
		t.Fatal(err)
	}
	program := sc.GoCode()
	if shown(program) != code {
		t.Errorf("the code view does not show the program of the link's scenario")
	}

	var clip string
	b.run(t, "copying the code",
		chromedp.Click("#copy-code", chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#message').textContent.includes("Code copied")`, &ok, chromedp.WithPollingTimeout(waitLong)),
		chromedp.Evaluate(`navigator.clipboard.readText()`, &clip, awaitPromise),
	)
	if clip != program {
		t.Errorf("the clipboard holds %d characters, want the %d of the program", len(clip), len(program))
	}

	shot := func(name string) {
		t.Helper()
		var png []byte
		b.run(t, "screenshot of the code view",
			chromedp.ScrollIntoView("#code", chromedp.ByQuery),
			chromedp.Screenshot("#code", &png, chromedp.ByQuery))
		if err := os.MkdirAll("artifacts", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("artifacts", name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shot("code-view.png")
	b.run(t, "emulating a 390×844 phone",
		emulation.SetDeviceMetricsOverride(390, 844, 3, true),
		emulation.SetTouchEmulationEnabled(true).WithMaxTouchPoints(5),
	)
	var fits bool
	b.run(t, "checking the code view fits the phone", chromedp.Evaluate(`(() => {
		const r = document.querySelector('#code').getBoundingClientRect();
		return r.left >= 0 && r.right <= window.innerWidth + 1;
	})()`, &fits))
	if !fits {
		t.Errorf("the code view is wider than the phone's screen")
	}
	shot("code-view-phone.png")
	b.checkClean(t)
}

// TestPresetsAsDescribed pauses the presets whose pictures had to match
// their text at a telling moment, checks what the counters say, and takes
// a screenshot of each to look at. (The pause comes a frame or so after
// the moment: the page plays at 1×.)
func TestPresetsAsDescribed(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	var ok bool
	b.run(t, "loading the playground", chromedp.Navigate(base+"/"), chromedp.WaitVisible(mounted))
	for _, tc := range []struct {
		id    string
		pause string // when to pause, a condition on the counters s in JavaScript
		check string // what must then hold
		why   string
	}{
		// The heavy request waits at the head while a token is free.
		{"semaphore", `Number(s.running) === 2 && Number(s.waiting) === 7`, `Number(s.maxTokens) === 3`,
			"the heavy request waits at the head, the small ones behind it, while a token is free"},
		{"keyed-devices", `Number(s.lanes) === 4`, `Number(s.lanes) === 4`, "four devices, four lanes"},
		{"consumers", `Number(s.nowMs) >= 1000`, `Number(s.backlog) > 0`,
			"messages not yet taken by their consumer wait in its channel, apart from the semaphore's queue"},
		{sim.BlankID, `Number(s.nowMs) >= 300 || document.querySelector('#playground').dataset.phase === "finished"`, `Number(s.tasks) === 0`, "no work"},
	} {
		b.run(t, "choosing "+tc.id,
			chromedp.Click("#preset-"+tc.id, chromedp.ByQuery),
			chromedp.Poll(fmt.Sprintf(`document.querySelector('#playground').dataset.preset === %q`, tc.id), &ok, chromedp.WithPollingTimeout(waitLong)),
			chromedp.Poll(fmt.Sprintf(`(() => { const s = document.querySelector('#stats').dataset; return %s; })()`, tc.pause),
				&ok, chromedp.WithPollingTimeout(waitLong)),
			chromedp.Evaluate(`document.querySelector('#playground').dataset.phase === "playing" && document.querySelector('#play').click(), true`, &ok),
			chromedp.Poll(`document.querySelector('#playground').dataset.phase !== "playing"`, &ok, chromedp.WithPollingTimeout(waitLong)),
		)
		var held bool
		b.run(t, "reading the counters", chromedp.Evaluate(fmt.Sprintf(`(() => {
			const s = document.querySelector('#stats').dataset;
			return %s;
		})()`, tc.check), &held))
		if !held {
			t.Errorf("%s paused when %s: %s does not hold (%s)", tc.id, tc.pause, tc.check, tc.why)
		}
		var png []byte
		b.run(t, "screenshot", chromedp.ScrollIntoView(".view", chromedp.ByQuery), chromedp.Screenshot(".view", &png, chromedp.ByQuery))
		if err := os.MkdirAll("artifacts", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("artifacts", "described-"+tc.id+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b.checkClean(t)
}

// TestCodeViewReplay loads a trace: the code view says that the timeline
// shows that trace and that there is no program for it, offers no code to
// copy, and leads back to the live scenario, whose program it shows again.
func TestCodeViewReplay(t *testing.T) {
	t.Parallel()
	file := foreignTrace(t, 40, 2, 0, 100_000, 80_000)
	name := filepath.Base(file)
	ps := sim.Presets()[0]
	program := strings.ReplaceAll(strings.TrimSuffix(ps.Scenario.GoCode(), "\n"), "\t", "    ")
	eachSize(t, func(t *testing.T, b *browser, size string) {
		var ok bool
		var code string
		b.run(t, "loading the playground",
			chromedp.Navigate(base+"/"),
			chromedp.WaitVisible(mounted),
			chromedp.Evaluate(`document.querySelector('#code-text').value`, &code),
		)
		if code != program {
			t.Fatalf("before the trace, the code view shows %d characters, want the first preset's program of %d", len(code), len(program))
		}
		b.run(t, "loading a trace",
			chromedp.SetUploadFiles("#load-trace", []string{file}, chromedp.ByQuery),
			chromedp.Poll(`document.querySelector('#playground').dataset.phase === "replay"`, &ok, chromedp.WithPollingTimeout(waitLong)),
		)
		var shown struct {
			Code   bool   `json:"code"`
			Copy   bool   `json:"copy"`
			Note   string `json:"note"`
			Button string `json:"button"`
			Link   bool   `json:"link"`
			Embed  bool   `json:"embed"`
			Share  string `json:"share"`
		}
		b.run(t, "reading the code view", chromedp.Evaluate(`(() => {
			const q = (s) => document.querySelector('#code ' + s);
			const share = document.querySelector('#share-replay');
			return {code: !!q('#code-text'), copy: !!q('#copy-code') && !q('#copy-code').disabled,
				note: q('#code-none') ? q('#code-none').textContent : "", button: q('#code-back-to-live') ? q('#code-back-to-live').textContent : "",
				link: !document.querySelector('#copy-link').disabled, embed: !document.querySelector('#copy-embed').disabled,
				share: share ? share.textContent : ""};
		})()`, &shown))
		// The share card's link and snippet carry a scenario, not the
		// trace shown: they are off, and the card says why.
		if shown.Link || shown.Embed || !strings.Contains(shown.Share, "no link") {
			t.Errorf("in replay Copy link enabled: %v, Copy embed snippet enabled: %v, share note %q; want both off and a note saying a trace has no link", shown.Link, shown.Embed, shown.Share)
		}
		if shown.Code || shown.Copy {
			t.Errorf("in replay the code view shows code: %v, an enabled Copy button: %v; want neither", shown.Code, shown.Copy)
		}
		if !strings.Contains(shown.Note, name) || !strings.Contains(shown.Note, "no Go program") {
			t.Errorf("in replay the code view says %q, want it to name the trace %q and say there is no Go program for it", shown.Note, name)
		}
		if shown.Button != "Back to live" {
			t.Errorf("in replay the code view's button says %q, want “Back to live”", shown.Button)
		}
		var png []byte
		b.run(t, "screenshot of the code view",
			chromedp.ScrollIntoView("#code", chromedp.ByQuery),
			chromedp.Screenshot("#code", &png, chromedp.ByQuery))
		if err := os.MkdirAll("artifacts", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("artifacts", "code-view-replay-"+size+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
		// By keyboard, as a person who tabbed there would.
		b.run(t, "going back to live from the code view",
			chromedp.Focus("#code-back-to-live", chromedp.ByQuery),
			chromedp.KeyEvent(kb.Enter),
			chromedp.Poll(`document.querySelector('#playground').dataset.phase !== "replay" && !!document.querySelector('#code-text')`, &ok, chromedp.WithPollingTimeout(waitLong)),
			chromedp.Evaluate(`document.querySelector('#code-text').value`, &code),
		)
		if code != program {
			t.Errorf("back to live, the code view shows %d characters, want the first preset's program of %d", len(code), len(program))
		}
		b.checkErrors(t)
	})
}
