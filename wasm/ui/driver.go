package ui

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"sluice/core/trace"
)

// driver is what the animation frame loop runs: each frame it moves the
// session along, takes one snapshot, draws it on the timeline, and now and
// then hands a fresh Panel to the component. It is platform-neutral: the
// browser's loop (loop_js.go) gives it a canvas painter, tests give it a
// recorder.
//
// Only the frame goroutine calls tick and apply; span is set from
// elsewhere through an atomic, and what the person does on the timeline
// (taps, drags, the wheel, keys) arrives through push, a short mutex.
// The driver keeps the window the person zoomed or panned to, the task
// selected, and the task whose details sheet is open.
type driver struct {
	sess *Session
	tl   *timeline
	span atomic.Int64 // the window's width, a time.Duration

	// Frame goroutine only.
	frame     Frame
	stats     frameStats
	lastPanel float64 // in ms, on the frame clock
	drawn     bool
	republish bool // the panels are due again after the frame is drawn: a loaded trace's were shown before it was
	lastMouse Point
	lastW     float64
	lastSnap  *trace.Snapshot // a replay is drawn again only when it changes
	view      view
	viewed    view   // the view last drawn
	wasReplay bool   // the last frame was a replay: a change resets the view
	details   uint64 // the task whose details sheet is open, or 0
	lastSel   uint64
	scrubbing bool // the now-line is being dragged (scrub.go)

	nowX atomic.Uint64 // where the last frame drew the now-line, float64 bits of CSS pixels; NaN if not drawn

	inMu   sync.Mutex
	inputs []input // what the person did since the last frame

	// A comparison's run B, drawn under run A on the same window (see
	// compare_driver.go); nil when none is open. hold keeps both runs'
	// time still while the page starts or stops them together.
	b    atomic.Pointer[Session]
	hold atomic.Bool
	cmp  compareDriver // frame goroutine only
}

// maxInputs bounds the inputs kept between two frames; more are dropped.
const maxInputs = 64

// push records an input for the next frame. It never blocks for long: it
// may be called from a JS callback.
func (d *driver) push(in input) {
	d.inMu.Lock()
	defer d.inMu.Unlock()
	if len(d.inputs) < maxInputs {
		d.inputs = append(d.inputs, in)
	}
}

// take returns the inputs recorded since the last call.
func (d *driver) take() []input {
	d.inMu.Lock()
	defer d.inMu.Unlock()
	in := d.inputs
	d.inputs = nil
	return in
}

// panelEvery is how often, in real milliseconds, the counters in the DOM
// are refreshed: a few times a second, not every frame.
const panelEvery = 250

// defaultSpan is the width of the timeline's window of virtual time.
const defaultSpan = 10 * time.Second

func newDriver(sess *Session, compact bool) *driver {
	d := &driver{sess: sess, tl: newTimeline(compact)}
	d.span.Store(int64(defaultSpan))
	return d
}

// tick runs one frame that took real time, at nowMS on the frame clock:
// it moves the session, snapshots and draws on p, w CSS pixels wide and
// h high. It returns the height the timeline needs (the caller resizes the
// canvas and may draw again), and whether the panel is due. In replay,
// which does not move, it draws only when the size or the pointer
// changed.
func (d *driver) tick(p painter, real time.Duration, nowMS, w, h float64, mouse Point, force bool) (need float64, drew, panelDue bool) {
	if b := d.b.Load(); b != nil || d.cmp.sess != nil {
		return d.tickBoth(b, p, real, nowMS, w, h, mouse, force)
	}
	if d.view.fixed && d.view.follow && !d.frame.Replay {
		// Zoomed on a live run with now in sight: the window moves with
		// now (as of the last frame).
		span := d.view.to - d.view.from
		d.view.to = d.frame.Now + d.view.lead
		d.view.from = d.view.to - span
		d.viewed = d.view
	}
	if d.view.fixed {
		d.frame = d.sess.FrameAt(real, d.view.from, d.view.to)
	} else {
		d.frame = d.sess.Frame(real, time.Duration(d.span.Load()))
	}
	if d.frame.Replay != d.wasReplay {
		// A trace was loaded, or the run came back: show it whole. This
		// frame the page's panels change for it, and the next draws it:
		// a large trace's first drawing and the panels' new elements each
		// take a task of the page's thread, not one long one together.
		d.wasReplay, d.view = d.frame.Replay, view{}
		d.tl.Selected, d.details = 0, 0
		d.frame = d.sess.Frame(real, time.Duration(d.span.Load()))
		d.drawn, d.republish = false, true
		d.lastPanel = max(nowMS, 1)
		return h, false, true
	}
	f := d.frame
	need = h
	// A replay's snapshot, and a live one that stood still (Same), are
	// drawn again only when something else changed.
	still := f.Replay && f.Snap == d.lastSnap || !f.Replay && f.Same
	same := still && !force && d.drawn && mouse == d.lastMouse && w == d.lastW && d.view == d.viewed && d.tl.Selected == d.lastSel
	switch {
	case same && d.tl.Partial && f.Replay && !mouse.In:
		// The rest of a large trace's first window, over what the
		// canvas shows.
		d.tl.DrawMore(p, f)
		drew = true
	case !same || d.tl.Partial:
		need = d.tl.Draw(p, f, w, h, mouse)
		drew = true
		d.drawn = true
	}
	d.lastMouse, d.lastW, d.lastSnap, d.viewed, d.lastSel = mouse, w, f.Snap, d.view, d.tl.Selected
	d.noteNow()
	// Panels shown before the frame was drawn are due again at the next
	// frame that draws nothing: the drawing and the panels' update each
	// take a task of their own.
	panelDue = f.Changed && nowMS-d.lastPanel >= 50 || nowMS-d.lastPanel >= panelEvery || d.lastPanel == 0 || d.republish && d.drawn && !drew
	// Nor do the panels tell of a drawing with rows still to come.
	panelDue = panelDue && !d.tl.Partial
	if panelDue {
		d.lastPanel = max(nowMS, 1)
		d.republish = false
	}
	return need, drew, panelDue
}

// taskAt returns the name of the task drawn at x, y in the last frame.
func (d *driver) taskAt(x, y float64) (string, bool) {
	if d.frame.Snap == nil || d.frame.Replay {
		return "", false
	}
	return d.tl.TaskAt(d.frame, x, y)
}

// frameStats keeps the time frames took to update the model and draw it,
// in milliseconds, for the perf probe: totals, and the last frames for
// percentiles.
type frameStats struct {
	count  int
	sum    float64
	max    float64
	recent [120]float64
	next   int
}

func (s *frameStats) add(ms float64) {
	s.count++
	s.sum += ms
	s.max = max(s.max, ms)
	s.recent[s.next] = ms
	s.next = (s.next + 1) % len(s.recent)
}

// p95 returns the 95th percentile of the recent frames.
func (s *frameStats) p95() float64 {
	n := min(s.count, len(s.recent))
	if n == 0 {
		return 0
	}
	xs := slices.Clone(s.recent[:n])
	slices.Sort(xs)
	return xs[(n*95-1)/100]
}

// inputKind is what a person did on the timeline.
type inputKind uint8

const (
	inputTap   inputKind = iota // a click or a tap at X, Y
	inputZoom                   // zoom by V (below 1: in) around X
	inputPan                    // pan by V pixels (positive: later)
	inputKey                    // a key, Key, with Shift
	inputFit                    // back to the whole run or trace
	inputClose                  // the details sheet was closed
	inputReset                  // a new run: no selection, the default window

	inputScrub    // the now-line dragged to X (scrub.go)
	inputScrubEnd // the now-line let go at X
)

// input is one thing a person did on the timeline, recorded by the
// browser's listeners and applied by the frame goroutine.
type input struct {
	Kind  inputKind
	X, Y  float64
	V     float64
	Key   string
	Shift bool
	B     bool // on run B's timeline (a comparison's)
}

// effectKind is what an input asks of the page besides the timeline.
type effectKind uint8

const (
	effectNone    effectKind = iota
	effectDetails            // open (or refresh) the details sheet with Details
	effectClose              // close the details sheet
	effectPlay               // play or pause
	effectStep               // step one event

	effectStepBack // step back one event
	effectSeek     // show the run at At
)

type effect struct {
	Kind    effectKind
	Details TaskDetails
	At      time.Duration // effectSeek
}

// window returns the window the last frame drew.
func (d *driver) window() (from, to time.Duration) {
	return d.frame.From, d.frame.To
}

// apply applies an input on the frame goroutine, against the last frame
// drawn, and returns what the page should do besides.
func (d *driver) apply(in input) effect {
	f := d.frame
	if f.Snap == nil {
		return effect{}
	}
	from, to := d.window()
	plotW := max(d.tl.plotR-d.tl.plotL, 1)
	switch in.Kind {
	case inputTap:
		if in.B {
			return d.tapB(in)
		}
		i, ok := d.tl.hitTask(f, in.X, in.Y)
		if !ok {
			d.tl.Selected, d.details = 0, 0
			return effect{Kind: effectClose}
		}
		return d.open(i)
	case inputZoom:
		d.view.zoom(from, to, in.V, (in.X-d.tl.plotL)/plotW)
		d.follow()
	case inputPan:
		d.view.pan(from, to, in.V/plotW)
	case inputFit:
		d.view = fitView(d.fitFrame())
	case inputClose:
		d.details = 0
	case inputReset:
		d.view, d.tl.Selected, d.details = view{}, 0, 0
		return effect{Kind: effectClose}
	case inputKey:
		if in.B {
			in.Shift = true // on run B's timeline, arrows pan both: the selection is run A's
		}
		return d.key(in, from, to)
	case inputScrub, inputScrubEnd:
		return d.scrub(in.X, in.Kind == inputScrubEnd)
	}
	return effect{}
}

// follow makes a zoomed window of a live run move with now, when now is
// in it; a pan or a move of the selection stops that.
func (d *driver) follow() {
	now := max(d.frame.Now, d.cmp.frame.Now) // a comparison's: the later run's
	d.view.follow = !d.frame.Replay && d.view.from <= now && now <= d.view.to
	d.view.lead = d.view.to - now
}

// open selects task i of the last frame and opens its details.
func (d *driver) open(i int) effect {
	x := &d.frame.Snap.Tasks[i]
	d.tl.Selected, d.details = x.ID, x.ID
	return effect{Kind: effectDetails, Details: taskDetails(x, d.frame)}
}

// key applies a key pressed on the focused timeline.
func (d *driver) key(in input, from, to time.Duration) effect {
	f := d.frame
	move := func(dx, dy int) {
		i, ok := d.tl.move(f, d.tl.Selected, dx, dy)
		if !ok {
			return
		}
		x := &f.Snap.Tasks[i]
		d.tl.Selected = x.ID
		a := taskTime(x).Time().Sub(f.Origin)
		b := a
		if !x.Ended.IsZero() {
			b = x.Ended.Time().Sub(f.Origin)
		}
		v := d.view
		v.show(from, to, a, b)
		if v != d.view {
			d.view = v
		}
	}
	switch in.Key {
	case "ArrowLeft", "ArrowRight":
		dir := 1
		if in.Key == "ArrowLeft" {
			dir = -1
		}
		if in.Shift {
			d.view.pan(from, to, float64(dir)/5)
			return effect{}
		}
		move(dir, 0)
	case "ArrowUp":
		move(0, -1)
	case "ArrowDown":
		move(0, 1)
	case "+", "=":
		d.view.zoom(from, to, 1/1.5, d.anchor(from, to))
		d.follow()
	case "-", "_":
		d.view.zoom(from, to, 1.5, d.anchor(from, to))
		d.follow()
	case "0", "f", "F":
		d.view = view{}
	case "Enter":
		if i, ok := findTask(f, d.tl.Selected); ok {
			return d.open(i)
		}
		if i, ok := d.tl.move(f, 0, 0, 0); ok {
			return d.open(i)
		}
	case "Escape":
		d.tl.Selected, d.details = 0, 0
		return effect{Kind: effectClose}
	case " ":
		return effect{Kind: effectPlay}
	case ".":
		return effect{Kind: effectStep}
	case ",":
		return effect{Kind: effectStepBack}
	}
	return effect{}
}

// anchor is where the keyboard zooms: around the selected task if it is
// in the window, else around now in a live run, else around the middle.
func (d *driver) anchor(from, to time.Duration) float64 {
	if i, ok := findTask(d.frame, d.tl.Selected); ok {
		at := taskTime(&d.frame.Snap.Tasks[i]).Time().Sub(d.frame.Origin)
		if at >= from && at <= to {
			return float64(at-from) / float64(max(to-from, 1))
		}
	}
	if now := d.frame.Now; !d.frame.Replay && now >= from && now <= to {
		return float64(now-from) / float64(max(to-from, 1)) // a live run: around now
	}
	return 0.5
}

// refreshDetails returns the details of the task whose sheet is open, from
// the last frame, and false if none is open or it is not in the frame.
func (d *driver) refreshDetails() (TaskDetails, bool) {
	i, ok := findTask(d.frame, d.details)
	if !ok {
		return TaskDetails{}, false
	}
	return taskDetails(&d.frame.Snap.Tasks[i], d.frame), true
}

// fitView is the window Fit (and the key 0) shows: a live run that has
// finished its work whole, from 0 to its end and a twentieth more, however
// short it was; otherwise the default window, which follows now or shows
// a loaded trace whole.
func fitView(f Frame) view {
	if f.Finished && !f.Replay && f.Now > 0 {
		return view{fixed: true, from: 0, to: f.Now + max(f.Now/20, time.Millisecond)}
	}
	return view{}
}
