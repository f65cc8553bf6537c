package ui

import (
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// renderSheet draws the details sheet of the task a tap, a click or Enter
// opened: what the task is and did, and for a waiting or running task of
// the run an explicit Cancel button. Nothing is canceled by a tap alone.
func (p *Play) renderSheet() app.UI {
	d := p.details
	if d == nil {
		return app.Div().ID("details-sheet").Class("sheet sheet-closed").Hidden(true)
	}
	var lines []app.UI
	for _, l := range d.Lines {
		if l == "click or tap for details" {
			continue
		}
		lines = append(lines, app.Li().Text(l))
	}
	state := "ended"
	if d.Open {
		state = "open"
	}
	var cancel app.UI
	switch {
	case d.ReadOnly:
		cancel = app.P().Class("muted small").Text("A loaded trace is read-only.")
	case d.Open:
		cancel = app.Button().ID("sheet-cancel").Class("btn btn-danger").Text("Cancel " + d.Name + p.sheetRun(d)).OnClick(p.onSheetCancel)
	default:
		cancel = app.P().Class("muted small").Text("This task has ended: there is nothing to cancel.")
	}
	return app.Section().ID("details-sheet").Class("sheet").Role("%s", "dialog").
		Aria("labelledby", "sheet-title").Aria("live", "polite").DataSet("task", d.Name).DataSet("state", state).Body(
		app.Div().Class("sheet-head").Body(
			app.H3().ID("sheet-title").Text(d.Title),
			app.Button().ID("sheet-close").Class("btn btn-small").Aria("label", "Close the details").Text("×").OnClick(p.onSheetClose),
		),
		app.Ul().Class("sheet-lines").Body(lines...),
		app.Div().Class("sheet-actions").Body(cancel),
	)
}

func (p *Play) onSheetCancel(ctx app.Context, e app.Event) {
	if p.details == nil || p.sess == nil {
		return
	}
	name, where := p.details.Name, p.sheetRun(p.details)
	on, other := p.sess, p.runB()
	if p.details.B && other != nil {
		on, other = other, on
	}
	ok := name + " was canceled."
	if where != "" {
		ok = name + " was canceled" + where + " alone: the other run goes on without the cancel."
	}
	p.command(ctx, ok, func() error { return cancelIn(on, other, name) })
}

// sheetRun names the run of a comparison whose task the details sheet
// shows (" in run B"), which its Cancel cancels the task in alone; ""
// with one run.
func (p *Play) sheetRun(d *TaskDetails) string {
	switch {
	case p.cmp.sess == nil:
		return ""
	case d.B:
		return " in run B"
	}
	return " in run A"
}

func (p *Play) onSheetClose(ctx app.Context, e app.Event) {
	p.details = nil
	if p.drv != nil {
		p.drv.push(input{Kind: inputClose})
	}
	focusTimeline()
}

// renderZoom draws the timeline's zoom controls: zoom in and out around
// the middle, and fit, back to the whole run or trace.
func (p *Play) renderZoom() app.UI {
	on := p.mounted
	return app.Div().Class("zoom").Role("%s", "group").Aria("label", "Zoom the timeline").Body(
		app.Button().ID("zoom-in").Class("btn btn-small").Disabled(!on).Aria("label", "Zoom in").Title("%s", "Zoom in (+, wheel, pinch)").Text("+").
			OnClick(p.onZoom(1/1.5)),
		app.Button().ID("zoom-out").Class("btn btn-small").Disabled(!on).Aria("label", "Zoom out").Title("%s", "Zoom out (-, wheel, pinch)").Text("−").
			OnClick(p.onZoom(1.5)),
		app.Button().ID("zoom-fit").Class("btn btn-small").Disabled(!on).Title("%s", "Show the whole run or trace (0)").Text("Fit").
			OnClick(p.onFit),
		app.Span().Class("zoom-hint muted small").Text("Drag to pan · wheel or pinch to zoom · arrows move between tasks · Enter opens · Space plays"),
	)
}

func (p *Play) onZoom(factor float64) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		if p.drv != nil {
			p.drv.push(input{Kind: inputKey, Key: map[bool]string{true: "+", false: "-"}[factor < 1]})
		}
	}
}

func (p *Play) onFit(ctx app.Context, e app.Event) {
	if p.drv != nil {
		p.drv.push(input{Kind: inputFit})
	}
}

// renderActions draws the run's main controls right under the timeline,
// where the eye is: add work, cancel it all, drain, close, reset. A
// loaded trace, read-only, has none: “Back to live” brings them back.
func (p *Play) renderActions() app.UI {
	if p.Embed || p.panel.Phase == "replay" {
		return nil
	}
	on := p.mounted
	return app.Div().ID("actions").Class("actions").Role("%s", "group").Aria("label", "Run controls").Body(
		app.Button().ID("add-burst").Class("btn btn-primary").Disabled(!on).Text("Add burst").OnClick(p.onAddBurst),
		app.Button().ID("add-one").Class("btn").Disabled(!on).Text("Add 1 task").OnClick(p.onAddOne),
		app.Button().ID("compose-toggle").Class("btn").Disabled(!on).
			Aria("expanded", strconv.FormatBool(p.composeOpen)).Aria("controls", "compose").
			Text(map[bool]string{true: "Burst settings ▴", false: "Burst settings ▾"}[p.composeOpen]).OnClick(p.onComposeToggle),
		app.Span().Class("actions-gap"),
		app.Button().ID("cancel-all").Class("btn").Disabled(!on).Text("Cancel all").OnClick(p.onCancelAll),
		app.Button().ID("drain").Class("btn").Disabled(!on).Text("Drain").OnClick(p.onDrain),
		app.Button().ID("close").Class("btn btn-danger").Disabled(!on).Text("Close").OnClick(p.onClose),
		app.Button().ID("reset").Class("btn").Disabled(!on).Text("↻ Reset").OnClick(p.onReset),
	)
}

// matches reports whether any of fields contains every word of query,
// ignoring case.
func matches(query string, fields ...string) bool {
	words := strings.Fields(strings.ToLower(query))
	if len(words) == 0 {
		return true
	}
	text := strings.ToLower(strings.Join(fields, " "))
	for _, w := range words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

// clockText is the clock of the transport bar: the run's virtual time to a
// hundredth of a second, or a loaded trace's length as precisely as it
// needs (a trace may last microseconds).
func clockText(phase string, now time.Duration) string {
	if phase == "replay" {
		return formatAt(now)
	}
	return formatClock(now.Round(10 * time.Millisecond))
}
