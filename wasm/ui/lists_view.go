package ui

import (
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/core/trace"
	"sluice/wasm/sim"
)

// LogPanel is the event log's card: the latest events of the run that
// match the filter, newest first, out of every event the run had (the
// session keeps them all and filters them), with how many match. It is a
// child component of Play: go-app renders it again only when one of its
// fields changes, and its rows were most of what a render of the page
// cost: a render of a page whose event log is full and unchanged takes
// 0.9 ms natively, and 3,224 allocations, where it took 2.5 ms and 10,713
// (BenchmarkPlayRender, with CodeCard a component too).
//
// The list ends with a button that shows earlier events, a page at a time,
// back to the run's first: the panel keeps where the list starts then (its
// own state), until the filter changes or another log is shown.
type LogPanel struct {
	app.Compo

	Entries   []trace.Entry // the latest events that match, oldest first
	Matches   int           // events that match the filter
	Total     int           // events the run has had
	LogID     uint64        // the log they are of (Panel.LogID)
	Primitive string
	Origin    time.Time // time 0 of the times shown
	Query     string    // the filter, as typed
	Live      bool      // the page runs: the filter takes input
	Source    logSource // where the filter goes, and earlier events come from

	// The match the list starts at, when earlier events are shown, and
	// the log and filter it counts in.
	from      int
	fromLog   uint64
	fromQuery string
}

// logSource takes the event log's filter (the session filters the whole
// log) and gives the events that match, from the from-th match to the
// to-th. An interface value holding a pointer, so that go-app's comparison
// of LogPanel's fields finds it unchanged.
type logSource interface {
	setLogQuery(ctx app.Context, q string)
	logSpan(from, to int) []trace.Entry
}

// logPage is how many earlier events a press of "Show earlier" adds.
const logPage = 200

func (l *LogPanel) Render() app.UI {
	entries := l.Entries
	if l.expanded() {
		entries = l.Source.logSpan(l.from, l.Matches)
	}
	rows := make([]app.UI, 0, len(entries)+1)
	for i := len(entries) - 1; i >= 0; i-- {
		e := &entries[i]
		f := entryFields(l.Primitive, l.Origin, e)
		rows = append(rows, app.Li().Class("log-"+eventVerbClass(e.Kind)).Body(
			app.Span().Class("log-time").Text(f[0]),
			app.Span().Class("log-task").Text(f[1]),
			app.Span().Class("log-kind").Text(f[2]),
			app.Span().Class("log-detail").Text(f[3]),
		))
	}
	if more := l.Matches - len(entries); more > 0 && l.Source != nil {
		match := ""
		if l.Query != "" {
			match = " that match"
		}
		page := min(more, logPage)
		rows = append(rows, app.Li().Class("muted log-more").Body(
			app.Span().Text(formatCount(more)+" earlier "+plural(more, "event", "events")+match+": the filter searches all of them"),
			app.Button().ID("log-more").Class("btn btn-small").Disabled(!l.Live).
				Text("Show "+formatCount(page)+" earlier").OnClick(l.onEarlier),
		))
	}
	if len(rows) == 0 {
		empty := "No events yet."
		if l.Query != "" {
			empty = "No event matches the filter."
		}
		rows = append(rows, app.Li().Class("muted").Text(empty))
	}
	return app.Section().Class("card").Body(
		listHead("Event log", "log", l.Matches, l.Total, "events of the whole run", l.Query, l.Live, func(ctx app.Context, q string) {
			l.Query = q
			if l.Source != nil {
				l.Source.setLogQuery(ctx, q)
			}
		}),
		app.Ol().ID("log").Class("log log-scroll").TabIndex(0).Aria("label", "Event log, newest first").
			DataSet("count", len(entries)).DataSet("matches", l.Matches).DataSet("total", l.Total).Body(rows...),
	)
}

// expanded reports whether the list starts at an earlier event than the
// latest entries: in the log and filter it was asked for.
func (l *LogPanel) expanded() bool {
	return l.Source != nil && l.fromLog == l.LogID && l.fromQuery == l.Query && l.from < l.Matches-len(l.Entries)
}

// onEarlier shows a page of earlier events.
func (l *LogPanel) onEarlier(ctx app.Context, e app.Event) {
	start := l.Matches - len(l.Entries)
	if l.expanded() {
		start = l.from
	}
	l.from, l.fromLog, l.fromQuery = max(start-logPage, 0), l.LogID, l.Query
}

// MessagesPanel is the Messages card: what the run said to the person
// (failures, refusals, changes of limit), newest first, with a filter of
// its own, which the panel keeps. A child component of Play, as LogPanel.
type MessagesPanel struct {
	app.Compo

	Messages []sim.Message // the latest, oldest first
	Count    int           // messages the run has had
	Replay   bool          // a loaded trace is shown: it holds none
	Live     bool          // the page runs: the filter takes input
	Unlinked string        // why the link no longer replays the run, if it does not

	query string // the filter, as typed
}

func (m *MessagesPanel) Render() app.UI {
	var rows []app.UI
	for i := len(m.Messages) - 1; i >= 0; i-- {
		msg := m.Messages[i]
		at := formatAt(msg.At)
		if !matches(m.query, at, msg.Text) {
			continue
		}
		class := "msg"
		if msg.Error {
			class += " msg-error"
		}
		rows = append(rows, app.Li().Class(class).Body(
			app.Span().Class("log-time").Text(at),
			app.Span().Class("msg-text").Text(msg.Text),
		))
	}
	shown := len(rows)
	if shown == 0 {
		rows = append(rows, app.Li().Class("muted").Text(noMessages(m.Replay, m.query)))
	}
	var unlinked app.UI
	if m.Unlinked != "" {
		unlinked = app.P().ID("unlinked").Class("note-warn").Text("About the link: " + m.Unlinked + ".")
	}
	return app.Section().Class("card").Body(
		listHead("Messages", "messages", shown, m.Count, "messages", m.query, m.Live, func(_ app.Context, q string) { m.query = q }),
		app.Ul().ID("messages").Class("log log-scroll").TabIndex(0).Aria("label", "Messages, newest first").DataSet("count", shown).Body(rows...),
		unlinked,
	)
}

// listHead is the heading of a scrolling list (the event log, the
// messages): its title, how many entries it shows of how many, and a
// filter, which set takes as it is typed.
func listHead(title, id string, shown, total int, what, query string, mounted bool, set func(app.Context, string)) app.UI {
	count := formatCount(total)
	if query != "" {
		count = formatCount(shown) + " of " + formatCount(total)
	}
	return app.Div().Class("list-head").Body(
		app.H2().Class("card-title").Body(app.Text(title+" "), app.Span().ID(id+"-count").Class("count").Title("%s", what).Text(count)),
		app.Input().Type("search").ID(id+"-filter").Class("input input-small list-filter").Placeholder("%s", "filter").
			Aria("label", "Filter the "+strings.ToLower(title)).Value(query).Disabled(!mounted).
			OnInput(func(ctx app.Context, e app.Event) { set(ctx, ctx.JSSrc().Get("value").String()) }, id),
	)
}
