package ui

import "github.com/maxence-charriere/go-app/v9/pkg/app"

// Playground is the page at PathPlayground: the full playground.
type Playground struct {
	app.Compo
}

// Render draws the page around the demo.
func (p *Playground) Render() app.UI {
	return app.Div().ID("page").Class("page").Body(
		app.Header().Class("site-head").Body(
			app.Img().Class("logo").Src("/web/icon.svg").Alt(""),
			app.Div().Body(
				app.H1().Text("Sluice playground"),
				app.P().Class("muted").Text("Async coordination primitives for Go, running live in your browser."),
			),
		),
		app.Main().Class("content").Body(
			&Demo{},
			app.Section().Class("notes").Body(
				app.H2().Text("How to read this"),
				app.P().Text("Each row is a real goroutine in this tab, calling Acquire and Release on a real core.Semaphore compiled to WebAssembly. "+
					"A task is waiting until Acquire returns, running while it holds its token, and done once it has released it."),
				app.P().Text("Running counts the tasks holding a token now; max running is the most that ever held one at once, "+
					"counted by the tasks themselves, so it can never pass the limit unless the semaphore lets too many through."),
				app.P().Text("WebAssembly runs Go on one thread: goroutines interleave, they never run in parallel. "+
					"Limits and ordering behave as on a server; timings are the browser's."),
			),
		),
		app.Footer().Class("site-foot").Body(
			app.A().Href(PathEmbed).Text("Embeddable view"),
		),
	)
}

// Embed is the page at PathEmbed: the demo with minimal chrome, for iframes.
// When framed, it reports its height to the host page (see watchHeight).
type Embed struct {
	app.Compo

	stopWatch func()
}

// OnMount starts reporting the page's height to the host page.
func (e *Embed) OnMount(ctx app.Context) {
	stop, err := watchHeight()
	if err != nil {
		app.Logf("sluice: cannot report the embed's height: %v", err)
		return
	}
	e.stopWatch = stop
}

// OnDismount stops reporting the page's height.
func (e *Embed) OnDismount() {
	if e.stopWatch != nil {
		e.stopWatch()
		e.stopWatch = nil
	}
}

// Render draws the demo alone.
func (e *Embed) Render() app.UI {
	return app.Main().ID("page").Class("embed").Body(&Demo{})
}
