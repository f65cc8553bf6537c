package ui

import (
	"strings"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/wasm/sim"
)

// maxCodeRows is how many lines of the program show without scrolling.
const maxCodeRows = 22

// CodeView is the Go code card (#code), a child component of Play: the
// Go program of the scenario (sim.Scenario.GoCode), read-only, indented
// by four spaces rather than tabs so that it reads on a phone, and a
// button that copies it as gofmt writes it. The person's bursts, cancels
// and limit changes are in it, at their times.
//
// go-app renders a child again only when its exported fields change: the
// program is written when the scenario changes, not each time the page
// renders (several times a second while a run plays). What it asks of
// the page, a copy or going back to live, it posts as an action
// (actionCopyCode, actionBackToLive), which the page handles.
//
// While a loaded trace is shown (Replay, its name) there is no program
// for what the timeline shows: the card says so, names the trace, and
// offers the way back to the live scenario instead of the code and its
// Copy button.
type CodeView struct {
	app.Compo

	Scenario sim.Scenario // the scenario whose program shows
	Replay   string       // the loaded trace shown, if one is
	Live     bool         // the page runs: Copy works

	code    sim.Memo[string] // the program, written again only for another scenario
	renders int              // how many times it rendered
	onMount func(*CodeView)  // tells the page which card is mounted, for tests; kept from the first render
}

// Actions the code card posts to the page.
const (
	actionCopyCode   = "sluice-copy-code"    // Value: the program
	actionBackToLive = "sluice-back-to-live" // leave the loaded trace
)

// OnMount tells the page the card is mounted.
func (c *CodeView) OnMount(ctx app.Context) {
	if c.onMount != nil {
		c.onMount(c)
	}
}

// Render draws the card.
func (c *CodeView) Render() app.UI {
	c.renders++
	if c.Replay != "" {
		return app.Section().ID("code").Class("card").DataSet("lines", 0).DataSet("replay", true).Body(
			app.Div().Class("view-head").Body(
				app.Div().Body(
					app.H2().Class("card-title").Text("Go code"),
					app.P().ID("code-none").Text("The timeline shows the loaded trace “"+c.Replay+
						"”: a recording read from a file, with no Go program for it."),
					app.P().Class("muted small").Text("“Back to live” returns to your scenario and shows its Go program here."),
				),
				app.Button().ID("code-back-to-live").Class("btn").Text("Back to live").
					OnClick(func(ctx app.Context, e app.Event) { ctx.NewAction(actionBackToLive) }),
			),
		)
	}
	code := c.code.Get(c.Scenario, sim.Scenario.GoCode)
	return codeCard(c.Live, "", "Go code", "This scenario as a Go program with sluice/core: the same primitive and options, "+
		"the same tasks (drawn from the same seed), and your bursts, cancels and limit changes at the same points of the run, "+
		"on the page's virtual clock. It prints one line per task event, as the event log does; run under testing/synctest, "+
		"it prints the page's events exactly. It builds as it is in a module that requires sluice/core.",
		"Copy code", "Go program that runs this scenario", code,
		func(ctx app.Context, e app.Event) { ctx.NewActionWithValue(actionCopyCode, code) })
}

// renderCode is the page's code card. The scenario it is given is the
// one shown; before the page runs, the first preset's.
func (p *Play) renderCode(sc sim.Scenario, phase string) app.UI {
	cv := &CodeView{Scenario: sc, Live: p.mounted, onMount: func(c *CodeView) { p.codeView = c }}
	if phase == "replay" {
		cv.Replay = p.panel.Replay
		cv.Scenario = sim.Scenario{} // not shown: no program to keep up to date
	}
	return cv
}

// handleCodeActions handles what the code card asks of the page.
func (p *Play) handleCodeActions(ctx app.Context) {
	ctx.Handle(actionCopyCode, func(ctx app.Context, a app.Action) {
		if code, ok := a.Value.(string); ok && p.panel.Phase != "replay" {
			p.copy(ctx, code, "Code copied: paste it into main.go in a module that requires sluice/core.")
		}
	})
	ctx.Handle(actionBackToLive, func(ctx app.Context, a app.Action) { p.onBackToLive(ctx, app.Event{}) })
}

// codeCard is the card of a Go program: #code (#code-b for a comparison's
// run B, whose suffix is "-b"), its title, what it is, its Copy button and
// the program, read-only.
func (p *Play) codeCard(suffix, title, about, copyLabel, name, code string, onCopy app.EventHandler) app.UI {
	return codeCard(p.mounted, suffix, title, about, copyLabel, name, code, onCopy)
}

func codeCard(mounted bool, suffix, title, about, copyLabel, name, code string, onCopy app.EventHandler) app.UI {
	lines := strings.Count(code, "\n")
	return app.Section().ID("code"+suffix).Class("card").DataSet("lines", lines).Body(
		app.Div().Class("view-head").Body(
			app.Div().Body(
				app.H2().Class("card-title").Text(title),
				app.P().Class("muted small").Text(about),
			),
			app.Button().ID("copy-code"+suffix).Class("btn").Disabled(!mounted).Text(copyLabel).OnClick(onCopy),
		),
		app.Div().Class("share-out").Body(
			app.Textarea().ID("code-text"+suffix).Class("mono").ReadOnly(true).
				Attr("wrap", "off").Attr("spellcheck", "false").
				Aria("label", name).
				Rows(min(lines, maxCodeRows)).Text(strings.ReplaceAll(code, "\t", "    ")),
		),
	)
}
