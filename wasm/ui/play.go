package ui

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/wasm/sim"
)

// Play is the playground itself: the controls, the canvas timeline, the
// counters and the logs of one run. The page at / shows it whole; the
// embed shows it compact (Embed).
//
// Its state changes only on the UI goroutine: event handlers change what
// they own and hand every call into the session, which may block while the
// run comes to rest, to ctx.Async; results come back through ctx.Dispatch.
// The timeline is drawn on a canvas by the frame loop, outside go-app's
// rendering; the DOM counters follow a few times a second.
//
// Panels that hold state of their own are child components (LogPanel,
// MessagesPanel, CodeCard, SetupPanel, Composer, SharePanel): Play sets
// their exported fields as it renders, and they call back into it through
// small interfaces (logSource, copier, setupHost, composerHost, shareHost).
//
// The DOM carries stable hooks for tests: #playground has data-mounted,
// data-phase ("loading", "playing", "paused", "finished", "replay"),
// data-primitive and data-preset; #stats has a data attribute per counter
// (data-tasks, data-succeeded, ..., data-finished); each counter's value is
// #c-<name> with data-value; #message is the notice, with data-kind.
type Play struct {
	app.Compo

	// Embed selects the compact view for iframes.
	Embed bool

	// UI state, unexported so that a parent's re-render never resets it.
	mounted  bool
	sess     *Session
	drv      *driver
	stopLoop func()
	frames   frameGate // the frame loop, in a browser
	stopHost func()
	stopSize func()

	panel    Panel
	sc       sim.Scenario // the scenario as last known, the person's work included
	preset   string
	link     string // the encoded scenario last put in the URL
	notice   notice
	span     time.Duration
	limitNow int
	cancel   string       // the task name typed in "cancel task"
	reading  string       // the file name of a trace being read, if one is
	progress progress     // the note on its reading
	tracing  atomic.Bool  // a trace is being read: the frame loop waits
	details  *TaskDetails // the task whose details sheet is open
	logQuery string       // the event log's filter, as typed
	// logHeld holds the event log's rows back while a trace (or the run
	// after one) is first drawn: they come with the frame loop's panels
	// after the drawing, in a render of their own (driver.republish).
	// The frame loop reads it.
	logHeld atomic.Bool
	// sideHeld keeps the side column and the code card as the live run
	// had them after a trace is loaded, until the frame loop's panels
	// after the trace's first drawing let them go, in a render of their
	// own (a long one together); the event log's rows come with the
	// panels after those. The page's data-phase says "replay" once they
	// have. The frame loop reads it.
	sideHeld atomic.Bool
	msgQuery string // the messages' filter, as typed
	descOpen string // the preset (or "custom") whose description shows whole
	basis    string // the preset the scenario was last, which a changed one still shows
	shown    notice // the notice expireNotice last saw, and since when
	shownAt  time.Time

	composer *Composer // the controls and the burst's settings under the timeline, once mounted

	cmp compareState // the comparison open, if any (compare_view.go)
	rw  playRewind   // seeks, the moment in the address bar, forks told (play_rewind.go)
}

// noticeFor is how long a toast that is not an error stays up.
const noticeFor = 8 * time.Second

// expireNotice, called with each refresh of the panel, takes down an
// "ok" or "info" toast once it has been up for noticeFor, so that it does
// not keep covering the page; an error stays until dismissed or replaced.
func (p *Play) expireNotice(now time.Time) {
	if p.notice != p.shown {
		p.shown, p.shownAt = p.notice, now
		return
	}
	if p.notice.Text != "" && p.notice.Kind != "error" && now.Sub(p.shownAt) >= noticeFor {
		p.notice = notice{}
	}
}

// notice is the message shown above the timeline.
type notice struct {
	Text string
	Kind string // "error", "info" or "ok"
}

// hostMessage is a command from the page that frames the embed (see
// listenHost).
type hostMessage struct {
	Kind     string  // "ping", "play", "pause", "load"
	Preset   string  // load: a preset's ID
	Scenario string  // load: an encoded scenario, with or without "#s="
	Speed    float64 // play: a speed, 0 to keep it
}

// OnMount opens the scenario in the URL (or the first preset), starts
// playing it, and starts the frame loop. It is called on the client only.
func (p *Play) OnMount(ctx app.Context) {
	_, query, hash := location() // a comparison's link (#c=) opens once the page runs
	sc, preset, problem := initialScenario()
	sess, err := NewSession(sc, preset)
	if err != nil {
		// A preset always runs; a decoded link was validated.
		problem = "The scenario cannot run: " + err.Error()
		def := sim.Presets()[0]
		sess, _ = NewSession(def.Scenario, def.ID)
	}
	p.sess = sess
	p.drv = newDriver(sess, p.Embed)
	p.sc, p.preset = sess.Scenario()
	p.basis = p.preset
	p.span = defaultSpan
	p.limitNow = max(p.sc.Limit, 1)
	p.mounted = true
	if problem != "" {
		p.notice = notice{problem, "error"}
	}
	at, paused, badMoment := linkMoment()
	if problem == "" && badMoment != "" {
		p.notice = notice{badMoment, "error"}
	}
	paused = paused && problem == ""
	if !paused {
		sess.SetPlaying(true)
	}
	p.panel = sess.Panel()
	if problem != "" {
		// The person's link stays in the address bar, so that a reload
		// (the advice for a link from a newer playground) opens it
		// again; the page shows the scenario it runs instead.
		p.link = p.panel.Link
	} else {
		p.syncURL(p.panel.Link)
	}
	p.stopLoop = startLoop(ctx, p)
	switch {
	case problem == "" && versionProblem(query) == "" && strings.HasPrefix(hash, sim.ComparePrefix):
		if !paused {
			at = -1
		}
		p.openLinked(ctx, hash, at) // both runs, at the link's moment if it has one
	case paused:
		p.seek(ctx, at) // the link's moment, t=
	}
	if p.Embed {
		if stop, err := watchHeight(); err == nil {
			p.stopSize = stop
		} else {
			app.Logf("sluice: cannot report the embed's height: %v", err)
		}
		if stop, err := listenHost(func(m hostMessage) {
			// A JS callback: hand the command over and return.
			ctx.Async(func() { p.hostCommand(ctx, m) })
		}); err == nil {
			p.stopHost = stop
		}
	}
}

// frameGate holds the frame loop's animation frames while a large render
// of the page's is due, and lets them go once it is done (jsLoop.hold).
type frameGate interface {
	hold()
	release()
}

// OnDismount stops the frame loop and the run.
func (p *Play) OnDismount() {
	for _, stop := range []func(){p.stopLoop, p.stopHost, p.stopSize} {
		if stop != nil {
			stop()
		}
	}
	p.stopLoop, p.stopHost, p.stopSize = nil, nil, nil
	if p.sess != nil {
		p.sess.Close()
	}
}

// OnNav follows a link edited in the address bar: a new #s= loads its
// scenario.
func (p *Play) OnNav(ctx app.Context) {
	if !p.mounted {
		return
	}
	_, query, hash := location()
	if linkRepaired.Swap(false) {
		p.notice = notice{damagedLink, "error"}
		return
	}
	if text, ok := strings.CutPrefix(hash, sim.ComparePrefix); ok && text != p.link && versionProblem(query) == "" {
		at, paused, _ := linkMoment()
		if !paused {
			at = -1
		}
		p.openLinked(ctx, hash, at)
		return
	}
	text, ok := strings.CutPrefix(hash, sim.LinkPrefix)
	if !ok {
		if problem := linkProblem(hash); problem != "" {
			p.notice = notice{strings.TrimSuffix(problem, " Showing the first preset instead."), "error"}
		}
		return
	}
	if text == p.link {
		return
	}
	if problem := versionProblem(query); problem != "" {
		// The scenario is not read: the link's ?v= says it is not one
		// this playground can run as it was meant.
		p.notice = notice{problem, "error"}
		return
	}
	sc, err := sim.Decode(text)
	if err != nil {
		p.fail(fmt.Errorf("the link could not be opened: %v", err))
		return
	}
	if at, ok, _ := linkMoment(); ok {
		p.loadAt(ctx, sc, presetFor(sc), at)
		return
	}
	p.load(ctx, sc, presetFor(sc), "")
}

// initialScenario returns the scenario the page opens with: the link's, or
// the first preset and a notice saying what was wrong with the link.
func initialScenario() (sim.Scenario, string, string) {
	def := sim.Presets()[0]
	_, query, hash := location()
	if problem := versionProblem(query); problem != "" {
		return def.Scenario, def.ID, problem + " Showing the first preset instead."
	}
	if linkRepaired.Swap(false) {
		return def.Scenario, def.ID, damagedLink + " Showing the first preset instead."
	}
	text, ok := strings.CutPrefix(hash, sim.LinkPrefix)
	if !ok {
		return def.Scenario, def.ID, linkProblem(hash)
	}
	sc, err := sim.Decode(text)
	if err != nil {
		return def.Scenario, def.ID, "The link could not be opened: " + err.Error() + ". Showing the first preset instead."
	}
	return sc, presetFor(sc), ""
}

// linkProblem says, for the first preset's notice, what is wrong with a
// link's fragment that holds no scenario: a comparison (#c=) that cannot
// be read, or a kind of link ("#x=…") this playground does not know, as
// a newer playground may write; "" for a comparison that reads (the page
// opens it once it runs) and for a fragment that is no link.
func linkProblem(hash string) string {
	if text, ok := strings.CutPrefix(hash, sim.ComparePrefix); ok {
		if _, err := sim.DecodeComparison(text); err != nil {
			return "The comparison link could not be opened: " + err.Error() + ". Showing the first preset instead."
		}
		return ""
	}
	kind, _, ok := strings.Cut(strings.TrimPrefix(hash, "#"), "=")
	if !ok || kind == "" || strings.Trim(kind, "abcdefghijklmnopqrstuvwxyz") != "" {
		return ""
	}
	return "The link holds a kind of link (#" + truncate(kind, 8) + "=) this playground cannot read: a newer playground may have made it, so reload the page to update it. Showing the first preset instead."
}

// versionProblem says what is wrong with the version (?v=) of a link's
// query, or "".
func versionProblem(query string) string {
	q, err := url.ParseQuery(strings.TrimPrefix(query, "?"))
	if err != nil {
		return ""
	}
	v := q.Get("v")
	if v == "" {
		return ""
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return fmt.Sprintf("The link's version (?v=%s) is not one this playground wrote.", truncate(v, 20))
	}
	if n > sim.Version {
		return fmt.Sprintf("The link was made by a newer playground (version %d; this one is version %d): reload the page to update it.", n, sim.Version)
	}
	return ""
}

// presetFor returns the ID of the preset whose scenario sc is, or "".
func presetFor(sc sim.Scenario) string {
	enc := sc.Encode()
	for _, ps := range append(sim.Presets(), sim.Blank()) {
		if ps.Scenario.Encode() == enc {
			return ps.ID
		}
	}
	return ""
}

// defaultBurst is the burst the composer starts with. Submit drops the
// fields the primitive does not read.
func defaultBurst() sim.Burst {
	return sim.Burst{Count: 10, MinMS: 300, MaxMS: 1200,
		Priority: sim.PriorityMix{Low: 1, Normal: 2, High: 1},
		Outcome:  sim.OutcomeMix{OK: 8, Fail: 1, Slow: 1},
		Keys:     4, Weight: 1}
}

// syncURL puts the encoded scenario in the address bar, without
// navigating, when it changed.
func (p *Play) syncURL(link string) {
	moment := p.momentParam()
	if link == "" || link == p.link && moment == p.rw.moment {
		return
	}
	p.link, p.rw.moment = link, moment
	path, _, _ := location()
	replaceURL(path + "?v=" + strconv.Itoa(sim.Version) + moment + p.linkPrefix() + link)
}

// apply shows a panel the frame loop or a command produced.
func (p *Play) apply(pn Panel, sc sim.Scenario, preset string) {
	p.panel = pn
	p.sc, p.preset = sc, preset
	if preset != "" {
		p.basis = preset
	}
	if pn.Alert != "" {
		p.notice = notice{pn.Alert, "error"}
	}
	p.tellFork(pn.Rewind)
	p.syncURL(pn.Link)
}

// refresh takes a panel now, after a command, and shows it. It runs in
// ctx.Async.
func (p *Play) refresh(ctx app.Context) {
	show := p.takePanels()
	ctx.Dispatch(func(ctx app.Context) {
		show()
		p.keepThumb(ctx)
	})
}

// command runs do, which calls into the session, in ctx.Async; a problem
// becomes the notice, success shows ok if it is not empty.
func (p *Play) command(ctx app.Context, ok string, do func() error) {
	if p.sess == nil {
		return
	}
	ctx.Async(func() {
		err := do()
		ctx.Dispatch(func(app.Context) {
			switch {
			case err != nil:
				p.fail(err)
			case ok != "":
				p.notice = notice{ok, "ok"}
			}
		})
		p.refresh(ctx)
	})
}

func (p *Play) fail(err error) {
	msg := err.Error()
	var inv *sim.InvalidError
	if errors.As(err, &inv) && len(inv.Problems) > 1 {
		msg = strings.Join(inv.Problems, " · ")
	}
	// Errors are written lower-case; a notice is a sentence. A first word
	// that names something (a file, a task) stays as it is.
	if first, _, _ := strings.Cut(msg, " "); msg != "" && msg[0] >= 'a' && msg[0] <= 'z' && !strings.ContainsAny(first, ".0123456789") {
		msg = strings.ToUpper(msg[:1]) + msg[1:]
	}
	p.notice = notice{msg, "error"}
}

// load replaces the scenario and starts it playing from 0.
func (p *Play) load(ctx app.Context, sc sim.Scenario, preset, ok string) {
	p.closeCompare(ctx)
	if p.drv != nil {
		p.drv.push(input{Kind: inputReset}) // task IDs start again
	}
	p.command(ctx, ok, func() error {
		if err := p.sess.Load(sc, preset); err != nil {
			return err
		}
		return p.sess.SetPlaying(true)
	})
}

// editSetup changes the scenario's setup with change and restarts the
// run, or with forB changes the draft of a comparison's run B (SetupPanel's
// way back to the page). It reports whether the change was refused, with
// the reason in the notice: the run goes on with what is in effect.
func (p *Play) editSetup(ctx app.Context, forB bool, change func(*sim.Scenario)) (refused bool) {
	if forB {
		p.setDraft(change)
		return false
	}
	ctx = pageContext{ctx, p}
	sc := cloneScenario(p.sc)
	change(&sc)
	fitScenario(&sc)
	if err := sc.Validate(); err != nil {
		p.fail(err)
		return true
	}
	if p.runB() != nil {
		p.editCompare(ctx, sc)
		return false
	}
	p.load(ctx, sc, presetFor(sc), "")
	return false
}

// setColorBy colours the timeline's bars by "priority" or "key".
func (p *Play) setColorBy(ctx app.Context, by string) {
	p.sc.ColorBy = by
	p.command(pageContext{ctx, p}, "", func() error { p.sess.SetColorBy(by); return nil })
}

// setComposer keeps the composer the page shows as it mounts, and forgets
// it as it dismounts, so that choosing a preset can reset it.
func (p *Play) setComposer(c *Composer, mounted bool) {
	switch {
	case mounted:
		p.composer = c
	case p.composer == c:
		p.composer = nil
	}
}

// fitScenario adjusts the work of a scenario whose setup changed so that
// it still runs: a keyed burst needs keys, consumers need a consumer, a
// semaphore task cannot weigh more than the limit.
func fitScenario(sc *sim.Scenario) {
	if k := sim.KindOf(sc.Primitive); k != nil {
		k.Fit(sc)
	}
}

// hostCommand runs a command of the page that frames the embed, and
// answers it. It runs in ctx.Async.
func (p *Play) hostCommand(ctx app.Context, m hostMessage) {
	if p.sess == nil {
		return
	}
	var err error
	switch m.Kind {
	case "ping":
		postToParent(map[string]any{"sluice": "pong", "version": sim.Version, "phase": p.sess.Phase()})
		return
	case "play":
		b := p.drv.b.Load()
		if m.Speed != 0 {
			eachRun(p.sess, b, func(s *Session) error { s.SetSpeed(m.Speed); return nil })
		}
		err = setPlayingBoth(p.sess, b, true)
	case "pause":
		err = setPlayingBoth(p.sess, p.drv.b.Load(), false)
	case "load":
		err = p.hostLoad(m)
	default:
		err = fmt.Errorf("unknown command %q: send ping, play, pause or load", truncate(m.Kind, 40))
	}
	if err != nil {
		// The host page's mistake: it hears of it; the reader does not.
		postToParent(map[string]any{"sluice": "error", "message": err.Error()})
	} else {
		sc, preset := p.sess.Scenario()
		postToParent(map[string]any{"sluice": "state", "phase": p.sess.Phase(), "primitive": sc.Primitive, "preset": preset})
	}
	p.refresh(ctx)
}

func (p *Play) hostLoad(m hostMessage) error {
	var sc sim.Scenario
	preset := m.Preset
	switch {
	case m.Preset != "":
		ps, ok := sim.PresetByID(m.Preset)
		if !ok {
			return fmt.Errorf("there is no preset %q", truncate(m.Preset, 40))
		}
		sc = ps.Scenario
	case m.Scenario != "":
		var err error
		if sc, err = sim.Decode(m.Scenario); err != nil {
			return err
		}
		preset = presetFor(sc)
	default:
		return errors.New("load needs a preset or a scenario")
	}
	if err := p.sess.Load(sc, preset); err != nil {
		return err
	}
	return p.sess.SetPlaying(true)
}

// Event handlers. Each runs on the UI goroutine and never blocks.

func (p *Play) onPreset(id string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		ps, ok := sim.PresetByID(id)
		if !ok {
			return
		}
		if ps.Compare != nil {
			p.onComparePreset(ctx, ps)
			return
		}
		p.preset = id
		p.notice = notice{}
		p.composer.reset()
		p.limitNow = max(ps.Scenario.Limit, 1)
		p.load(ctx, ps.Scenario, id, "")
	}
}

func (p *Play) onPresetSelect(ctx app.Context, e app.Event) {
	p.onPreset(ctx.JSSrc().Get("value").String())(ctx, e)
}

func (p *Play) onPlay(ctx app.Context, e app.Event) {
	on := p.panel.Phase != "playing"
	b := p.runB()
	p.command(ctx, "", func() error {
		p.drv.hold.Store(true) // both runs start and stop together
		defer p.drv.hold.Store(false)
		return setPlayingBoth(p.sess, b, on)
	})
}

func (p *Play) onStep(ctx app.Context, e app.Event) {
	b := p.runB()
	p.command(ctx, "", func() error {
		if !stepBoth(p.sess, b) {
			return errors.New("nothing is left to happen: add work to run more")
		}
		return nil
	})
}

// The speed slider is logarithmic: 0 is 0.1×, 50 is 1×, 100 is 10×.
func speedFromSlider(v float64) float64 {
	s := clampSpeed(sliderPow(v))
	// Two significant digits read well.
	digits := 1
	if s < 1 {
		digits = 2
	}
	f, _ := strconv.ParseFloat(strconv.FormatFloat(s, 'f', digits, 64), 64)
	return clampSpeed(f)
}

func sliderFromSpeed(s float64) int {
	if s == 0 {
		s = 1
	}
	return int(sliderLog(clampSpeed(s)) + 0.5)
}

func (p *Play) onSpeed(ctx app.Context, e app.Event) {
	v, err := strconv.ParseFloat(ctx.JSSrc().Get("value").String(), 64)
	if err != nil {
		return
	}
	speed := speedFromSlider(v)
	p.sc.Speed = speed
	b := p.runB()
	p.command(ctx, "", func() error {
		return eachRun(p.sess, b, func(s *Session) error { s.SetSpeed(speed); return nil })
	})
}

// spans are the timeline windows the person can choose.
var spans = []time.Duration{2 * time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second, time.Minute, 5 * time.Minute}

func (p *Play) onSpan(ctx app.Context, e app.Event) {
	d, err := time.ParseDuration(ctx.JSSrc().Get("value").String())
	if err != nil || d <= 0 {
		return
	}
	p.span = d
	p.drv.span.Store(int64(d))
	p.drv.push(input{Kind: inputFit}) // the chosen window, following the run
}

// control runs one of the run's controls under the timeline (Composer's
// row): "cancel-all", "drain", "close" or "reset".
func (p *Play) control(ctx app.Context, id string) {
	ctx = pageContext{ctx, p}
	b := p.runB()
	switch id {
	case "cancel-all":
		p.command(ctx, "Every waiting and running task was canceled.", func() error { return eachRun(p.sess, b, (*Session).CancelAll) })
	case "drain":
		p.command(ctx, "Draining: no new work is taken; the accepted work finishes.", func() error { return eachRun(p.sess, b, (*Session).Drain) })
	case "close":
		p.command(ctx, "Closed: waiting work was canceled without running, running work had its context canceled.", func() error { return eachRun(p.sess, b, (*Session).CloseRun) })
	case "reset":
		p.notice = notice{}
		if b != nil {
			p.resetCompare(ctx)
			return
		}
		if p.drv != nil {
			p.drv.push(input{Kind: inputReset})
		}
		p.command(ctx, "", func() error {
			if err := p.sess.Reset(); err != nil {
				return err
			}
			return p.sess.SetPlaying(true)
		})
	}
}

func (p *Play) onSetLimit(ctx app.Context, e app.Event) {
	n := p.limitNow
	b := p.runB()
	p.command(ctx, fmt.Sprintf("The limit is now %d.", n), func() error {
		return eachRun(p.sess, b, func(s *Session) error { return s.SetLimit(n) })
	})
}

func (p *Play) onCancelTask(ctx app.Context, e app.Event) {
	name := strings.TrimSpace(p.cancel)
	if name == "" {
		p.fail(errors.New("type a task's name, such as t7, or click its bar on the timeline"))
		return
	}
	b := p.runB()
	p.command(ctx, name+" was canceled.", func() error { return eachRun(p.sess, b, func(s *Session) error { return s.Cancel(name) }) })
}

// addWork adds burst b, which the composer checked, to the run and to a
// comparison's run B.
func (p *Play) addWork(ctx app.Context, b sim.Burst) {
	ok := fmt.Sprintf("Added %s %s.", formatCount(b.Count), plural(b.Count, "task", "tasks"))
	runB := p.runB()
	p.command(pageContext{ctx, p}, ok, func() error { return eachRun(p.sess, runB, func(s *Session) error { return s.Submit(b) }) })
}

func (p *Play) onDismiss(ctx app.Context, e app.Event) { p.notice = notice{} }

// embedSnippet is the HTML that embeds the playground at src in a page:
// an iframe, and a script that fits its height to what the embed reports.
func embedSnippet(src string) string {
	return `<iframe class="sluice-embed" src="` + htmlAttr(src) + `" width="100%" height="420" loading="lazy" title="Sluice playground"></iframe>
<script>
  addEventListener("message", (e) => {
    if (!e.data || e.data.sluice !== "height") return;
    for (const f of document.querySelectorAll("iframe.sluice-embed"))
      if (f.contentWindow === e.source) f.height = e.data.height;
  });
</script>`
}

func htmlAttr(s string) string {
	r := strings.NewReplacer(`&`, "&amp;", `"`, "&quot;", `<`, "&lt;", `>`, "&gt;")
	return r.Replace(s)
}

// copy puts text on the clipboard and says ok; the text also shows in
// the page, so that it can be copied by hand when the browser refuses.
func (p *Play) copy(ctx app.Context, text, ok string) {
	ctx = pageContext{ctx, p} // a child's handler (CodeCard, SharePanel)
	copyText(text, func(err error) {
		// A promise callback: hand the outcome over and return.
		ctx.Async(func() {
			ctx.Dispatch(func(app.Context) {
				if err != nil {
					p.notice = notice{"The browser did not let the page copy: select the text below and copy it.", "info"}
				} else {
					p.notice = notice{ok, "ok"}
				}
			})
		})
	})
}

func (p *Play) onBackToLive(ctx app.Context, e app.Event) {
	p.notice = notice{}
	p.command(ctx, "", func() error { p.sess.BackToLive(); return nil })
}

// traceBytes writes the session's trace. It runs in ctx.Async.
func (p *Play) traceBytes() ([]byte, string, error) {
	var buf bytes.Buffer
	if err := p.sess.WriteTrace(&buf); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), p.sess.TraceName(), nil
}
