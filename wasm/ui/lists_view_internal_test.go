package ui

import (
	"slices"
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/core"
	"sluice/core/trace"
)

// TestLogRows checks the event log's window of rows: where it starts
// (newest first), clamped to the list, and which events it holds, from
// the latest the panel has or else from the source.
func TestLogRows(t *testing.T) {
	// The log's matches, oldest first: event i is task i+1.
	log := func(n int) []trace.Entry {
		es := make([]trace.Entry, n)
		for i := range es {
			es[i].Task = uint64(i + 1)
		}
		return es
	}
	tasks := func(es []trace.Entry) []uint64 {
		var ids []uint64
		for _, e := range es {
			ids = append(ids, e.Task)
		}
		return ids
	}
	// span serves matches [from, to) of all, and counts its calls.
	all := log(1000)
	spans := 0
	span := func(from, to int) []trace.Entry { spans++; return slices.Clone(all[from:to]) }
	latest := all[len(all)-200:]
	for _, tc := range []struct {
		name              string
		first, matches    int
		entries           []trace.Entry
		wantFirst         int
		wantFrom, wantTo  int // the tasks held: from+1 to to, oldest first
		wantSpans         int
		noSource, noEvent bool
	}{
		{name: "a short log, whole", matches: 10, entries: log(10), wantFrom: 0, wantTo: 10},
		{name: "the newest rows", matches: 1000, entries: latest, wantFrom: 1000 - logWindow, wantTo: 1000},
		{name: "among the latest", first: 100, matches: 1000, entries: latest, wantFirst: 100, wantFrom: 900 - logWindow, wantTo: 900},
		{name: "earlier than the latest", first: 500, matches: 1000, entries: latest, wantFirst: 500, wantFrom: 500 - logWindow, wantTo: 500, wantSpans: 1},
		{name: "past the end, clamped", first: 990, matches: 1000, entries: latest, wantFirst: 1000 - logWindow, wantFrom: 0, wantTo: logWindow, wantSpans: 1},
		{name: "a log gone shorter", first: 700, matches: 30, entries: log(30), wantFrom: 0, wantTo: 30},
		{name: "no source", first: 500, matches: 1000, entries: latest, wantFirst: 500, noSource: true, noEvent: true},
		{name: "empty", first: 5, noEvent: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spans = 0
			src := span
			if tc.noSource {
				src = nil
			}
			first, got := logRows(tc.first, tc.matches, tc.entries, src)
			var want []uint64
			if !tc.noEvent {
				want = tasks(all[tc.wantFrom:tc.wantTo])
				if tc.matches < len(all) {
					want = tasks(log(tc.matches)[tc.wantFrom:tc.wantTo])
				}
			}
			if first != tc.wantFirst || !slices.Equal(tasks(got), want) {
				t.Errorf("logRows(%d, %d) = %d, tasks %v; want %d, tasks %v", tc.first, tc.matches, first, tasks(got), tc.wantFirst, want)
			}
			if spans != tc.wantSpans {
				t.Errorf("the source was asked %d times, want %d", spans, tc.wantSpans)
			}
		})
	}
}

// TestLogEmpty checks the row an empty event log shows, with and without
// a filter, between its two spacers.
func TestLogEmpty(t *testing.T) {
	for _, tc := range []struct{ query, want string }{
		{"", "No events yet."},
		{"evicted", "No event matches the filter."},
	} {
		l := &LogPanel{Query: tc.query}
		if html := app.HTMLString(l); !strings.Contains(html, tc.want) || strings.Count(html, "log-spacer") != 2 {
			t.Errorf("an empty log filtered by %q renders %s; want %q between two spacers", tc.query, html, tc.want)
		}
	}
}

// TestLogHeld checks the event log while held: it renders the rows it
// showed before, hidden, not the new log's, whose rows a render after
// fills.
func TestLogHeld(t *testing.T) {
	entries := func(name string, n int) []trace.Entry {
		es := make([]trace.Entry, n)
		for i := range es {
			es[i] = trace.Entry{Kind: core.Started, Task: uint64(i + 1), Name: name}
		}
		return es
	}
	render := func(l *LogPanel) string { return app.HTMLString(l.Render()) }
	l := &LogPanel{Entries: entries("before", 5), Matches: 5, Total: 5, LogID: 1}
	if html := render(l); !strings.Contains(html, "before") || strings.Contains(html, "log-held") {
		t.Fatalf("a log not held renders %s; want its rows, shown", html)
	}
	l.Entries, l.Matches, l.Total, l.LogID, l.Held = entries("after", 40), 40, 40, 2, true
	if html := render(l); !strings.Contains(html, "log-held") || !strings.Contains(html, "before") || strings.Contains(html, "after") {
		t.Errorf("a held log renders %s; want the rows shown before, hidden (log-held)", html)
	}
	l.Held = false
	if html := render(l); strings.Contains(html, "before") || !strings.Contains(html, "after") || strings.Contains(html, "log-held") {
		t.Errorf("the log let go renders %s; want the new log's rows, shown", html)
	}
}

// TestLogKeepsItsPlace renders the page's details with and without the
// waits (another tool's trace has none): the event log is their second
// child either way, so that go-app, which matches children by position,
// updates it rather than mounting it anew, row by row.
func TestLogKeepsItsPlace(t *testing.T) {
	before := func(noWaits bool) int {
		p := &Play{}
		p.panel.NoWaits = noWaits
		html := app.HTMLString(p.renderDetails())
		return strings.Count(html[:strings.Index(html, `id="log"`)], "<section")
	}
	if with, without := before(false), before(true); with != without || with != 2 {
		t.Errorf("the event log's list comes after %d sections with the waits, %d without; want 2 in both (the waits' or its placeholder, and the log's card)", with, without)
	}
}
