//go:build e2e

package e2e

import (
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

// compareView is what the page shows of a comparison: its diff table, each
// run's own tables (wait table and counters), and its two timelines.
type compareView struct {
	Preset string              `json:"preset"`
	Phase  string              `json:"phase"`
	Diff   map[string][]string `json:"diff"`   // data-row: measure, A, B, B/A, better
	WaitsA map[string][]string `json:"waitsA"` // data-priority: priority, tasks, p50, p95, max
	WaitsB map[string][]string `json:"waitsB"`
	Counts map[string]string   `json:"counts"` // counter ID: shown value
	PlotA  string              `json:"plotA"`  // the timelines' plots, left and right edges
	PlotB  string              `json:"plotB"`
	FromA  string              `json:"fromA"` // their windows
	FromB  string              `json:"fromB"`
	ToA    string              `json:"toA"`
	ToB    string              `json:"toB"`
	TasksA string              `json:"tasksA"`
	TasksB string              `json:"tasksB"`
	Href   string              `json:"href"`
	CodeA  string              `json:"codeA"`
	CodeB  string              `json:"codeB"`
}

const readCompare = `(() => {
	const rows = (sel, key) => {
		const out = {};
		for (const tr of document.querySelectorAll(sel + ' tr[data-' + key + ']'))
			out[tr.dataset[key]] = [...tr.querySelectorAll('th, td')].map((c) => c.textContent.trim());
		return out;
	};
	const counts = {};
	for (const id of ['done', 'failed', 'canceled', 'panicked', 'throughput'])
		for (const pre of ['', 'b-']) {
			const el = document.querySelector('#c-' + pre + id);
			counts[pre + id] = el ? el.textContent.trim() : '';
		}
	const a = document.querySelector('#timeline').dataset;
	const bc = document.querySelector('#timeline-b');
	const b = bc ? bc.dataset : {};
	const code = (id) => { const el = document.querySelector(id); return el ? el.value : ''; };
	return {
		preset: document.querySelector('#playground').dataset.preset,
		phase: document.querySelector('#playground').dataset.phase,
		diff: rows('#diff-table', 'row'), waitsA: rows('#waits', 'priority'), waitsB: rows('#waits-b', 'priority'),
		counts, plotA: a.plot || '', plotB: b.plot || '', fromA: a.fromUs || '', fromB: b.fromUs || '',
		toA: a.toUs || '', toB: b.toUs || '', tasksA: a.tasks || '', tasksB: b.tasks || '',
		href: location.href, codeA: code('#code-text'), codeB: code('#code-text-b'),
	};
})()`

// waitCompared waits until the page shows comparison preset id (or any
// comparison, for "") with both runs finished, and returns what it shows.
func (b *browser) waitCompared(t *testing.T, id string) compareView {
	t.Helper()
	var ok bool
	defer func() {
		if t.Failed() {
			var st string
			chromedp.Run(b.ctx, chromedp.Evaluate(`JSON.stringify({pg: document.querySelector('#playground').dataset, sb: (document.querySelector('#stats-b')||{}).dataset, sa: document.querySelector('#stats').dataset.finished, msg: document.querySelector('#message').textContent, href: location.href.slice(0, 60)})`, &st))
			t.Logf("page: %s", st)
		}
	}()
	b.run(t, "waiting for the comparison "+id+" to finish", chromedp.Poll(fmt.Sprintf(`(() => {
		const pg = document.querySelector('#playground').dataset;
		const sb = document.querySelector('#stats-b');
		const c = document.querySelector('#timeline-b');
		return (%q === "" || pg.preset === %q) && pg.phase === "finished" && !!sb && sb.dataset.finished === "true" &&
			document.querySelector('#stats').dataset.finished === "true" && !!c && !!c.dataset.plot &&
			document.querySelectorAll('#diff-table tr[data-row]').length > 0;
	})()`, id, id), &ok, chromedp.WithPollingTimeout(waitLong)))
	var v compareView
	b.run(t, "reading the comparison", chromedp.Evaluate(readCompare, &v))
	return v
}

// checkCompared checks that the diff table's numbers are the two runs'
// own, cell for cell, and that both timelines share one time axis.
func checkCompared(t *testing.T, v compareView) {
	t.Helper()
	if len(v.WaitsA) == 0 || len(v.WaitsB) == 0 {
		t.Fatalf("wait tables: A %v, B %v; want rows in both", v.WaitsA, v.WaitsB)
	}
	cells := 0
	for _, side := range []struct {
		name  string
		waits map[string][]string
		col   int
		pre   string
	}{{"A", v.WaitsA, 1, ""}, {"B", v.WaitsB, 2, "b-"}} {
		for prio, own := range side.waits {
			for i, m := range []string{"tasks", "p50", "p95", "max"} {
				row := v.Diff["wait-"+prio+"-"+m]
				if len(row) != 5 {
					t.Errorf("diff table row wait-%s-%s = %q, want 5 cells", prio, m, row)
					continue
				}
				if row[side.col] != own[i+1] {
					t.Errorf("diff table: priority %s %s of run %s = %q; the run's own table says %q", prio, m, side.name, row[side.col], own[i+1])
				}
				cells++
			}
		}
		for _, m := range []string{"done", "failed", "canceled", "panicked", "throughput"} {
			if got, want := v.Diff[m][side.col], v.Counts[side.pre+m]; got != want {
				t.Errorf("diff table: %s of run %s = %q; the run's counter says %q", m, side.name, got, want)
			}
			cells++
		}
	}
	if cells < 20 {
		t.Errorf("compared %d cells, want 20 or more", cells)
	}
	better := 0
	for _, row := range v.Diff {
		if len(row) == 5 && (row[4] == "A better" || row[4] == "B better") {
			better++
		}
	}
	if better == 0 {
		t.Errorf("no row of the diff table says which run did better: %v", v.Diff)
	}
	if v.PlotA == "" || v.PlotA != v.PlotB || v.FromA != v.FromB || v.ToA != v.ToB {
		t.Errorf("timelines A (plot %s, window %s..%s µs) and B (plot %s, window %s..%s µs): want one time axis",
			v.PlotA, v.FromA, v.ToA, v.PlotB, v.FromB, v.ToB)
	}
	if v.CodeA == "" || v.CodeB == "" || v.CodeA == v.CodeB {
		t.Errorf("code view: A has %d bytes and B %d; want both programs, different", len(v.CodeA), len(v.CodeB))
	}
}

// scrollToRuns puts the two timelines at the top of the viewport.
var scrolled bool
var scrollToRuns = chromedp.Evaluate(`document.querySelector('#run-a-label').scrollIntoView({block: "start"}), window.scrollBy(0, -8), true`, &scrolled)

// TestCompare opens each comparison preset at desktop and phone size: the
// diff table equals the two runs' own tables, both timelines share one
// axis, zoom and pan move both (mouse and touch); a comparison's link
// opened in a fresh profile shows the same two runs; the compare controls
// work from the keyboard and have accessible names; axe-core finds no
// serious or critical violation with a comparison open.
func TestCompare(t *testing.T) {
	t.Parallel()
	var last, rewound compareView
	t.Run("desktop", func(t *testing.T) {
		b := newBrowser(t)
		b.run(t, "loading the playground",
			chromedp.Navigate(base+"/"),
			chromedp.WaitVisible(mounted),
			chromedp.WaitVisible(`#timeline[data-interactive="true"]`),
		)
		for _, ps := range sim.ComparePresets() {
			var ok bool
			b.run(t, "opening "+ps.ID,
				chromedp.Click("#preset-"+ps.ID, chromedp.ByQuery),
				chromedp.Poll(fmt.Sprintf(`document.querySelector('#playground').dataset.preset === %q && !!document.querySelector('#timeline-b')`, ps.ID),
					&ok, chromedp.WithPollingTimeout(waitLong)),
				chromedp.Evaluate(setSpeed, &ok),
			)
			v := b.waitCompared(t, ps.ID)
			checkCompared(t, v)
			b.run(t, "fitting the runs", chromedp.Click("#zoom-fit", chromedp.ByQuery), chromedp.Sleep(300e6),
				chromedp.Evaluate(`document.querySelector('.view').scrollIntoView({block: "start"}), true`, &ok))
			b.viewShot(t, "compare-"+ps.ID+".png")
			last = v
		}
		reportAxe(t, "/ with a comparison", b.runAxe(t))

		// A rewind moves both runs: the scrubber set to 2 s shows both at
		// 2 s, the diff table still equal to their own tables, and the
		// address bar carries the moment with the comparison.
		var at compareView
		var ok bool
		b.run(t, "rewinding both runs to 2 s",
			chromedp.Evaluate(`(() => { const s = document.querySelector('#scrubber'); s.value = "2000";
				s.dispatchEvent(new Event('input', {bubbles: true})); return true; })()`, &ok),
			chromedp.Poll(`document.querySelector('#rewind').dataset.seeking === "false" &&
				document.querySelector('#stats').dataset.nowMs === "2000" && document.querySelector('#stats-b').dataset.nowMs === "2000" &&
				location.search.includes('t=') && location.hash.startsWith('#c=')`, &ok, chromedp.WithPollingTimeout(waitLong)),
			chromedp.Sleep(300e6),
			chromedp.Evaluate(readCompare, &at),
		)
		checkCompared(t, at)
		rewound = at

		// The wheel on run B's timeline zooms both.
		var r struct{ X, Y float64 }
		b.run(t, "finding run B's timeline", chromedp.Evaluate(`(() => { const c = document.querySelector('#timeline-b');
			c.scrollIntoView({block: "center"}); const r = c.getBoundingClientRect();
			return {x: r.left + r.width / 2, y: r.top + 40}; })()`, &r))
		before := at
		var zoomed compareView
		b.run(t, "zooming with the wheel on run B",
			input.DispatchMouseEvent(input.MouseWheel, r.X, r.Y).WithDeltaY(-400),
			chromedp.Sleep(400e6),
			chromedp.Evaluate(readCompare, &zoomed),
		)
		if zoomed.FromA != zoomed.FromB || zoomed.ToA != zoomed.ToB || zoomed.ToA == before.ToA && zoomed.FromA == before.FromA {
			t.Errorf("after a wheel zoom on run B: A %s..%s, B %s..%s (before %s..%s); want both zoomed together",
				zoomed.FromA, zoomed.ToA, zoomed.FromB, zoomed.ToB, before.FromA, before.ToA)
		}

		// The arrow keys on run B's focused timeline pan both.
		var panned compareView
		b.run(t, "panning with the arrow keys on run B",
			chromedp.Focus("#timeline-b", chromedp.ByQuery), chromedp.KeyEvent(kb.ArrowLeft), chromedp.KeyEvent(kb.ArrowLeft),
			chromedp.Poll(fmt.Sprintf(`document.querySelector('#timeline').dataset.fromUs !== %q && document.querySelector('#timeline-b').dataset.fromUs !== %q`,
				zoomed.FromA, zoomed.FromB), &ok, chromedp.WithPollingTimeout(waitLong)),
			chromedp.Sleep(300e6),
			chromedp.Evaluate(readCompare, &panned),
		)
		if panned.FromA != panned.FromB || panned.ToA != panned.ToB {
			t.Errorf("after two left arrows on run B: A %s..%s, B %s..%s (before %s..%s); want both panned together",
				panned.FromA, panned.ToA, panned.FromB, panned.ToB, zoomed.FromA, zoomed.ToA)
		}

		// The compare controls, from the keyboard: each has a name.
		var names map[string]string
		b.run(t, "reading the compare controls' names", chromedp.Evaluate(`(() => {
			const out = {};
			for (const id of ['compare-primitive', 'compare-limit', 'compare-start', 'compare-stop', 'timeline-b', 'diff-table']) {
				const el = document.getElementById(id);
				if (!el) { out[id] = ''; continue; }
				const lab = el.labels && el.labels.length ? el.labels[0].textContent : '';
				out[id] = (el.getAttribute('aria-label') || lab || el.textContent || '').trim().slice(0, 60);
			}
			return out;
		})()`, &names))
		for id, name := range names {
			if name == "" {
				t.Errorf("#%s has no accessible name", id)
			}
		}
		var changes string
		b.run(t, "setting run B's parallelism to 3 and applying it, by keyboard",
			chromedp.Click("#preset-compare-parallelism", chromedp.ByQuery),
			chromedp.Poll(`document.querySelector('#playground').dataset.preset === "compare-parallelism" && !!document.querySelector('#timeline-b')`, &ok, chromedp.WithPollingTimeout(waitLong)),
			chromedp.Poll(`document.querySelector('#compare-limit').value === "4" && !document.querySelector('#compare-stop').hidden`, &ok, chromedp.WithPollingTimeout(waitLong)),
			chromedp.Focus("#compare-limit", chromedp.ByQuery),
			chromedp.Evaluate(`document.querySelector('#compare-limit').select(), true`, &ok),
			chromedp.KeyEvent("3"),
			chromedp.KeyEvent(kb.Tab),
			chromedp.Focus("#compare-start", chromedp.ByQuery),
			chromedp.KeyEvent(kb.Enter),
			chromedp.Poll(`(() => { const c = document.querySelector('#compare-changes'); return !!c && c.textContent.includes('2 → 3') && c.textContent; })()`,
				&changes, chromedp.WithPollingTimeout(waitLong)),
		)
		b.screenshot(t, "compare-page.png")
		var closed bool
		b.run(t, "stopping the comparison by keyboard",
			chromedp.Focus("#compare-stop", chromedp.ByQuery),
			chromedp.KeyEvent(kb.Enter),
			chromedp.Poll(`!document.querySelector('#timeline-b') && document.querySelector('#compare-b').classList.contains('compare-none') &&
				location.hash.startsWith('#s=') && document.querySelector('#compare-stop').hidden`, &closed, chromedp.WithPollingTimeout(waitLong)),
		)
		b.checkErrors(t)
	})

	t.Run("links in a fresh profile and the embed", func(t *testing.T) {
		if !strings.Contains(last.Href, sim.ComparePrefix) {
			t.Fatalf("the page's address %q holds no comparison (%s)", last.Href, sim.ComparePrefix)
		}
		b := newBrowser(t)
		b.run(t, "opening the comparison's link", chromedp.Navigate(last.Href), chromedp.WaitVisible(mounted))
		v := b.waitCompared(t, last.Preset)
		checkCompared(t, v)
		for _, f := range []struct {
			name      string
			got, want any
		}{
			{"diff table", v.Diff, last.Diff}, {"run A's waits", v.WaitsA, last.WaitsA}, {"run B's waits", v.WaitsB, last.WaitsB},
			{"counters", v.Counts, last.Counts}, {"run A's program", v.CodeA, last.CodeA}, {"run B's program", v.CodeB, last.CodeB},
		} {
			if !reflect.DeepEqual(f.got, f.want) {
				t.Errorf("%s from the link = %v; the page it was copied from showed %v", f.name, f.got, f.want)
			}
		}
		// The link of the moment opens both runs paused at it.
		var ok bool
		var back compareView
		b.run(t, "opening the comparison's link at 2 s", chromedp.Navigate(rewound.Href), chromedp.WaitVisible(mounted),
			chromedp.Poll(`!!document.querySelector('#stats-b') && document.querySelector('#stats').dataset.nowMs === "2000" &&
				document.querySelector('#stats-b').dataset.nowMs === "2000" && document.querySelector('#playground').dataset.phase === "paused" &&
				document.querySelectorAll('#diff-table tr[data-row]').length > 0`, &ok, chromedp.WithPollingTimeout(waitLong)),
			chromedp.Sleep(300e6),
			chromedp.Evaluate(readCompare, &back))
		if !reflect.DeepEqual(back.Diff, rewound.Diff) || !reflect.DeepEqual(back.WaitsB, rewound.WaitsB) {
			t.Errorf("the link at 2 s shows diff table %v and run B's waits %v; the page it was copied from showed %v and %v",
				back.Diff, back.WaitsB, rewound.Diff, rewound.WaitsB)
		}
		// The embed carries the comparison too: both timelines on one
		// axis, the diff table, and "Open in the playground" with it.
		_, hash, _ := strings.Cut(last.Href, "#")
		b.run(t, "opening the comparison in the embed",
			chromedp.Navigate(base+"/embed?v="+strconv.Itoa(sim.Version)+"#"+hash),
			chromedp.WaitVisible(mounted),
			chromedp.Poll(`(() => { const c = document.querySelector('#timeline-b');
				return !!c && !!c.dataset.plot && c.dataset.plot === document.querySelector('#timeline').dataset.plot &&
					document.querySelectorAll('#diff-table tr[data-row]').length > 0 &&
					document.querySelector('#open-playground').getAttribute('href').includes('#c='); })()`,
				&ok, chromedp.WithPollingTimeout(waitLong)),
		)
		b.checkErrors(t)
	})

	t.Run("phone", func(t *testing.T) {
		b := newBrowser(t)
		b.phone(t)
		b.run(t, "loading the playground",
			chromedp.Navigate(base+"/"),
			chromedp.WaitVisible(mounted),
			chromedp.WaitVisible(`#timeline[data-interactive="true"]`),
		)
		for _, ps := range sim.ComparePresets() {
			var ok bool
			b.run(t, "picking "+ps.ID,
				chromedp.Evaluate(fmt.Sprintf(`(() => { const s = document.querySelector('#preset'); s.value = %q;
					s.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`, ps.ID), &ok),
				chromedp.Poll(fmt.Sprintf(`document.querySelector('#playground').dataset.preset === %q && !!document.querySelector('#timeline-b')`, ps.ID),
					&ok, chromedp.WithPollingTimeout(waitLong)),
				chromedp.Evaluate(setSpeed, &ok),
			)
			v := b.waitCompared(t, ps.ID)
			checkCompared(t, v)
			b.run(t, "fitting the runs", chromedp.Click("#zoom-fit", chromedp.ByQuery), chromedp.Sleep(300e6), scrollToRuns)
			b.viewShot(t, "compare-"+ps.ID+"-phone.png")
		}
		// A finger drawn across run B's timeline pans both.
		var r struct{ X, Y float64 }
		var before, after compareView
		b.run(t, "finding run B's timeline", chromedp.Evaluate(`(() => { const c = document.querySelector('#timeline-b');
			c.scrollIntoView({block: "center"}); const r = c.getBoundingClientRect();
			return {x: r.left + r.width / 2, y: r.top + 40}; })()`, &r), chromedp.Evaluate(readCompare, &before))
		b.run(t, "dragging run B's timeline with a finger",
			input.DispatchTouchEvent(input.TouchStart, []*input.TouchPoint{{X: r.X, Y: r.Y, ID: 1}}),
			input.DispatchTouchEvent(input.TouchMove, []*input.TouchPoint{{X: r.X - 30, Y: r.Y, ID: 1}}),
			input.DispatchTouchEvent(input.TouchMove, []*input.TouchPoint{{X: r.X - 80, Y: r.Y, ID: 1}}),
			input.DispatchTouchEvent(input.TouchEnd, []*input.TouchPoint{}),
			chromedp.Sleep(400e6),
			chromedp.Evaluate(readCompare, &after),
		)
		if after.FromA != after.FromB || after.FromA == before.FromA {
			t.Errorf("after a drag on run B: A from %s µs, B from %s µs (before %s); want both panned together", after.FromA, after.FromB, before.FromA)
		}
		reportAxe(t, "/ on a phone with a comparison", b.runAxe(t))
		b.checkErrors(t)
	})
}

// TestCompareBadLink opens a comparison link cut short: the page says it
// cannot open it, runs the first preset, and keeps the link in the
// address bar, where a reload finds it.
func TestCompareBadLink(t *testing.T) {
	ps := sim.ComparePresets()[0]
	c, err := sim.Compare(ps.Scenario, *ps.Compare)
	if err != nil {
		t.Fatal(err)
	}
	hash := sim.ComparePrefix + c.Encode()[:40]
	b := newBrowser(t)
	var ok bool
	b.run(t, "opening a comparison link cut short",
		chromedp.Navigate(base+"/?v=2"+hash),
		chromedp.WaitVisible(mounted),
		chromedp.WaitVisible(`#message[data-kind="error"]`),
		chromedp.Poll(`Number(document.querySelector('#stats').dataset.nowMs) > 300`, &ok, chromedp.WithPollingTimeout(waitLong)),
	)
	s := b.stats(t)
	if !strings.Contains(s.Message, "comparison link could not be opened") {
		t.Errorf("message = %q, want it to say the comparison link could not be opened", s.Message)
	}
	if first := sim.Presets()[0].ID; s.Preset != first {
		t.Errorf("the page shows preset %q, want the first, %q", s.Preset, first)
	}
	var got string
	b.run(t, "reading the address bar", chromedp.Evaluate(`location.hash`, &got))
	if got != hash {
		t.Errorf("the address bar's fragment is %q, want the link opened, %q", got, hash)
	}
	b.checkErrors(t)
}
