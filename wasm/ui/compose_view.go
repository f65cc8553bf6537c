package ui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/wasm/sim"
)

// Composer is the run's controls right under the timeline, where the eye
// is (#actions: add work, cancel it all, drain, close, reset), and the
// burst's settings under "Add burst" (#compose), shown on "Burst
// settings". While a loaded trace is shown (ReadOnly) it draws nothing:
// “Back to live” brings it back as it was.
//
// It is a child component of Play that owns the burst being composed:
// its values, the lists as typed, the inputs a burst was refused for, and
// whether the settings show. go-app renders it again only when one of its
// fields changes or one of its handlers ran. What happens to the run goes
// to the page (composerHost); the page calls reset when a preset is
// chosen. The embed has none.
type Composer struct {
	app.Compo

	Setup    sim.Scenario // run A's setup, without its work (setupOnly)
	Limit    int          // the run's limit now (Panel.Limit), which a burst is checked against
	Live     bool         // the page runs: the controls take input
	ReadOnly bool         // a loaded trace is shown: nothing to add or control
	Host     composerHost

	form       sim.Burst
	levelsText string            // the priority levels, as typed
	keysText   string            // the key names, as typed
	badList    string            // the ID of a list input whose text was refused
	badErr     string            // why it was refused
	badFields  map[string]string // the inputs a burst was refused for, and why
	open       bool              // the burst's settings show
}

// composerHost is what Composer asks of the page. An interface value
// holding a pointer, so that go-app finds Composer's fields unchanged.
type composerHost interface {
	// addWork adds burst b, checked, to the run (and to a comparison's
	// run B), and says so.
	addWork(ctx app.Context, b sim.Burst)
	// control runs one of the run's controls: "cancel-all", "drain",
	// "close" or "reset".
	control(ctx app.Context, id string)
	// fail shows err as the page's notice; onDismiss takes the notice
	// down.
	fail(err error)
	onDismiss(ctx app.Context, e app.Event)
	// setComposer tells the page that composer c mounted, or dismounted.
	setComposer(c *Composer, mounted bool)
}

// OnInit starts with the composer's first burst.
func (c *Composer) OnInit() { c.form = defaultBurst() }

func (c *Composer) OnMount(ctx app.Context) {
	if c.Host != nil {
		c.Host.setComposer(c, true)
	}
}

func (c *Composer) OnDismount() {
	if c.Host != nil {
		c.Host.setComposer(c, false)
	}
}

// reset brings back the first burst, for a preset just chosen: what was
// typed, and the marks of a refused burst, go; the settings stay shown or
// hidden. It runs on the UI goroutine; the composer renders again.
func (c *Composer) reset() {
	if c == nil || !c.Mounted() {
		return
	}
	c.form = defaultBurst()
	c.levelsText, c.keysText, c.badList, c.badErr = "", "", "", ""
	c.badFields = nil
	c.Update()
}

// runControls are the run's controls that follow the composer's own
// buttons in its row, each done by the page (composerHost.control).
var runControls = [...]struct{ id, class, text string }{
	{"cancel-all", "btn", "Cancel all"},
	{"drain", "btn", "Drain"},
	{"close", "btn btn-danger", "Close"},
	{"reset", "btn", "↻ Reset"},
}

func (c *Composer) Render() app.UI {
	if c.ReadOnly {
		return app.Div().Class("composer")
	}
	on := c.Live
	row := []app.UI{
		app.Button().ID("add-burst").Class("btn btn-primary").Disabled(!on).Text("Add burst").OnClick(c.onAddBurst),
		app.Button().ID("add-one").Class("btn").Disabled(!on).Text("Add 1 task").OnClick(c.onAddOne),
		app.Button().ID("compose-toggle").Class("btn").Disabled(!on).
			Aria("expanded", strconv.FormatBool(c.open)).Aria("controls", "compose").
			Text(map[bool]string{true: "Burst settings ▴", false: "Burst settings ▾"}[c.open]).OnClick(c.onToggle),
		app.Span().Class("actions-gap"),
	}
	for _, rc := range runControls {
		id := rc.id
		row = append(row, app.Button().ID(id).Class(rc.class).Disabled(!on).Text(rc.text).OnClick(func(ctx app.Context, e app.Event) {
			if c.Host != nil {
				c.Host.control(ctx, id)
			}
		}, id))
	}
	return app.Div().Class("composer").Body(
		app.Div().ID("actions").Class("actions").Role("%s", "group").Aria("label", "Run controls").Body(row...),
		c.renderSettings(),
	)
}

func (c *Composer) renderSettings() app.UI {
	f := c.form
	k := sim.KindOf(c.Setup.Primitive)
	fields := []app.UI{
		c.numField("burst-count", "Tasks", "1 to "+formatCount(sim.MaxTasks), f.Count, 1, sim.MaxTasks, func(n int) { c.form.Count = n }),
		app.Div().Class("field-row").Body(
			c.numField("burst-min", "Shortest (ms)", "", f.MinMS, 1, sim.MaxDurationMS, func(n int) { c.form.MinMS = n }),
			c.numField("burst-max", "Longest (ms)", "", f.MaxMS, 1, sim.MaxDurationMS, func(n int) { c.form.MaxMS = n }),
		),
	}
	if !k.HasGroups() {
		fields = append(fields, app.Div().Class("field").Body(
			app.Span().Class("field-label").Text("Priority mix (relative weights)"),
			app.Div().Class("field-row field-row-3").Body(
				c.numField("mix-low", "Low", "", f.Priority.Low, 0, sim.MaxMix, func(n int) { c.form.Priority.Low = n }),
				c.numField("mix-normal", "Normal", "", f.Priority.Normal, 0, sim.MaxMix, func(n int) { c.form.Priority.Normal = n }),
				c.numField("mix-high", "High", "", f.Priority.High, 0, sim.MaxMix, func(n int) { c.form.Priority.High = n }),
			),
		))
		fields = append(fields, c.listField("burst-levels", "Priority levels", "5, -3, 100",
			"any whole numbers, up to 16; each task gets one at random, instead of the mix", c.levelsText))
	}
	fields = append(fields, app.Div().Class("field").Body(
		app.Span().Class("field-label").Text("Outcome mix (relative weights)"),
		app.Div().Class("field-row field-row-4").Body(
			c.numField("mix-ok", "ok", "", f.Outcome.OK, 0, sim.MaxMix, func(n int) { c.form.Outcome.OK = n }),
			c.numField("mix-fail", "fail", "", f.Outcome.Fail, 0, sim.MaxMix, func(n int) { c.form.Outcome.Fail = n }),
			c.numField("mix-panic", "panic", "", f.Outcome.Panic, 0, sim.MaxMix, func(n int) { c.form.Outcome.Panic = n }),
			c.numField("mix-slow", "slow", "", f.Outcome.Slow, 0, sim.MaxMix, func(n int) { c.form.Outcome.Slow = n }),
		),
	))
	if k.Keys {
		fields = append(fields,
			c.numField("burst-keys", "Keys", "each task gets one of device-1 … device-N", f.Keys, 1, sim.MaxKeys, func(n int) { c.form.Keys = n }),
			c.listField("burst-key-names", "Key names", "eu-west, us-east", "or name the keys, separated by commas (up to 1,000, 64 bytes each); they replace device-N", c.keysText))
	}
	if k.Weights {
		fields = append(fields, c.numField("burst-weight", "Weight (tokens per task)", "", max(f.Weight, 1), 1, sim.MaxLimit, func(n int) { c.form.Weight = n }))
	}
	if k.HasGroups() {
		opts := []app.UI{option("0", "spread over all", f.Consumer == 0)}
		for i := range c.Setup.Consumers {
			opts = append(opts, option(strconv.Itoa(i+1), k.GroupName(i), f.Consumer == i+1))
		}
		fields = append(fields, app.Label().Class("field").Body(
			app.Span().Class("field-label").Text("Send to"),
			app.Select().ID("burst-consumer").Class("select").Disabled(!c.Live).OnChange(func(ctx app.Context, e app.Event) {
				c.form.Consumer, _ = strconv.Atoi(ctx.JSSrc().Get("value").String())
			}, "burst-consumer").Body(opts...),
		))
	}
	fields = append(fields, c.numField("burst-cancel-after", "Cancel after (ms)", "each task gives up this long after submit; 0: never", f.CancelAfterMS, 0, sim.MaxOffsetMS, func(n int) { c.form.CancelAfterMS = n }))
	var problems app.UI
	if len(c.badFields) > 0 || c.badList != "" {
		n := len(c.badFields)
		if c.badList != "" {
			n++
		}
		problems = app.P().ID("burst-problems").Class("field-error").Role("%s", "alert").
			Text(fmt.Sprintf("The burst was not added: fix the %s marked below.", plural(n, "field", formatCount(n)+" fields")))
	}
	// Under "Add burst", so that what it adds is set right next to it.
	// hidden is written only when true: the server's pre-render would
	// write hidden="false", which HTML reads as hidden.
	box := app.Div().ID("compose").Class("compose").Role("%s", "group").Aria("labelledby", "compose-title")
	if !c.open {
		box = box.Hidden(true)
	}
	return box.Body(
		app.H3().ID("compose-title").Class("card-title").Text("Burst settings"),
		problems,
		app.Div().Class("fields compose-fields").Body(fields...),
	)
}

// numField is a labelled number input of the burst whose change calls
// set with the number; text that is not one becomes the notice and marks
// the input. The value stays as typed: "Add burst" says what is wrong with
// the burst.
func (c *Composer) numField(id, label, hint string, value, lo, hi int, set func(n int)) app.UI {
	return numInput(id, label, hint, value, lo, hi, c.badFields[id], c.Live, func(ctx app.Context, e app.Event) {
		v := strings.TrimSpace(ctx.JSSrc().Get("value").String())
		n, err := strconv.Atoi(v)
		delete(c.badFields, id) // checked again by "Add burst"
		if err != nil {
			err = fmt.Errorf("%s must be a whole number; %q is not one", strings.ToLower(label), truncate(v, 20))
			c.fail(err)
			c.markField(id, err.Error())
			return
		}
		set(n)
	})
}

// markField marks input id as refused, for problem.
func (c *Composer) markField(id, problem string) {
	if c.badFields == nil {
		c.badFields = make(map[string]string)
	}
	c.badFields[id] = problem
}

// listField is a labelled text input for one of the burst's lists (see
// setList).
func (c *Composer) listField(id, label, placeholder, hint string, value string) app.UI {
	bad := ""
	if c.badList == id {
		bad = c.badErr
	}
	in := app.Input().Type("text").ID(id).Class("input").Placeholder("%s", placeholder).Value(value).
		Disabled(!c.Live).OnChange(func(ctx app.Context, e app.Event) {
		c.setList(ctx, id, ctx.JSSrc().Get("value").String())
	}, id)
	return field(label, in, id, bad, hint)
}

// setList reads the text typed in list input id ("burst-levels" or
// "burst-key-names") into the burst. Bad text becomes the notice and
// marks the input until it is fixed, and stays as typed; "Add burst"
// refuses to run meanwhile.
func (c *Composer) setList(ctx app.Context, id, text string) {
	var err error
	switch id {
	case "burst-levels":
		c.levelsText = text
		var levels []int
		if levels, err = parseLevels(text); err == nil {
			c.form.Levels = levels
		} else {
			err = fmt.Errorf("priority levels: %w", err)
		}
	case "burst-key-names":
		c.keysText = text
		var names []string
		if names, err = parseKeyNames(text); err == nil {
			c.form.KeyNames = names
		} else {
			err = fmt.Errorf("key names: %w", err)
		}
	}
	if err != nil {
		c.badList, c.badErr = id, err.Error()
		c.fail(err)
		return
	}
	if c.badList == id {
		c.badList, c.badErr = "", ""
		if c.Host != nil {
			c.Host.onDismiss(ctx, app.Event{})
		}
	}
}

func (c *Composer) fail(err error) {
	if c.Host != nil {
		c.Host.fail(err)
	}
}

func (c *Composer) onAddOne(ctx app.Context, e app.Event) {
	b := c.form
	b.Count = 1
	c.submit(ctx, b)
}

func (c *Composer) onAddBurst(ctx app.Context, e app.Event) {
	c.submit(ctx, c.form)
}

// submit adds burst b to the run, or refuses it: the inputs it is
// refused for are marked, and the first shown and focused, rather than
// only named in a toast.
func (c *Composer) submit(ctx app.Context, b sim.Burst) {
	if c.badList != "" {
		c.fail(errors.New(c.badErr + "; fix it before adding work"))
		c.showField(ctx, c.badList)
		return
	}
	if k := sim.KindOf(c.Setup.Primitive); k != nil {
		k.Trim(&b)
	}
	bad, first := burstFieldProblems(c.Setup, c.Limit, b)
	c.badFields = bad
	if first != "" {
		c.fail(checkBurst(c.Setup, c.Limit, b))
		c.showField(ctx, first)
		return
	}
	if c.Host != nil {
		c.Host.addWork(ctx, b)
	}
}

// showField opens the burst's settings and, once the page shows them,
// scrolls input id into view and focuses it.
func (c *Composer) showField(ctx app.Context, id string) {
	c.open = true
	ctx.Defer(func(app.Context) { revealElement(id, true) })
}

// onToggle opens or closes the burst's settings; opened, they are
// scrolled into view.
func (c *Composer) onToggle(ctx app.Context, e app.Event) {
	c.open = !c.open
	if c.open {
		ctx.Defer(func(app.Context) { revealElement("compose", false) })
	}
}
