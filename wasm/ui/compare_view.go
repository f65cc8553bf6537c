package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/wasm/sim"
)

// compareState is what Play knows of the comparison it shows, on the UI
// goroutine. Run A is Play's own session; sess is run B's, or nil when no
// comparison is open. The frame loop reaches run B through the driver
// (driver.b), never through this.
type compareState struct {
	sess   *Session
	base   sim.Comparison // as opened: its work without the person's later additions
	preset string         // the comparison preset it came from, or ""
	panel  Panel          // run B's, as last taken
	scB    sim.Scenario   // run B's scenario, the person's work included
	rows   []DiffRow
	// draft is run B's setup in the "Compare with…" form: A's scenario
	// with the settings the person changed.
	draft sim.Scenario
	form  bool // the form was opened: it shows the draft, not A's settings
}

// comparePanel is what a panel refresh takes of a comparison, off the UI
// goroutine.
type comparePanel struct {
	sess *Session
	B    Panel
	ScB  sim.Scenario
	Rows []DiffRow
}

// takePanels takes the panel of run A and, while a comparison is open,
// of run B and their diff table, and returns what shows them on the UI
// goroutine. It runs off the UI goroutine (the frame goroutine, or
// ctx.Async). An update taken while a comparison opened or closed is
// dropped: the next one, a few frames later, is right.
func (p *Play) takePanels() func() {
	pn := p.sess.Panel()
	sc, preset := p.sess.Scenario()
	b := p.drv.b.Load()
	if b == nil {
		return func() {
			if p.cmp.sess != nil {
				return
			}
			p.apply(pn, sc, preset)
		}
	}
	cp := comparePanel{sess: b, B: b.Panel()}
	cp.ScB, _ = b.Scenario()
	cp.Rows = diffTable(pn, cp.B, p.sess.keyTable(), b.keyTable())
	pn.Link = sim.Comparison{A: sc, B: cp.ScB}.Encode()
	pn.Phase = bothPhase(pn.Phase, cp.B.Phase)
	pn.Now = max(pn.Now, cp.B.Now)
	if cp.B.Unlinked != "" && pn.Unlinked == "" {
		pn.Unlinked = "run B: " + cp.B.Unlinked
	}
	return func() {
		if p.cmp.sess != cp.sess {
			return
		}
		p.cmp.panel, p.cmp.scB, p.cmp.rows = cp.B, cp.ScB, cp.Rows
		p.apply(pn, sc, preset)
	}
}

// linkPrefix is what precedes the encoded state in the page's links: a
// comparison's or a scenario's.
func (p *Play) linkPrefix() string {
	if p.cmp.sess != nil {
		return sim.ComparePrefix
	}
	return sim.LinkPrefix
}

// runB returns run B's session, or nil. UI goroutine only.
func (p *Play) runB() *Session { return p.cmp.sess }

// openComparison runs c: run A in the page's session, run B in a new one,
// both from virtual time 0 and playing on one clock. preset names the
// comparison preset c came from, or is "". A comparison already open is
// closed first.
func (p *Play) openComparison(ctx app.Context, c sim.Comparison, preset string) {
	p.openComparisonAt(ctx, c, preset, -1)
}

// openComparisonAt is openComparison that shows both runs paused at
// virtual time at (a link's t=), or plays them when at is negative.
func (p *Play) openComparisonAt(ctx app.Context, c sim.Comparison, preset string, at time.Duration) {
	if p.sess == nil {
		return
	}
	if err := c.Validate(); err != nil {
		p.fail(err)
		return
	}
	old := p.cmp.sess
	p.drv.push(input{Kind: inputReset})
	p.details = nil
	p.notice = notice{}
	p.cmp = compareState{base: c, preset: preset, draft: cloneScenario(c.B), scB: c.B}
	p.preset, p.basis = preset, preset
	p.limitNow = max(c.A.Limit, 1)
	a, drv := p.sess, p.drv
	ctx.Async(func() {
		b, err := NewSession(c.B, "")
		if err == nil {
			drv.hold.Store(true) // neither run moves until both play
			err = a.Load(c.A, preset)
			if err == nil {
				speed, _ := a.Scenario()
				b.SetSpeed(speed.Speed)
				drv.b.Store(b)
				if at >= 0 {
					err = eachRun(a, b, func(s *Session) error { return s.Seek(at) })
				} else {
					err = setPlayingBoth(a, b, true)
				}
			}
			drv.hold.Store(false)
		}
		if old != nil && old != b {
			old.Close()
		}
		if err != nil && b != nil {
			drv.b.Store(nil)
			b.Close()
		}
		p.dispatch(ctx, func() {
			if err != nil {
				p.cmp = compareState{}
				p.fail(fmt.Errorf("the comparison could not start: %w", err))
				return
			}
			p.cmp.sess = b
		})
		p.dispatch(ctx, p.takePanels())
	})
}

// dispatch runs fn on the UI goroutine with p as its source: the element
// whose handler opened or closed a comparison may be gone from the page
// by then, and go-app drops what is dispatched from an element no longer
// in the page.
func (p *Play) dispatch(ctx app.Context, fn func()) {
	ctx.Dispatcher().Dispatch(app.Dispatch{Mode: app.Update, Source: p, Function: func(app.Context) { fn() }})
}

// closeCompare ends the comparison, if one is open: run B stops and run A
// goes on alone.
func (p *Play) closeCompare(ctx app.Context) {
	b := p.cmp.sess
	p.cmp = compareState{}
	if p.drv != nil {
		p.drv.b.Store(nil)
	}
	if b != nil {
		ctx.Async(b.Close) // waits for its goroutines: never on the UI goroutine
	}
}

// changeOf returns the settings c's run B changes, as a sim.Change.
func changeOf(c sim.Comparison) sim.Change {
	var ch sim.Change
	a, b := c.A, c.B
	if a.Primitive != b.Primitive {
		ch.Primitive = b.Primitive
	}
	if a.Limit != b.Limit {
		ch.Limit = sim.Int(b.Limit)
	}
	if a.AgingMS != b.AgingMS {
		ch.AgingMS = sim.Int(b.AgingMS)
	}
	if a.Capacity != b.Capacity {
		ch.Capacity = sim.Int(b.Capacity)
	}
	if fmt.Sprint(a.Consumers) != fmt.Sprint(b.Consumers) {
		ch.Groups = cloneScenario(b).Consumers
	}
	return ch
}

// editCompare runs the comparison again with run A's setup edited to a:
// run B keeps the settings it changes. If B no longer fits, the
// comparison closes and says why.
func (p *Play) editCompare(ctx app.Context, a sim.Scenario) {
	c, err := sim.Compare(a, changeOf(p.cmp.base))
	if err != nil {
		p.closeCompare(ctx)
		p.load(ctx, a, presetFor(a), "")
		p.fail(fmt.Errorf("the comparison was closed: with this setup %w", err))
		return
	}
	p.openComparison(ctx, c, "")
}

// resetCompare starts the comparison again from 0 without the person's
// work (the logs), as Reset does a single run.
func (p *Play) resetCompare(ctx app.Context) {
	c := p.cmp.base
	c.A.Log, c.B.Log = nil, nil
	p.openComparison(ctx, c, p.cmp.preset)
}

// onComparePreset opens a comparison preset.
func (p *Play) onComparePreset(ctx app.Context, ps sim.Preset) {
	c, err := sim.Compare(ps.Scenario, *ps.Compare)
	if err != nil {
		p.fail(err) // a preset always compares; its test says so
		return
	}
	p.composer.reset()
	p.openComparison(ctx, c, ps.ID)
}

// openLinked opens the comparison of the page's URL (#c=), when it has
// one, paused at virtual time at (the link's t=) or, when at is negative,
// playing. It reports whether it did.
func (p *Play) openLinked(ctx app.Context, hash string, at time.Duration) bool {
	text, ok := strings.CutPrefix(hash, sim.ComparePrefix)
	if !ok {
		return false
	}
	c, err := sim.DecodeComparison(text)
	if err != nil {
		p.fail(fmt.Errorf("the comparison link could not be opened: %w", err))
		return true
	}
	p.openComparisonAt(ctx, c, comparePresetFor(c), at)
	return true
}

// comparePresetFor returns the ID of the comparison preset whose
// comparison c is, at any speed, or "".
func comparePresetFor(c sim.Comparison) string {
	for _, ps := range sim.ComparePresets() {
		pc, err := sim.Compare(ps.Scenario, *ps.Compare)
		if err != nil {
			continue
		}
		pc.A.Speed, pc.B.Speed = c.A.Speed, c.B.Speed
		if pc.Encode() == c.Encode() {
			return ps.ID
		}
	}
	return ""
}

// onCompareStart opens a comparison of the run with the draft's settings,
// or applies the draft to the comparison open.
func (p *Play) onCompareStart(ctx app.Context, e app.Event) {
	a := cloneScenario(p.sc)
	d := p.draftB(a)
	c, err := sim.Compare(a, changeOf(sim.Comparison{A: a, B: d}))
	if err != nil {
		p.fail(fmt.Errorf("cannot compare: %w", err))
		return
	}
	p.openComparison(ctx, c, "")
}

func (p *Play) onCompareStop(ctx app.Context, e app.Event) {
	if p.cmp.sess == nil {
		return
	}
	p.closeCompare(ctx)
	p.preset = ""
	p.notice = notice{"Comparison closed: run A goes on alone.", "info"}
	ctx.Async(func() { p.dispatch(ctx, p.takePanels()) })
}

// draftB returns the form's run B: the draft once the person changed it,
// else A's settings with the limit doubled, a first change worth seeing.
func (p *Play) draftB(sc sim.Scenario) sim.Scenario {
	if p.cmp.form || p.cmp.sess != nil {
		return cloneScenario(p.cmp.draft)
	}
	d := cloneScenario(sc)
	if k := sim.KindOf(d.Primitive); k != nil && !k.HasGroups() {
		d.Limit = min(max(d.Limit*2, 1), sim.MaxLimit)
	} else {
		d.Limit = min(d.Limit+2, sim.MaxLimit)
	}
	return d
}

// setDraft changes the form's run B.
func (p *Play) setDraft(change func(d *sim.Scenario)) {
	d := p.draftB(p.sc)
	change(&d)
	p.cmp.draft, p.cmp.form = d, true
}

// renderCompareForm draws "Compare with…": run B's setup, which starts
// as run A's, and the button that runs both side by side.
func (p *Play) renderCompareForm(sc sim.Scenario) app.UI {
	on := p.mounted && p.panel.Phase != "replay"
	d := p.draftB(sc)
	var changes []app.UI
	if p.cmp.sess != nil {
		for _, c := range p.cmp.base.Changes() {
			changes = append(changes, app.Li().Text(c))
		}
	}
	label, help := "Compare", "Runs this work twice on one clock: as it is (A) and with run B's settings (B)."
	if p.cmp.sess != nil {
		label, help = "Apply to run B", "Run B changes:"
	}
	return app.Section().ID("compare").Class("card").Aria("labelledby", "compare-title").Body(
		app.H2().ID("compare-title").Class("card-title").Text("Compare with…"),
		app.P().Class("muted small").Text(help),
		// The same elements whether a comparison is open or not, so that
		// the buttons stay in the page while their handlers run.
		app.Ul().ID("compare-changes").Class("compare-changes").Hidden(len(changes) == 0).Body(changes...),
		app.Div().Class("inline-form").Body(
			app.Button().ID("compare-start").Class("btn btn-primary").Disabled(!on).Text(label).OnClick(p.onCompareStart),
			app.Button().ID("compare-stop").Class("btn").Hidden(p.cmp.sess == nil).Text("Stop comparing").OnClick(p.onCompareStop),
		),
		&SetupPanel{Scenario: setupOnly(d), A: sc, ForB: true, Live: p.mounted, Host: p},
	)
}

// renderRunLabel names run A above its timeline while a comparison is
// open; otherwise it is an empty placeholder, so that the timeline's
// canvas keeps its place in the page.
func (p *Play) renderRunLabel(sc sim.Scenario) app.UI {
	return runLabel("run-a-label", "A", tagText(sc), p.cmp.sess != nil)
}

// renderStatsLabel names run A's counters while a comparison is open;
// otherwise it is an empty placeholder.
func (p *Play) renderStatsLabel() app.UI {
	return runLabel("stats-a-label", "A", "Run A", p.cmp.sess != nil)
}

// runLabel is the label of a run, tag "A" or "B", or an empty placeholder
// of the same element when off, so that what follows keeps its place.
func runLabel(id, tag, text string, on bool) app.UI {
	if !on {
		return app.Div().ID(id).Class("run-label-none")
	}
	return app.Div().ID(id).Class("run-label").Body(
		app.Span().Class("run-tag run-tag-"+strings.ToLower(tag)).Text(tag),
		app.Span().Class("run-sig").Text(text),
	)
}

// renderCompareTimeline draws run B's timeline under run A's, on the same
// time axis, while a comparison is open; otherwise an empty placeholder.
func (p *Play) renderCompareTimeline() app.UI {
	if p.cmp.sess == nil {
		return app.Div().ID("compare-b").Class("compare-b compare-none")
	}
	return app.Div().ID("compare-b").Class("compare-b").Body(
		runLabel("run-b-label", "B", tagText(p.cmp.scB)+"  ·  "+strings.Join(p.cmp.base.Changes(), " · "), true),
		app.Div().Class("canvas-wrap").Body(
			app.Canvas().ID("timeline-b").Class("timeline timeline-b").TabIndex(0).
				Aria("label", "Timeline of run B, on run A's time axis: the same work with "+strings.Join(p.cmp.base.Changes(), ", ")+
					". Plus and minus zoom both timelines, arrows pan, Space plays or pauses, period steps, 0 fits.").
				Aria("roledescription", "timeline").
				Role("%s", "application"),
		),
	)
}

// renderComparePanels draws, while a comparison is open, run B's own
// counters and wait table and the diff table of the two runs.
func (p *Play) renderComparePanels(compact bool) app.UI {
	if p.cmp.sess == nil {
		return app.Div().ID("compare-panels").Class("compare-none")
	}
	pn := p.cmp.panel
	var waits app.UI
	if !compact {
		waits = app.Section().Class("card").Body(
			app.H2().Class("card-title").Text("Run B: wait before start, per priority"),
			app.Table().ID("waits-b").Class("waits").Body(app.TBody().Body(waitRows(pn)...)),
		)
	}
	return app.Div().ID("compare-panels").Class("compare-panels").Body(
		runLabel("stats-b-label", "B", "Run B", true),
		countersFor(pn, p.cmp.scB, compact, "b-"),
		diffTableUI(p.cmp.rows, compact),
		waits,
	)
}

// waitRows are the rows of a run's wait table, as renderDetails writes
// run A's.
func waitRows(pn Panel) []app.UI {
	rows := []app.UI{app.Tr().Body(
		app.Th().Text("priority"), app.Th().Text("tasks"), app.Th().Text("p50"), app.Th().Text("p95"), app.Th().Text("max"),
	)}
	for _, w := range pn.Waits {
		dot := app.Span().Class("dot dot-" + prioClass(w.Priority))
		if !classicLevels(pn.Levels) {
			dot = app.Span().Class("dot " + levelClass(pn.Levels, w.Priority))
		}
		rows = append(rows, app.Tr().DataSet("priority", int(w.Priority)).Body(
			app.Td().Body(dot, app.Text(priorityName(w.Priority))),
			app.Td().Text(formatCount(w.Count)),
			app.Td().Class("num").Text(formatSpan(w.P50)),
			app.Td().Class("num").Text(formatSpan(w.P95)),
			app.Td().Class("num").Text(formatSpan(w.Max)),
		))
	}
	if len(pn.Waits) == 0 {
		rows = append(rows, app.Tr().Body(app.Td().ColSpan(5).Class("muted").Text("No task has started yet.")))
	}
	return rows
}

// diffTableUI draws a comparison's diff table: per priority (and per key
// for keyed work, but in the compact embed) the wait p50, p95 and max,
// then throughput and the tasks done, failed, panicked and canceled, for
// run A and run B, B/A, and the better run named in words (and drawn
// bold and underlined), never by colour alone.
func diffTableUI(diff []DiffRow, compact bool) app.UI {
	rows := []app.UI{app.Tr().Body(
		app.Th().Scope("col").Text("measure"),
		app.Th().Scope("col").Text("run A"),
		app.Th().Scope("col").Text("run B"),
		app.Th().Scope("col").Text("B/A"),
		app.Th().Scope("col").Text("better"),
	)}
	group := ""
	for _, r := range diff {
		if compact && strings.HasPrefix(r.ID, "key-") {
			continue
		}
		if r.Group != group {
			group = r.Group
			rows = append(rows, app.Tr().Class("diff-group").Body(app.Th().Scope("colgroup").ColSpan(5).Text(group)))
		}
		ca, cb := "num", "num"
		better := "same"
		switch r.Better {
		case "A":
			ca += " diff-better"
			better = "A better"
		case "B":
			cb += " diff-better"
			better = "B better"
		}
		if r.Measure == "tasks started" {
			better = ""
		}
		rows = append(rows, app.Tr().DataSet("row", r.ID).Body(
			app.Th().Scope("row").Class("diff-measure").Text(r.Measure),
			app.Td().Class(ca).Text(r.A),
			app.Td().Class(cb).Text(r.B),
			app.Td().Class("num").Text(r.Ratio),
			app.Td().Class("diff-mark").Text(better),
		))
	}
	return app.Section().ID("diff").Class("card diff").Body(
		app.H2().Class("card-title").Text("A and B compared"),
		app.Div().Class("diff-scroll").Body(
			app.Table().ID("diff-table").Class("waits diff-table").Aria("label", "Run A and run B compared: waits, throughput and outcomes").
				Body(app.TBody().Body(rows...)),
		),
		app.P().Class("muted small").Text("Each run's numbers as its own tables show them; B/A below 1 means B's is smaller. "+
			"Lower waits, failures and cancels are better, higher throughput and work done."),
	)
}

// renderCodeB draws run B's Go program under run A's while a comparison
// is open.
func (p *Play) renderCodeB() app.UI {
	if p.cmp.sess == nil || p.panel.Phase == "replay" {
		return app.Div().ID("code-b").Class("compare-none")
	}
	key := p.cmp.scB.Encode()
	if codeMemoB.key != key {
		codeMemoB.key, codeMemoB.code = key, p.cmp.scB.GoCode()
	}
	return &CodeCard{Suffix: "-b", Title: "Go code of run B",
		About:     "Run B's program: the same work as run A's above, with " + strings.Join(p.cmp.base.Changes(), ", ") + ".",
		CopyLabel: "Copy code of B", Name: "Go program that runs run B", Code: codeMemoB.code,
		Copied: "Code of run B copied.", Live: p.mounted, Copier: p}
}

// codeMemoB is codeMemo for run B's program. UI goroutine only.
var codeMemoB struct{ key, code string }

// comparePresetButtons are the comparison presets in the presets card.
func (p *Play) comparePresetButtons(selected string) app.UI {
	items := []app.UI{app.H3().Class("presets-sub").Text("Comparisons")}
	for _, ps := range sim.ComparePresets() {
		items = append(items, p.presetButton(ps, selected, "A vs B"))
	}
	return app.Div().Class("presets presets-compare").Role("%s", "group").Aria("label", "Comparisons").Body(items...)
}

// compareOptions are the comparison presets in the preset picker.
func compareOptions(selected string) app.UI {
	var opts []app.UI
	for _, ps := range sim.ComparePresets() {
		opts = append(opts, option(ps.ID, ps.Title+" (A vs B)", ps.ID == selected))
	}
	return app.Elem("optgroup").Attr("label", "Comparisons").Body(opts...)
}
