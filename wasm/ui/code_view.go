package ui

import (
	"strings"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/wasm/sim"
)

// codeMemo keeps the last program written, since the page renders several
// times a second and the scenario changes far less often. It is read and
// written on the UI goroutine only.
var codeMemo sim.Memo[string]

// goCode returns the Go program that runs sc with sluice/core, written
// again only when sc changed.
func goCode(sc sim.Scenario) string {
	return codeMemo.Get(sc, sim.Scenario.GoCode)
}

// maxCodeRows is how many lines of the program show without scrolling.
const maxCodeRows = 22

// renderCode draws the Go program of the scenario (sim.Scenario.GoCode),
// read-only, indented by four spaces rather than tabs so that it reads on
// a phone, and a button that copies it as gofmt writes it. The person's bursts, cancels and
// limit changes are in it, at their times.
//
// While a loaded trace is shown (phase "replay") there is no program for
// what the timeline shows: the panel says so, names the trace, and offers
// the way back to the live scenario instead of the code and its Copy
// button.
func (p *Play) renderCode(sc sim.Scenario, phase string) app.UI {
	if phase == "replay" {
		return app.Section().ID("code").Class("card").DataSet("lines", 0).DataSet("replay", true).Body(
			app.Div().Class("view-head").Body(
				app.Div().Body(
					app.H2().Class("card-title").Text("Go code"),
					app.P().ID("code-none").Text("The timeline shows the loaded trace “"+p.panel.Replay+
						"”: a recording read from a file, with no Go program for it."),
					app.P().Class("muted small").Text("“Back to live” returns to your scenario and shows its Go program here."),
				),
				app.Button().ID("code-back-to-live").Class("btn").Text("Back to live").OnClick(p.onBackToLive),
			),
		)
	}
	return &CodeCard{Title: "Go code", About: "This scenario as a Go program with sluice/core: the same primitive and options, " +
		"the same tasks (drawn from the same seed), and your bursts, cancels and limit changes at the same points of the run, " +
		"on the page's virtual clock. It prints one line per task event, as the event log does; run under testing/synctest, " +
		"it prints the page's events exactly. It builds as it is in a module that requires sluice/core.",
		CopyLabel: "Copy code", Name: "Go program that runs this scenario", Code: goCode(sc),
		Copied: "Code copied: paste it into main.go in a module that requires sluice/core.", Live: p.mounted, Copier: p}
}

// CodeCard is the card of a Go program: #code (#code-b for a comparison's
// run B, whose Suffix is "-b"), its title, what it is, its Copy button and
// the program, read-only. It is a child component of Play, rendered again
// only when one of its fields changes: a program is hundreds of lines.
type CodeCard struct {
	app.Compo

	Suffix    string
	Title     string
	About     string
	CopyLabel string
	Name      string // the program's accessible name
	Code      string
	Copied    string // what the page says once Copy has copied it
	Live      bool   // the page runs: Copy works
	Copier    copier
}

// copier puts text on the clipboard and says note. An interface value
// holding a pointer, so that go-app finds CodeCard's fields unchanged.
type copier interface {
	copy(ctx app.Context, text, note string)
}

func (c *CodeCard) Render() app.UI {
	lines := strings.Count(c.Code, "\n")
	return app.Section().ID("code"+c.Suffix).Class("card").DataSet("lines", lines).Body(
		app.Div().Class("view-head").Body(
			app.Div().Body(
				app.H2().Class("card-title").Text(c.Title),
				app.P().Class("muted small").Text(c.About),
			),
			app.Button().ID("copy-code"+c.Suffix).Class("btn").Disabled(!c.Live).Text(c.CopyLabel).OnClick(c.onCopy),
		),
		app.Div().Class("share-out").Body(
			app.Textarea().ID("code-text"+c.Suffix).Class("mono").ReadOnly(true).
				Attr("wrap", "off").Attr("spellcheck", "false").
				Aria("label", c.Name).
				Rows(min(lines, maxCodeRows)).Text(strings.ReplaceAll(c.Code, "\t", "    ")),
		),
	)
}

func (c *CodeCard) onCopy(ctx app.Context, e app.Event) {
	if c.Copier != nil {
		c.Copier.copy(ctx, c.Code, c.Copied)
	}
}
