package ui

import "github.com/maxence-charriere/go-app/v9/pkg/app"

// Playground is the page at PathPlayground: the full playground, with the
// page around it.
type Playground struct {
	app.Compo
}

// Render draws the page around the playground.
func (p *Playground) Render() app.UI {
	return app.Div().ID("page").Class("page").Body(
		skipLink(),
		app.Header().Class("site-head").Body(
			app.Img().Class("logo").Src("/web/icon.svg").Alt(""),
			app.Div().Class("site-title").Body(
				app.H1().Text("Sluice playground"),
				app.P().Class("muted").Text("Async coordination primitives for Go: a real core primitive, compiled to WebAssembly, scheduling real goroutines in this tab."),
			),
			app.Nav().Class("site-nav").Body(
				app.A().Href(PathEmbed).Text("Embed view"),
			),
		),
		app.Main().Class("content").Body(
			&Play{},
			notes(),
		),
		app.Footer().Class("site-foot").Body(
			app.Text("Sluice · every bar is a goroutine inside a real core primitive, reported through core.WithObserver."),
		),
	)
}

// notes explains how to read the playground.
func notes() app.UI {
	item := func(term, text string) app.UI {
		return app.Div().Class("note").Body(app.Dt().Text(term), app.Dd().Text(text))
	}
	return app.Section().ID("how-to-read").Class("notes card").Body(
		app.H2().Text("How to read the playground"),
		app.Dl().Class("note-list").Body(
			item("Lanes", "One row per worker slot (WorkQueue, Processor), per token (Semaphore: a holder of n tokens spans n rows), per key (KeyedQueue), "+
				"per consumer's handler goroutine (Consume) or per worker slot of each queue (WorkQueues sharing one limit). A bar runs from the moment a task started to the moment it ended; "+
				"running bars are drawn strong, finished ones soft and outlined, with a red end when the task failed, violet when it panicked "+
				"and grey when it was canceled. A green tick marks a lane created, a grey one a lane evicted."),
			item("Waiting", "Above the lanes, the tasks accepted but not started, one row per priority, oldest first. "+
				"Click or tap any task for its details; a waiting or running one can be canceled there. "+
				"The timeline zooms (wheel, pinch, + and -) and pans (drag, Shift+arrows); arrows move between tasks; Fit shows the whole run. "+
				"From the keyboard, “Skip to the timeline” is the first Tab stop."),
			item("Counter tracks", "Below the lanes: the queue depth, the work in flight (tokens in use for a semaphore) "+
				"against the limit in red, and for a keyed queue the live lanes."),
			item("Counters", "Max in flight is the most tasks (or tokens) that ran at once, counted from the primitive's own "+
				"events: it never passes the limit. Wait percentiles are per priority, over the last tasks that started. "+
				"Goroutines counts every goroutine of this tab: the tasks' and the primitives' own."),
			item("Time", "Time is virtual: the primitive gets a clock through core.WithClock, and each animation frame moves it "+
				"by the frame's duration times the speed. Pause stops it; Step fires the next event alone. A seed and the "+
				"virtual clock make every run of a scenario the same."),
			item("Rewind", "Drag the now-line on the timeline, or the Moment slider under it, back to any earlier moment; "+
				"Step back (or the , key) undoes the latest event. The page replays the run from 0 to that moment on the virtual clock, "+
				"so what it shows is exactly what the run showed then, and Play goes on as it went. Adding work, canceling, "+
				"draining, closing or changing the limit there forks the run: the later actions are dropped, and the link "+
				"replays the fork. A paused run's link carries its moment (t=) and opens there."),
			item("Links and traces", "The address bar always holds the whole scenario (#s=), with the bursts and clicks you "+
				"added at the time you added them, so a copied link replays the run. Download trace saves Chrome Trace Event "+
				"JSON for ui.perfetto.dev; Load trace shows such a file here, read-only."),
			item("Compare", "“Compare with…” runs the same work twice on one clock: A as it is, B with the settings you change "+
				"(parallelism, aging, capacity, priorities, the shared limit, or a primitive that takes the same tasks). "+
				"B's timeline sits under A's on the same time axis and scale; zoom, pan, play and step move both, and work you add goes to both. "+
				"Cancel in a task's details cancels it in that run alone: a what-if the link keeps. "+
				"The table “A and B compared” shows each run's waits, throughput and outcomes, B/A, and which run did better. "+
				"The link and the embed carry both runs."),
			item("WebAssembly", "WebAssembly runs Go on one thread: goroutines interleave, they never run in parallel. "+
				"Limits and ordering behave exactly as on a server, because they are the same code; only the timings are "+
				"the browser's, and time here is virtual anyway."),
		),
	)
}

// Embed is the page at PathEmbed: the playground, compact, for iframes.
// When framed, it reports its height to the host page and takes commands
// from it (see Play).
type Embed struct {
	app.Compo
}

// Render draws the compact playground alone.
func (e *Embed) Render() app.UI {
	return app.Main().ID("page").Class("embed").Body(
		app.H1().Class("visually-hidden").Text("Sluice playground"),
		&Play{Embed: true},
	)
}
