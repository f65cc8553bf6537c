package ui

import (
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
