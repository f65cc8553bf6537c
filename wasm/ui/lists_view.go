package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/core/trace"
	"sluice/wasm/sim"
)

// LogPanel is the event log's card: every event of the run that matches
// the filter, newest first (the session keeps them all and filters them),
// with how many match. It is a child component of Play: go-app renders it
// again only when one of its fields changes.
//
// The list is virtual: it holds only the rows around the ones scrolled
// into view (logWindow of them), and two spacers for the others, so that
// showing it costs the same for a run of ten events and of a million; a
// scroll renders the rows it brings into view. Each row says where it is
// in the whole list (aria-posinset, aria-setsize) for screen readers.
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
	// Held has the list keep the rows it shows, hidden, for now: the
	// page draws a trace it has just loaded first, and the rows come
	// after, in a render of their own.
	Held bool

	first int     // the newest-first index of the first row held
	rowPx float64 // a row's height in CSS pixels, as measured; 0 before a scroll
	top   float64 // the list's scroll offset as of its last scroll event
	// The heights of the spacers above and below the rows, as the last
	// render left them, and as set on the page: set through the CSSOM
	// after the render (pad), since the page's CSP refuses style
	// attributes.
	padding, padded [2]float64
	// The rows of the last render that was not Held, and their set size.
	shownFirst, shownSize int
	shown                 []trace.Entry
}

// logSource takes the event log's filter (the session filters the whole
// log) and gives the events that match, from the from-th match to the
// to-th. An interface value holding a pointer, so that go-app's comparison
// of LogPanel's fields finds it unchanged.
type logSource interface {
	setLogQuery(ctx app.Context, q string)
	logSpan(from, to int) []trace.Entry
}

const (
	// logWindow is how many rows the list holds: those in view (13 in
	// its 19rem) and the rest above and below, so that a scroll of a few
	// rows needs no render. Mounting a row costs about a millisecond of
	// the page's thread (go-app makes its five elements one by one).
	logWindow = 32
	// logRowPx is a row's height before one is measured: the CSS's 1.5rem
	// at the page's 14px.
	logRowPx = 21
)

// logRows returns the window of rows that starts at first (newest-first),
// for matches events of which the latest are entries: the newest-first
// index of its first row, and its events, oldest first.
func logRows(first, matches int, entries []trace.Entry, span func(from, to int) []trace.Entry) (int, []trace.Entry) {
	first = max(min(first, matches-logWindow), 0)
	last := min(first+logWindow, matches)
	if last <= len(entries) {
		// Among the latest, which the panel has.
		return first, entries[len(entries)-last : len(entries)-first]
	}
	if span == nil {
		return first, nil
	}
	return first, span(matches-last, matches-first)
}

func (l *LogPanel) Render() app.UI {
	var span func(from, to int) []trace.Entry
	if l.Source != nil {
		span = l.Source.logSpan
	}
	var first int
	var entries []trace.Entry
	size := l.Matches
	if l.Held {
		first, entries, size = l.shownFirst, l.shown, l.shownSize
	} else {
		first, entries = logRows(l.first, l.Matches, l.Entries, span)
		l.shownFirst, l.shown, l.shownSize = first, entries, size
	}
	rows := make([]app.UI, 0, len(entries)+3)
	rows = append(rows, app.Li().ID("log-above").Class("log-spacer").Aria("hidden", true))
	for i := len(entries) - 1; i >= 0; i-- {
		e := &entries[i]
		f := entryFields(l.Primitive, l.Origin, e)
		task := app.Span().Class("log-task").Text(f[1])
		if len(f[1]) > 16 {
			task = task.Title("%s", f[1]) // the row cuts it short
		}
		rows = append(rows, app.Li().Class("log-"+eventVerbClass(e.Kind)).
			Aria("posinset", first+len(entries)-i).Aria("setsize", size).Body(
			app.Span().Class("log-time").Text(f[0]),
			task,
			app.Span().Class("log-kind").Text(f[2]),
			app.Span().Class("log-detail").Text(f[3]),
		))
	}
	if len(entries) == 0 && !l.Held {
		empty := "No events yet."
		if l.Query != "" {
			empty = "No event matches the filter."
		}
		rows = append(rows, app.Li().Class("muted").Text(empty))
	}
	rows = append(rows, app.Li().ID("log-below").Class("log-spacer").Aria("hidden", true))
	px := l.rowPx
	if px <= 0 {
		px = logRowPx
	}
	class := "log log-scroll log-virtual"
	if l.Held {
		class += " log-held"
	}
	l.padding = [2]float64{float64(first) * px, float64(max(l.Matches-first-len(entries), 0)) * px}
	return app.Section().Class("card").Body(
		listHead("Event log", "log", l.Matches, l.Total, "events of the whole run", l.Query, l.Live, func(ctx app.Context, q string) {
			l.Query = q
			if l.Source != nil {
				l.Source.setLogQuery(ctx, q)
			}
		}),
		app.Ol().ID("log").Class(class).TabIndex(0).Aria("label", "Event log, newest first").
			DataSet("first", first).DataSet("count", len(entries)).DataSet("matches", l.Matches).DataSet("total", l.Total).
			OnScroll(l.onScroll).Body(rows...),
	)
}

func (l *LogPanel) OnMount(ctx app.Context) {
	l.padded, l.top = [2]float64{}, 0
	ctx.Defer(l.pad)
}

// OnUpdate follows the list's scroll position when the page changes what
// the list shows (another filter, another log, a rewind): the window the
// panel held may no longer be where the list is scrolled, and a list whose
// scroll position stays the same fires no scroll event. A list at its top
// shows the newest rows: that needs no reading of the page, which would
// have the browser lay it out at once (a large trace's first render).
func (l *LogPanel) OnUpdate(ctx app.Context) {
	if l.top <= 0 {
		l.first = 0
	} else if list := app.Window().GetElementByID("log"); list.Truthy() {
		l.first, l.rowPx = l.follow(list)
	}
	ctx.Defer(l.pad)
}

// pad sets the spacers' heights to what the last render computed, once
// the render is on the page.
func (l *LogPanel) pad(ctx app.Context) {
	if l.padded == l.padding {
		return
	}
	for i, id := range []string{"log-above", "log-below"} {
		if sp := app.Window().GetElementByID(id); sp.Truthy() {
			sp.Get("style").Call("setProperty", "height", fmt.Sprintf("%.0fpx", l.padding[i]))
		}
	}
	l.padded = l.padding
}

// onScroll moves the window of rows to where the list is scrolled: it
// starts a third of a window above the first row in view, and moves only
// once the view comes within a sixth of a window of its edge, so that
// most scroll events change no row (go-app's render finds nothing to do).
func (l *LogPanel) onScroll(ctx app.Context, e app.Event) {
	// No ctx.PreventUpdate when nothing moved: it would also drop the
	// render of a later scroll event handled in the same frame.
	l.first, l.rowPx = l.follow(ctx.JSSrc())
	ctx.Defer(l.pad)
}

// follow returns where the window of rows is to start for the list's
// scroll position (see onScroll), and a row's height; it notes the
// position (l.top).
func (l *LogPanel) follow(list app.Value) (first int, px float64) {
	px = l.rowPx
	if row := list.Call("querySelector", "li[aria-posinset]"); row.Truthy() {
		if h := row.Get("offsetHeight").Float(); h > 0 {
			px = h
		}
	}
	if px <= 0 {
		px = logRowPx
	}
	l.top = list.Get("scrollTop").Float()
	inView := int(l.top / px)
	height := int(list.Get("clientHeight").Float()/px) + 1
	first, margin := l.first, logWindow/6
	if first > max(l.Matches-logWindow, 0) || inView < first+margin || inView+height > first+logWindow-margin {
		first = max(inView-logWindow/3, 0)
	}
	return first, px
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
