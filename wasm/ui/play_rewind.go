package ui

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/wasm/sim"
)

// playRewind is what the page keeps of rewinding: the seek in flight and
// the one asked for since, the moment the address bar carries, and the
// forks already told. UI goroutine only.
type playRewind struct {
	seeking bool          // a seek runs in ctx.Async
	seekTo  time.Duration // the moment last asked for: the scrubber shows it while seeking
	moment  string        // the address bar's "&t=…", or ""
	forks   int           // Panel.Rewind.Forks last told
	took    time.Duration // the real time the last Session.Seek took
	thumbMS int           // the scrubber's value as last rendered, in ms
}

// seek shows the run at virtual time at: the scrubber, a drag of the
// now-line and a link's t= call it. Only one seek runs at a time; the
// moments asked for meanwhile (a drag asks for many) come down to the
// latest, which runs next. UI goroutine only.
func (p *Play) seek(ctx app.Context, at time.Duration) {
	if p.sess == nil {
		return
	}
	p.rw.seekTo = at
	if p.rw.seeking {
		return
	}
	p.rw.seeking = true
	p.runSeek(ctx, at)
}

func (p *Play) runSeek(ctx app.Context, at time.Duration) {
	b := p.runB() // a comparison's run B moves with run A (compare.go)
	ctx.Async(func() {
		start := time.Now()
		err := eachRun(p.sess, b, func(s *Session) error { return s.Seek(at) })
		took := time.Since(start)
		show := p.takePanels()
		ctx.Dispatch(func(ctx app.Context) {
			show()
			p.keepThumb(ctx)
			p.rw.took = took
			if err != nil {
				p.fail(err)
			}
			if p.rw.seekTo != at && err == nil {
				p.runSeek(ctx, p.rw.seekTo)
				return
			}
			p.rw.seeking = false
		})
	})
}

// loadAt replaces the scenario and shows it paused at moment at, as a
// link with t= opens.
func (p *Play) loadAt(ctx app.Context, sc sim.Scenario, preset string, at time.Duration) {
	p.closeCompare(ctx) // a scenario's link: one run
	if p.drv != nil {
		p.drv.push(input{Kind: inputReset}) // task IDs start again
	}
	p.command(ctx, "", func() error {
		if err := p.sess.Load(sc, preset); err != nil {
			return err
		}
		return p.sess.Seek(at)
	})
}

// onScrub follows the scrubber: a drag, a tap or a key moves the run to
// the moment it shows, in milliseconds. Until the seek lands, and the
// page is rendered with the run at that moment, only the scrubber's words
// change: a render of the whole page now would hold the seek back by as
// long as it takes (a tenth of a landing).
func (p *Play) onScrub(ctx app.Context, e app.Event) {
	v, err := strconv.ParseFloat(ctx.JSSrc().Get("value").String(), 64)
	if err != nil || v < 0 {
		return
	}
	at := time.Duration(v) * time.Millisecond
	p.seek(ctx, at)
	sayMoment(scrubText(at, max(p.panel.Rewind.Horizon, p.panel.Now, at)))
	ctx.PreventUpdate()
}

// scrubText is what the scrubber says at moment now of a run that has
// reached end.
func scrubText(now, end time.Duration) string {
	return formatClock(now.Round(10*time.Millisecond)) + " of " + formatClock(end.Round(10*time.Millisecond))
}

// sayMoment puts text in the scrubber's words, for the eye (its output)
// and for assistive technology (its aria-valuetext), in the elements
// go-app made: the output's own text node, so that go-app's next render
// of it still reaches the page. That render says the same: the moment
// the scrubber was last set to, which the page lands on.
func sayMoment(text string) {
	if out := app.Window().GetElementByID("scrubber-value").Get("firstChild"); out.Truthy() && out.Get("nodeValue").String() != text {
		out.Set("nodeValue", text)
	}
	if in := app.Window().GetElementByID("scrubber"); in.Truthy() && in.Call("getAttribute", "aria-valuetext").String() != text {
		in.Call("setAttribute", "aria-valuetext", text)
	}
}

func (p *Play) onStepBack(ctx app.Context, e app.Event) {
	b := p.runB()
	p.command(ctx, "", func() error {
		if !stepBackBoth(p.sess, b) {
			return errors.New("nothing earlier to step back to: this is the run's first moment")
		}
		return nil
	})
}

// tellFork shows a fork's note once, before the notice of the action that
// forked the run. It is called with each panel.
func (p *Play) tellFork(rw Rewind) {
	if rw.Forks == p.rw.forks {
		return
	}
	p.rw.forks = rw.Forks
	if rw.Fork == "" {
		return
	}
	text := rw.Fork + "."
	if p.notice.Kind == "ok" && p.notice.Text != "" {
		text += " " + p.notice.Text
	}
	p.notice = notice{text, "info"}
}

// momentParam is the address bar's "&t=…" for the panel shown: the
// moment of a paused run, which a link then opens at, or "" while the run
// plays, has finished, or a trace is shown.
func (p *Play) momentParam() string {
	if !p.mounted || p.panel.Phase != "paused" {
		return ""
	}
	return "&t=" + formatMoment(p.panel.Now)
}

// linkMoment returns the moment a link's t= asks to open at, whether it
// has one, and a problem a person can read when its t= is not a time.
func linkMoment() (time.Duration, bool, string) {
	_, query, _ := location()
	q, err := url.ParseQuery(strings.TrimPrefix(query, "?"))
	if err != nil || !q.Has("t") {
		return 0, false, ""
	}
	at, err := parseMoment(q.Get("t"))
	if err != nil {
		msg := err.Error()
		return 0, false, strings.ToUpper(msg[:1]) + msg[1:] + ": the run plays from the start."
	}
	return at, true, ""
}

// renderScrubber draws the scrubber under the timeline: a slider over
// the moments the run has reached (0 to its horizon), which shows the
// run at the moment it is set to, from a pointer, a finger or the
// keyboard. A loaded trace has none: an empty placeholder keeps its
// place, so that what follows it in the timeline's section keeps its
// own (go-app matches children by position, and would mount the
// composer anew, losing the burst being composed). For tests, #rewind carries
// data-seeking (a seek is in flight, as of the last render), data-horizon-ms,
// data-checkpoints, data-building (checkpoints are being built) and
// data-seek-ms (the real time the last Session.Seek took).
func (p *Play) renderScrubber(phase string) app.UI {
	if phase == "replay" {
		return app.Div().Class("scrubber-none")
	}
	now := p.panel.Now
	if p.rw.seeking {
		now = p.rw.seekTo
	}
	end := max(p.panel.Rewind.Horizon, p.panel.Now, now)
	// An arrow key moves by a step, Page Up and Down by a tenth. The end
	// is rounded up to a step, so that a drag to it moves forward to the
	// run's latest moment, never back by a part of a step (a replay).
	step := 10
	if end > 30*time.Second {
		step = 100
	}
	nowMS, endMS := int(now/time.Millisecond), max((int(end/time.Millisecond)+step-1)/step*step, step)
	p.rw.thumbMS = min(nowMS, endMS)
	text := scrubText(now, end)
	return app.Div().ID("rewind").Class("scrubber").
		DataSet("seeking", strconv.FormatBool(p.rw.seeking)).
		DataSet("horizon-ms", end.Milliseconds()).
		DataSet("checkpoints", p.panel.Rewind.Checkpoints).
		DataSet("building", strconv.FormatBool(p.panel.Rewind.Building)).
		DataSet("seek-ms", strconv.FormatFloat(float64(p.rw.took)/float64(time.Millisecond), 'f', 1, 64)).Body(
		app.Label().For("scrubber").Class("control-label").Text("Moment"),
		app.Input().Type("range").ID("scrubber").Min(0).Max(endMS).Step(float64(step)).Value(nowMS).
			Disabled(!p.mounted).
			Aria("label", "Moment of the run shown: drag back to rewind").
			Aria("valuetext", text).
			OnInput(p.onScrub),
		app.Output().ID("scrubber-value").For("scrubber").Class("scrubber-value").Text(text),
	)
}

// keepThumb puts the scrubber's thumb where the render after a panel
// update says, once that render is done: go-app sets an input's
// attributes in no set order, and a value set before a larger max is
// clamped to the max before it (the thumb then stops short of the end of
// a run that grew), which go-app, comparing with what it set, does not
// set again. UI goroutine only.
func (p *Play) keepThumb(ctx app.Context) {
	ctx.Defer(func(app.Context) {
		el := app.Window().GetElementByID("scrubber")
		if !el.Truthy() {
			return
		}
		if want := strconv.Itoa(p.rw.thumbMS); el.Get("value").String() != want {
			el.Set("value", want)
		}
	})
}

// stepBackButton is the transport's "Step back", Step's twin.
func (p *Play) stepBackButton(live bool) app.UI {
	return app.Button().ID("step-back").Class("btn").Disabled(!live).
		Title("%s", "Pause and undo the latest event: the run is shown at the event before it (,)").
		Text("Step back").OnClick(p.onStepBack)
}
