package ui

import (
	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// renderTraceCard is the side column while a trace is shown: what the
// trace is, in place of the live run's setup, work and run controls,
// which do not describe it (they are kept for “Back to live”).
func (p *Play) renderTraceCard() app.UI {
	pn := p.panel
	row := func(label, value string) app.UI {
		return app.Div().Class("trace-fact").Body(app.Dt().Text(label), app.Dd().Text(value))
	}
	facts := []app.UI{
		row("File", pn.Replay),
		row("Tasks", formatCount(int(pn.Trace.Submitted))),
		row("Span", formatSpan(pn.Span)),
		row("Throughput", formatRate(pn.Throughput)),
	}
	return app.Section().ID("trace-card").Class("card").Body(
		app.H2().Class("card-title").Text("Loaded trace"),
		app.Dl().Class("trace-facts").Body(facts...),
		app.P().Class("muted small").Text("A trace is shown as it was recorded: it has no setup to change and takes no work. "+
			"The live run's setup and controls come back with “Back to live”, as they were."),
	)
}

// throughputOf says what the throughput counter measures.
func throughputOf(pn Panel) string {
	if pn.Phase == "replay" {
		return "tasks ended a second, over the trace"
	}
	return "tasks ended, last 10 s"
}

// waitsNote says what the wait table is computed over, and on which
// clock: the run's virtual clock, or a loaded trace's own times.
func waitsNote(pn Panel) string {
	if pn.Phase == "replay" {
		return "Over the last 1,000 tasks of each priority that started; the trace's own times, as it recorded them."
	}
	return "Over the last 1,000 tasks of each priority that started; virtual time."
}

// noMessages is what the Messages list says when it shows none.
func noMessages(replay bool, query string) string {
	switch {
	case query != "":
		return "No message matches the filter."
	case replay:
		return "A trace holds no messages: they are the live run's (failures, refusals, changes of limit). The trace's failures are in its event log."
	}
	return "Failures, refusals and changes of limit show here."
}
