package ui

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/core"
	"sluice/core/trace"
	"sluice/wasm/sim"
)

func sliderPow(v float64) float64 { return math.Pow(10, (v-50)/50) }
func sliderLog(s float64) float64 { return 50*math.Log10(s) + 50 }

// Render draws the playground. Before the wasm mounts (server-side
// pre-rendering) it shows the first preset's frame with its controls off.
func (p *Play) Render() app.UI {
	sc, preset := p.sc, p.preset
	phase := "loading"
	if p.mounted {
		phase = p.panel.Phase
	} else {
		def := sim.Presets()[0]
		sc, preset = def.Scenario, def.ID
	}
	class := "play"
	if p.Embed {
		class += " play-embed"
	}
	side := p.sidePhase(phase)
	body := []app.UI{p.renderTransport(sc, preset, phase), p.renderNotice()}
	if p.Embed {
		body = append([]app.UI{skipLink()}, body...)
	}
	if p.Embed {
		body = append(body,
			p.renderTimeline(sc, preset, phase),
			p.renderCounters(sc, true),
			p.renderComparePanels(true),
			app.Div().Class("embed-foot").Body(
				app.Span().Class("muted").Text("Real core primitives, running in this frame."),
				app.A().ID("open-playground").Href(p.openHref()).Target("_blank").Rel("noopener").Text("Open in the playground ↗"),
			),
		)
	} else {
		body = append(body, app.Div().Class("play-body").Body(
			p.renderSide(sc, preset, side),
			app.Div().Class("play-main").Body(
				p.renderTimeline(sc, preset, phase),
				p.renderStatsLabel(),
				p.renderCounters(sc, false),
				p.renderComparePanels(false),
				p.renderDetails(),
				&SharePanel{Live: p.mounted, Linkable: p.panel.Phase != "replay", Link: p.link, Prefix: p.linkPrefix(), Moment: p.rw.moment,
					Reading: p.reading, Progress: &p.progress, Host: p},
				p.renderCode(sc, side),
				p.renderCodeB(),
			),
		))
	}
	return app.Div().
		ID("playground").
		Class(class).
		DataSet("mounted", strconv.FormatBool(p.mounted)).
		DataSet("phase", side).
		DataSet("primitive", sc.Primitive).
		DataSet("preset", preset).
		Body(body...)
}

// sidePhase returns the phase that the side column and the code card
// show, and the page's data-phase says: phase, but for "opening" while
// sideHeld keeps them as they were before a trace was loaded.
func (p *Play) sidePhase(phase string) string {
	if p.sideHeld.Load() && phase == "replay" {
		return "opening"
	}
	return phase
}

func (p *Play) openHref() string {
	if p.link == "" {
		return PathPlayground
	}
	return PathPlayground + "?v=" + strconv.Itoa(sim.Version) + p.rw.moment + p.linkPrefix() + p.link
}

func (p *Play) renderTransport(sc sim.Scenario, preset, phase string) app.UI {
	live := p.mounted && phase != "replay"
	playLabel, playClass := "▶ Play", "btn btn-primary"
	switch phase {
	case "playing":
		playLabel = "❚❚ Pause"
	case "finished":
		playLabel = "↻ Run again"
	}
	speed := sc.Speed
	if speed == 0 {
		speed = 1
	}
	// The embed's preset picker; on the full page, the phone's, which
	// keeps the presets at the top of a narrow screen.
	pickerClass := "select"
	if !p.Embed {
		pickerClass += " preset-quick"
	}
	presetPicker := app.Select().ID("preset").Class(pickerClass).Aria("label", "Preset").Disabled(!live).OnChange(p.onPresetSelect).Body(
		p.presetOptions(preset)...,
	)
	spanOptions := make([]app.UI, len(spans))
	span := p.span
	if span == 0 {
		span = defaultSpan
	}
	for i, d := range spans {
		spanOptions[i] = option(d.String(), formatClock(d), d == span)
	}
	run := []app.UI{
		app.Button().ID("play").Class(playClass).Disabled(!live).Text(playLabel).OnClick(p.onPlay),
		app.Button().ID("step").Class("btn").Disabled(!live).
			Title("%s", "Pause and fire the next event: a burst, an action, a task ending, a timer").
			Text("Step").OnClick(p.onStep),
		p.stepBackButton(live),
		app.Label().Class("speed").Body(
			app.Span().Class("control-label").Text("Speed"),
			app.Input().Type("range").ID("speed").Min(0).Max(100).Step(1).
				Value(sliderFromSpeed(speed)).Disabled(!live).OnInput(p.onSpeed),
			app.Output().ID("speed-value").Class("speed-value").Text(formatSpeed(speed)),
		),
	}
	if phase == "replay" {
		// A trace does not play: where the run's controls were, the bar
		// (sticky, so always in view) says what is shown, rather than a
		// toast over the page.
		run = []app.UI{app.P().ID("replay-status").Class("replay-status").Role("%s", "status").Body(
			app.Text("Showing "), app.Strong().Text(p.panel.Replay),
			app.Text(", read-only. “Back to live” returns to the run."),
		)}
	}
	return app.Div().Class("transport").Body(append(run,
		app.If(!p.Embed, app.Label().Class("span").Body(
			app.Span().Class("control-label").Text("Window"),
			app.Select().ID("window").Class("select").Disabled(!p.mounted).OnChange(p.onSpan).Body(spanOptions...),
		)),
		// A loaded trace is no preset: "Back to live" is the way back.
		app.If(phase != "replay", presetPicker),
		app.Div().Class("clock").Body(
			app.Span().ID("clock").Class("clock-time").Text("t = "+clockText(phase, p.panel.Now)),
			app.Span().ID("phase").Class("badge badge-"+phase).Text(phaseLabel(phase)),
		),
	)...)
}

// descKey names the scenario whose description shows whole: a preset's
// ID, or "custom".
func descKey(preset string) string {
	if preset == "" {
		return "custom"
	}
	return preset
}

// onDescMore shows the whole description of the scenario shown, or cuts
// it to two lines again.
func (p *Play) onDescMore(ctx app.Context, e app.Event) {
	if key := descKey(p.preset); p.descOpen != key {
		p.descOpen = key
	} else {
		p.descOpen = ""
	}
}

func phaseLabel(phase string) string {
	switch phase {
	case "playing":
		return "playing"
	case "paused":
		return "paused"
	case "finished":
		return "finished"
	case "replay":
		return "trace, read-only"
	}
	return "loading"
}

func (p *Play) presetOptions(selected string) []app.UI {
	var opts []app.UI
	if selected == "" {
		opts = append(opts, option("", "Custom scenario", true))
	}
	for _, ps := range append(sim.Presets(), sim.Blank()) {
		opts = append(opts, option(ps.ID, ps.Title, ps.ID == selected))
	}
	return append(opts, compareOptions(selected))
}

func (p *Play) renderNotice() app.UI {
	if p.notice.Text == "" {
		return app.Div().ID("message").Class("notice notice-none").DataSet("kind", "none").Aria("live", "polite")
	}
	return app.Div().ID("message").Class("notice notice-"+p.notice.Kind).DataSet("kind", p.notice.Kind).
		Role("%s", noticeRole(p.notice.Kind)).Body(
		app.Span().Class("notice-text").Text(p.notice.Text),
		app.Button().ID("dismiss").Class("notice-close").Aria("label", "Dismiss").Text("×").OnClick(p.onDismiss),
	)
}

func noticeRole(kind string) string {
	if kind == "error" {
		return "alert"
	}
	return "status"
}

func (p *Play) renderTimeline(sc sim.Scenario, preset, phase string) app.UI {
	var head app.UI
	switch {
	case phase == "replay":
		var omitted app.UI
		if p.panel.Omitted != "" {
			omitted = app.P().ID("omitted").Class("note-warn").Text("Not shown: " + p.panel.Omitted + ".")
		}
		head = app.Div().Class("view-head").Body(
			app.Div().Body(
				app.H2().Text("Trace: "+p.panel.Replay),
				app.P().ID("replay-times").Class("muted").Text("A loaded trace of "+formatCount(p.panel.Tasks)+" tasks, shown read-only: click or tap a bar for its details. "+p.panel.ReplayTimes),
				omitted,
			),
			app.Button().ID("back-to-live").Class("btn").Text("Back to live").OnClick(p.onBackToLive),
		)
	case p.Embed:
		head = nil
	default:
		title, desc := "Custom scenario", "Your own setup and work: the link carries all of it."
		if ps, ok := sim.PresetByID(preset); ok {
			title, desc = ps.Title, ps.Description
		} else if ps, ok := sim.PresetByID(p.basis); ok && ps.Scenario.Primitive == sc.Primitive {
			// Work added to a preset: what to watch still holds.
			title, desc = ps.Title+" (changed)", ps.Description+" You changed it: the link carries your changes."
		}
		// The head keeps one height whatever the scenario, so that the
		// timeline stays put: one line of title, two of description (a
		// longer one shows whole on "More"), and on a phone two of tag.
		open := p.descOpen == descKey(preset)
		aboutClass, more := "scenario-about", "More"
		if open {
			aboutClass, more = "scenario-about open", "Less"
		}
		tag := tagText(sc)
		head = app.Div().Class("view-head").Body(
			app.Div().Class("view-title").Body(
				app.H2().ID("scenario-title").Title("%s", title).Text(title),
				app.Div().ID("scenario-about").Class(aboutClass).Body(
					app.P().ID("scenario-desc").Class("muted scenario-desc").Text(desc),
					app.Button().ID("desc-more").Class("desc-more").
						Aria("expanded", strconv.FormatBool(open)).Aria("controls", "scenario-desc").
						Text(more).OnClick(p.onDescMore),
				),
			),
			app.Div().Class("tag-slot").Body(app.Span().Class("tag").Title("%s", tag).Text(tag)),
		)
	}
	var reading app.UI
	if p.reading != "" {
		reading = &progressNote{src: &p.progress, id: "reading-progress", cls: "reading", overlay: true}
	}
	return app.Section().Class("view").Body(
		head,
		p.renderZoom(),
		p.renderRunLabel(sc),
		app.Div().Class("canvas-wrap").Body(
			app.Canvas().ID("timeline").Class("timeline").TabIndex(0).
				Aria("label", "Timeline of the run: lanes with a bar per task, the waiting queue by priority, and counter tracks. "+
					"Arrow keys move between tasks, Enter opens a task's details, Space plays or pauses, period steps, comma steps back, plus and minus zoom, 0 fits.").
				Aria("roledescription", "timeline").
				Role("%s", "application"),
			reading,
		),
		p.renderCompareTimeline(),
		p.renderScrubber(phase),
		p.renderSheet(),
		p.renderComposer(sc, phase),
		p.renderLegend(sc),
	)
}

// renderComposer draws the run's controls and the burst's settings under
// the timeline (Composer); the embed has none. While a loaded trace is
// shown the composer stays, drawing nothing, so that what it holds is
// there again back to live.
func (p *Play) renderComposer(sc sim.Scenario, phase string) app.UI {
	if p.Embed {
		return nil
	}
	return &Composer{Setup: setupOnly(sc), Limit: p.panel.Limit, Live: p.mounted, ReadOnly: phase == "replay", Host: p}
}

// tagText names the scenario's primitive with its signature, as the
// view's heading shows it.
func tagText(sc sim.Scenario) string {
	if k := sim.KindOf(sc.Primitive); k != nil {
		return k.Signature(sc)
	}
	return sc.Primitive
}

func (p *Play) renderLegend(sc sim.Scenario) app.UI {
	var items []app.UI
	swatch := func(class, label string) app.UI {
		return app.Span().Class("legend-item").Body(app.Span().Class("swatch "+class), app.Text(label))
	}
	switch {
	case sc.ColorBy == "key":
		items = append(items, swatch("sw-key", "colour: key"))
	case classicLevels(p.panel.Levels) && p.panel.Phase != "replay":
		// A run's bursts may draw any of the three; a loaded trace shows
		// the levels it holds.
		items = append(items, swatch("sw-high", "High"), swatch("sw-normal", "Normal"), swatch("sw-low", "Low"))
	case classicLevels(p.panel.Levels):
		for _, l := range levelsDesc(p.panel.Levels) {
			items = append(items, swatch("sw-"+prioClass(l), priorityName(l)))
		}
	default:
		levels := levelsDesc(p.panel.Levels)
		for i, l := range levels {
			if i == maxLegendLevels-1 && len(levels) > maxLegendLevels {
				items = append(items, app.Span().Class("legend-item").Text("… "+formatCount(len(levels)-i)+" more levels"))
				break
			}
			items = append(items, app.Span().Class("legend-item").DataSet("priority", int(l)).Body(
				app.Span().Class("swatch "+levelClass(p.panel.Levels, l)),
				app.Text(priorityName(l))))
		}
	}
	items = append(items,
		swatch("sw-running", "running (strong)"),
		swatch("sw-failed", "failed"),
		swatch("sw-panicked", "panicked"),
		swatch("sw-canceled", "canceled"),
	)
	if p.panel.Phase != "replay" || p.panel.MaxLimit > 0 {
		items = append(items, swatch("sw-limit", "limit"))
	}
	if !p.Embed {
		items = append(items, app.Span().Class("legend-hint").Text("Click or tap a bar for its details; a waiting or running task can be canceled there."))
	}
	return app.Div().Class("legend").Body(items...)
}

func (p *Play) renderCounters(sc sim.Scenario, compact bool) app.UI {
	return countersFor(p.panel, sc, compact, "")
}

// countersFor draws the counters of a run's panel pn: run A's (#stats,
// each counter #c-<name>), or with pre "b-" a comparison's run B's
// (#stats-b, #c-b-<name>).
func countersFor(pn Panel, sc sim.Scenario, compact bool, pre string) app.UI {
	limit := "no limit"
	if pn.Limit > 0 {
		limit = "limit " + strconv.Itoa(pn.Limit)
	}
	inFlight, inFlightOf := pn.MaxRunning, limit
	if sim.KindOf(sc.Primitive).Tokens && pn.Phase != "replay" {
		inFlight = int(pn.MaxTokens)
		inFlightOf = "tokens, " + limit
	}
	over := pn.MaxLimit > 0 && inFlight > pn.MaxLimit
	waiting := ""
	if pn.Scheduled > 0 {
		waiting = "+" + formatCount(pn.Scheduled) + " scheduled"
	}
	if pn.Backlog > 0 {
		// Messages sent to a consumer and not yet taken: not on the
		// timeline's waiting queue, which is the semaphore's.
		waiting = strings.TrimPrefix(waiting+" · ", " · ") + "+" + formatCount(pn.Backlog) + " in channels"
	}
	canceled := ""
	if pn.Withdrawn > 0 {
		canceled = "+" + formatCount(pn.Withdrawn) + " before submit"
	}
	running := "of " + strings.TrimPrefix(limit, "limit ")
	if pn.Limit <= 0 {
		running = "no limit"
	}
	// A loaded trace shows only what applies to it: a trace holds no
	// refusals, and another tool's no waiting.
	replay := pn.Phase == "replay"
	cards := []app.UI{
		counter(pre+"running", "running", pn.Running, running, ""),
		app.If(!pn.NoWaits, counter(pre+"waiting", "waiting", pn.Waiting, waiting, "")),
		counter(pre+"done", "done", pn.Succeeded, "succeeded", ""),
		counter(pre+"failed", "failed", pn.Failed, "returned an error", "bad"),
		counter(pre+"canceled", "canceled", pn.Canceled, canceled, ""),
		counter(pre+"panicked", "panicked", pn.Panicked, "recovered", "bad"),
	}
	state := ""
	if over {
		state = "bad"
	}
	cards = append(cards, counter(pre+"max-in-flight", "max in flight", inFlight, inFlightOf, state))
	if !compact {
		cards = append(cards,
			app.If(!replay, counter(pre+"refused", "refused", pn.Refused, "ErrFull / ErrClosed", "")),
			textCounter(pre+"throughput", "throughput", formatRate(pn.Throughput), throughputOf(pn)),
			app.If(!pn.NoWaits, textCounter(pre+"oldest-wait", "oldest wait", formatSpan(pn.OldestWait), "age of the oldest waiter")),
		)
		if pn.Phase != "replay" {
			// The page's goroutines run the live run; a trace shown is not
			// run here, so the card has nothing to count then.
			cards = append(cards, counter(pre+"goroutines", "goroutines", pn.Goroutines, "live in this tab", ""))
		}
		if sim.KindOf(sc.Primitive).Keys || pn.Phase == "replay" && pn.Lanes > 0 {
			cards = append(cards, counter(pre+"lanes", "live lanes", pn.Lanes, "keys with a lane", ""))
		}
	}
	class := "counters"
	if compact {
		class += " counters-compact"
	}
	return app.Div().ID(strings.TrimSuffix("stats-"+pre, "-")).Class(class).DataSets(map[string]any{
		"tasks":       pn.Tasks,
		"scheduled":   pn.Scheduled,
		"waiting":     pn.Waiting,
		"backlog":     pn.Backlog,
		"running":     pn.Running,
		"succeeded":   pn.Succeeded,
		"failed":      pn.Failed,
		"canceled":    pn.Canceled,
		"panicked":    pn.Panicked,
		"refused":     pn.Refused,
		"withdrawn":   pn.Withdrawn,
		"max-running": pn.MaxRunning,
		"max-tokens":  pn.MaxTokens,
		"limit":       pn.Limit,
		"max-limit":   pn.MaxLimit,
		"lanes":       pn.Lanes,
		"goroutines":  pn.Goroutines,
		"finished":    strconv.FormatBool(pn.Finished),
		"now-ms":      pn.Now.Milliseconds(),
		"trace-tasks": pn.Trace.Submitted,
		"trace-done":  pn.Trace.Succeeded,
		"trace-fail":  pn.Trace.Failed,
		"trace-cncl":  pn.Trace.Canceled,
		"trace-panic": pn.Trace.Panicked,
		"trace-max":   pn.Trace.MaxRunning,
		"link":        pn.Link,
	}).Body(cards...)
}

func counter(id, label string, value int, of, state string) app.UI {
	return counterCard(id, label, formatCount(value), strconv.Itoa(value), of, state)
}

func textCounter(id, label, value, of string) app.UI {
	return counterCard(id, label, value, value, of, "")
}

func counterCard(id, label, shown, value, of, state string) app.UI {
	class := "counter"
	if state != "" && value != "0" {
		class += " counter-" + state
	}
	return app.Div().Class(class).Body(
		app.Span().Class("counter-label").Text(label),
		app.Span().ID("c-"+id).Class("counter-value").DataSet("value", value).Text(shown),
		app.Span().Class("counter-of").Text(of),
	)
}

func (p *Play) renderDetails() app.UI {
	pn := p.panel
	return app.Div().Class("details").Body(
		// Another tool's trace has no waits: its slices start as they
		// begin. An empty section keeps the waits' place, so that the
		// event log keeps its own (go-app matches children by position,
		// and would mount the log anew, row by row).
		app.If(!pn.NoWaits, app.Section().Class("card").Body(
			app.H2().Class("card-title").Text(map[bool]string{true: "Run A: wait before start, per priority", false: "Wait before start, per priority"}[p.runB() != nil]),
			app.Table().ID("waits").Class("waits").Body(app.TBody().Body(waitRows(pn)...)),
			app.P().Class("muted small").Text(waitsNote(pn)),
		)).Else(app.Section().Hidden(true)),
		&LogPanel{Entries: pn.Log, Matches: pn.LogMatches, Total: pn.LogTotal, LogID: pn.LogID, Primitive: pn.Primitive, Origin: pn.Origin,
			Query: p.logQuery, Live: p.mounted, Source: p, Held: p.logHeld.Load()},
		&MessagesPanel{Messages: pn.Messages, Count: pn.MessageCount, Replay: pn.Phase == "replay", Live: p.mounted, Unlinked: pn.Unlinked},
	)
}

func prioClass(p core.Priority) string {
	switch {
	case p > core.High:
		return "higher"
	case p == core.High:
		return "high"
	case p == core.Normal:
		return "normal"
	case p == core.Low:
		return "low"
	}
	return "lower"
}

func eventVerbClass(k core.EventKind) string {
	switch k {
	case core.Failed, core.Panicked:
		return "bad"
	case core.Canceled:
		return "canceled"
	case core.Started:
		return "start"
	case core.Finished:
		return "ok"
	}
	return "other"
}

// logDetail says what the event log shows of an event besides its task and
// kind. Only the queues' events say which worker slot a task runs on; a
// semaphore's holders have none.
func logDetail(primitive string, k core.EventKind, key string, lane int, weight int64, prio core.Priority, err string) string {
	return sim.EventDetail(primitive, k, key, lane, weight, prio, err)
}

// renderSide draws the left column: presets, setup, work and run
// controls.
func (p *Play) renderSide(sc sim.Scenario, preset, phase string) app.UI {
	if phase == "replay" {
		return app.Aside().Class("side").Body(p.renderPresets(preset), p.renderTraceCard())
	}
	return app.Aside().Class("side").Body(
		p.renderPresets(preset),
		&SetupPanel{Scenario: setupOnly(sc), Live: p.mounted, Host: p},
		p.renderCompareForm(sc),
		p.renderRun(sc),
	)
}

func (p *Play) renderPresets(selected string) app.UI {
	var items []app.UI
	for _, ps := range append(sim.Presets(), sim.Blank()) {
		items = append(items, p.presetButton(ps, selected, sim.KindOf(ps.Scenario.Primitive).Title))
	}
	return app.Section().Class("card").Body(
		app.H2().Class("card-title").Text("Presets"),
		app.Div().Class("presets").Body(items...),
		p.comparePresetButtons(selected),
	)
}

// presetButton is a preset's button in the presets card, kind said on
// its right.
func (p *Play) presetButton(ps sim.Preset, selected, kind string) app.UI {
	class := "preset"
	if ps.ID == selected {
		class += " preset-active"
	}
	return app.Button().ID("preset-"+ps.ID).Class(class).Disabled(!p.mounted).
		DataSet("preset", ps.ID).OnClick(p.onPreset(ps.ID), ps.ID).Body(
		app.Span().Class("preset-title").Text(ps.Title),
		app.Span().Class("preset-kind").Text(kind),
	)
}

// maxLegendLevels is how many priority levels the legend names.
const maxLegendLevels = 12

func (p *Play) renderRun(sc sim.Scenario) app.UI {
	on := p.mounted && p.panel.Phase != "replay"
	var limit app.UI
	if sim.KindOf(sc.Primitive).Resizable {
		limit = app.Div().Class("inline-form").Body(
			app.Input().Type("number").ID("limit-now").Class("input input-small").Min(1).Max(sim.MaxLimit).Value(p.limitNow).
				Aria("label", "New limit").Disabled(!on).OnChange(func(ctx app.Context, e app.Event) {
				n, err := strconv.Atoi(strings.TrimSpace(ctx.JSSrc().Get("value").String()))
				switch {
				case err != nil:
					p.fail(fmt.Errorf("the new limit must be a whole number"))
				case n < 1 || n > sim.MaxLimit:
					p.fail(fmt.Errorf("the new limit must be between 1 and %s; it is %s", formatCount(sim.MaxLimit), formatCount(n)))
				default:
					p.limitNow = n
					return
				}
				ctx.JSSrc().Set("value", p.limitNow)
			}, "limit-now"),
			app.Button().ID("set-limit").Class("btn").Disabled(!on).Text("Set limit now").OnClick(p.onSetLimit),
		)
	}
	return app.Section().Class("card").Body(
		app.H2().Class("card-title").Text("Run"),
		app.P().Class("muted small").Text("Cancel all, Drain, Close and Reset are under the timeline."),
		limit,
		app.Div().Class("inline-form").Body(
			app.Input().Type("text").ID("cancel-name").Class("input input-small").Placeholder("%s", "t7").Value(p.cancel).
				Aria("label", "Task to cancel").Disabled(!on).OnChange(func(ctx app.Context, e app.Event) {
				p.cancel = ctx.JSSrc().Get("value").String()
			}, "cancel-name"),
			app.Button().ID("cancel-task").Class("btn").Disabled(!on).Text("Cancel task").OnClick(p.onCancelTask),
		),
	)
}

// option is an option of a select. It writes selected only when it is
// true: the server's pre-render would write selected="false", which HTML
// reads as selected.
func option(value, text string, selected bool) app.UI {
	o := app.Option().Value(value).Text(text)
	if selected {
		o = o.Selected(true)
	}
	return o
}

// skipLink is the page's first Tab stop: the timeline is far down the Tab
// order, behind the controls and the setup. It shows when focused.
func skipLink() app.UI {
	return app.Button().ID("skip-to-timeline").Class("skip-link").Text("Skip to the timeline").
		OnClick(func(app.Context, app.Event) { focusTimeline() })
}

// logSpan returns the events of the shown log that match the filter, from
// the from-th to the to-th (the rows LogPanel holds).
func (p *Play) logSpan(from, to int) []trace.Entry {
	if p.sess == nil {
		return nil
	}
	return p.sess.LogSpan(from, to)
}

// setLogQuery filters the event log, over the whole run: the session
// filters, off the UI goroutine, and the panel comes back filtered.
func (p *Play) setLogQuery(ctx app.Context, q string) {
	p.logQuery = q
	if p.sess == nil {
		return
	}
	ctx = pageContext{ctx, p} // LogPanel's handler: the page shows the filtered log at once
	ctx.Async(func() {
		p.sess.SetLogQuery(q)
		p.refresh(ctx)
	})
}
