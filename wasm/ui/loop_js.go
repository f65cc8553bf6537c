//go:build js && wasm

package ui

import (
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall/js"
	"time"

	"github.com/hack-pad/safejs"
	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/core/trace"
)

// jsLoop is the browser's frame loop: a requestAnimationFrame callback
// that hands each frame to a goroutine (ctx.Async) and returns at once,
// and the pointer, wheel and key listeners on the canvas, which only
// record what they saw (driver.push); the frame goroutine applies it. At
// most one frame goroutine runs at a time; a frame that comes while one
// runs is skipped.
type jsLoop struct {
	drv    *driver
	paint  *canvasPainter
	canvas safejs.Value
	funcs  []safejs.Func
	remove []func()

	busy    atomic.Bool
	stopped atomic.Bool
	rafID   atomic.Int64  // the animation frame requested last
	mouseX  atomic.Uint64 // float64 bits, CSS pixels
	mouseY  atomic.Uint64
	mouseIn atomic.Bool

	// Pointers down on the canvas, for taps, drags and pinches; JS
	// callbacks only (they run one at a time).
	pointers map[float64]Point
	downAt   Point   // where the first pointer went down
	moved    bool    // the pointers moved: no tap
	pinch    float64 // the distance between two pointers, last seen
	grab     bool    // the first pointer went down on the now-line: a drag moves the clock (scrub.go)

	// The animation frame callback only.
	clampAt float64 // when markClamped ran last, ms
	handled int     // animation frames handled, drawn or not

	// Run B's canvas while a comparison is open, with its own listeners
	// (compare_loop_js.go); isB on that one, whose inputs say so.
	b          atomic.Pointer[jsLoop]
	isB        bool
	publishedB float64 // the frame goroutine's: when run B's canvas data was last set

	// A large render of the page's (a trace's panels, or the run's when
	// it comes back after one) is due: no animation frame is requested
	// until it is done (hold, release), and the first after it draws
	// nothing (afterHold). go-app renders on a timer of its own, and an
	// animation frame's callback runs every goroutine that is ready, so
	// a render due then would run in the frame's task, with the drawing
	// and the browser's layout of what the render changed: one task of
	// 50-80 ms on a small machine. Held, the render takes a task of its
	// own, the browser's layout of it the next frame's, and the drawing
	// the one after.
	held      atomic.Bool
	afterHold atomic.Bool
	raf       safejs.Func

	// Frame goroutine only.
	lastTS    float64
	first     bool
	hovering  bool
	onNow     bool // the mouse is on the now-line, which a drag moves
	dataEvery float64
}

// startLoop starts the frame loop on the component's canvas and returns
// the function that stops it. It returns nil if there is no canvas.
func startLoop(ctx app.Context, p *Play) func() {
	root := safejs.Safe(app.JSValue(ctx.JSSrc()))
	canvas, err := root.Call("querySelector", "canvas.timeline")
	if err != nil || canvas.IsNull() || canvas.IsUndefined() {
		app.Logf("sluice: no timeline canvas: %v", err)
		return nil
	}
	paint, err := newCanvasPainter(canvas)
	if err != nil {
		app.Logf("sluice: no 2D context: %v", err)
		return nil
	}
	l := &jsLoop{drv: p.drv, paint: paint, canvas: canvas, first: true, pointers: make(map[float64]Point)}
	p.drv.tl.Slowly = true    // a large trace's first window over several frames
	p.drv.tl.SizeFirst = true // a frame that changes the canvas's height draws once
	l.listenPointers()
	l.listenNav(p.Embed)

	raf, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		if l.stopped.Load() || l.held.Load() {
			return nil
		}
		ts := 0.0
		if len(args) > 0 {
			ts, _ = args[0].Float()
		}
		l.request()
		if ts-l.clampAt >= clampEvery || ts < l.clampAt {
			l.clampAt = ts
			markClamped(root)
		}
		if l.busy.CompareAndSwap(false, true) {
			ctx.Async(func() {
				defer l.busy.Store(false)
				l.frame(ctx, p, ts)
			})
		}
		return nil
	})
	if err != nil {
		l.stop()
		return nil
	}
	l.raf = raf
	l.funcs = append(l.funcs, raf)
	l.request()
	p.frames = l
	return l.stop
}

// hold stops the animation frames until release: the one requested is
// canceled and none is requested until then. Call it before the render
// is dispatched, and dispatch the render from a task that is not an
// animation frame's (frame, which runs in one, dispatches after
// yieldToBrowser); release it from the render's Defer: go-app runs a
// component's deferred functions after its render, and a component that
// is no longer mounted has stopped the loop.
func (l *jsLoop) hold() {
	if l.held.Swap(true) {
		return
	}
	safejs.Global().Call("cancelAnimationFrame", l.rafID.Load())
}

// release ends a hold: it requests the next animation frame, which
// draws nothing (the browser lays out the render in its task).
func (l *jsLoop) release() {
	if !l.held.Swap(false) || l.stopped.Load() {
		return
	}
	l.afterHold.Store(true)
	l.request()
}

// listenNav turns the wheel (zoom, pan) and keys on the canvas into the
// driver's inputs. In the embed, the wheel alone scrolls the page.
func (l *jsLoop) listenNav(embed bool) {
	l.listenOpts("wheel", map[string]any{"passive": false}, func(e safejs.Value) {
		if ctrl, _ := e.Get("ctrlKey"); embed && !truthy(ctrl) {
			// In a documentation page the wheel scrolls the page; a
			// pinch (which browsers report with ctrlKey) or Ctrl+wheel
			// zooms the embed.
			return
		}
		dx, dy := num(e, "deltaX"), num(e, "deltaY")
		if mode := num(e, "deltaMode"); mode == 1 { // lines
			dx, dy = dx*16, dy*16
		}
		x, _ := offset(e)
		switch {
		case math.Abs(dy) >= math.Abs(dx) && dy != 0:
			e.Call("preventDefault")
			l.push(input{Kind: inputZoom, X: x, V: math.Pow(1.0015, max(min(dy, 400), -400))})
		case dx != 0:
			e.Call("preventDefault")
			l.push(input{Kind: inputPan, V: dx})
		}
	})
	l.listen("keydown", func(e safejs.Value) {
		k := str(e, "key")
		if b, _ := e.Get("ctrlKey"); truthy(b) {
			return
		}
		if b, _ := e.Get("metaKey"); truthy(b) {
			return
		}
		switch k {
		case "ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "+", "=", "-", "_", "0", "f", "F", "Enter", "Escape", " ", ".", ",":
		default:
			return
		}
		e.Call("preventDefault")
		sh, _ := e.Get("shiftKey")
		l.push(input{Kind: inputKey, Key: k, Shift: truthy(sh)})
	})
}

// push records an input of this canvas for the next frame.
func (l *jsLoop) push(in input) {
	in.B = l.isB
	l.drv.push(in)
}

// tapSlop is how far, in CSS pixels, a pointer may move and still tap.
const tapSlop = 6

// listenPointers turns pointer events on the canvas into hovering, taps
// (a click or a tap selects a task and opens its details), drags (pan)
// and pinches (zoom). Pointer events cover mouse, pen and touch alike.
func (l *jsLoop) listenPointers() {
	l.listen("pointerdown", func(e safejs.Value) {
		x, y := offset(e)
		id := num(e, "pointerId")
		if len(l.pointers) == 0 {
			l.downAt, l.moved = Point{X: x, Y: y, In: true}, false
			l.grab = !l.isB && l.drv.nearNow(x, str(e, "pointerType"))
		} else {
			l.moved = true // a second finger: a pinch, not a tap
			if l.grab {
				l.grab = false
				l.push(input{Kind: inputScrubEnd, X: l.downAt.X})
			}
		}
		l.pointers[id] = Point{X: x, Y: y, In: true}
		l.pinch = l.spread()
		l.canvas.Call("setPointerCapture", id)
	})
	l.listen("pointermove", func(e safejs.Value) {
		x, y := offset(e)
		if str(e, "pointerType") == "mouse" {
			l.mouseX.Store(math.Float64bits(x))
			l.mouseY.Store(math.Float64bits(y))
			l.mouseIn.Store(true)
		}
		id := num(e, "pointerId")
		last, down := l.pointers[id]
		if !down {
			return
		}
		if math.Hypot(x-l.downAt.X, y-l.downAt.Y) > tapSlop {
			l.moved = true
		}
		l.pointers[id] = Point{X: x, Y: y, In: true}
		switch len(l.pointers) {
		case 1:
			switch {
			case l.moved && l.grab:
				l.push(input{Kind: inputScrub, X: x})
			case l.moved:
				l.push(input{Kind: inputPan, V: last.X - x})
			}
		case 2:
			if d := l.spread(); d > 0 && l.pinch > 0 {
				mid := 0.0
				for _, p := range l.pointers {
					mid += p.X / 2
				}
				l.push(input{Kind: inputZoom, X: mid, V: l.pinch / d})
				l.pinch = d
			}
		}
	})
	up := func(tap bool) func(e safejs.Value) {
		return func(e safejs.Value) {
			id := num(e, "pointerId")
			if _, down := l.pointers[id]; !down {
				return
			}
			delete(l.pointers, id)
			l.pinch = l.spread()
			if l.grab && len(l.pointers) == 0 {
				l.grab = false
				if l.moved {
					x, _ := offset(e)
					l.push(input{Kind: inputScrubEnd, X: x})
				}
			}
			if tap && len(l.pointers) == 0 && !l.moved {
				if b := num(e, "button"); b == 0 {
					l.push(input{Kind: inputTap, X: l.downAt.X, Y: l.downAt.Y})
				}
			}
		}
	}
	l.listen("pointerup", up(true))
	l.listen("pointercancel", up(false))
	l.listen("pointerleave", func(e safejs.Value) {
		if str(e, "pointerType") == "mouse" {
			l.mouseIn.Store(false)
		}
	})
}

// spread returns the distance between the first two pointers down, or 0.
func (l *jsLoop) spread() float64 {
	var ps []Point
	for _, p := range l.pointers {
		ps = append(ps, p)
	}
	if len(ps) < 2 {
		return 0
	}
	return math.Hypot(ps[0].X-ps[1].X, ps[0].Y-ps[1].Y)
}

func num(e safejs.Value, k string) float64 {
	v, err := e.Get(k)
	if err != nil {
		return 0
	}
	f, _ := v.Float()
	return f
}

func str(e safejs.Value, k string) string {
	v, err := e.Get(k)
	if err != nil {
		return ""
	}
	s, _ := v.String()
	return s
}

func truthy(v safejs.Value) bool {
	b, err := v.Bool()
	return err == nil && b
}

// clampEvery is how often, in ms, markClamped looks at the description.
const clampEvery = 200

// markClamped sets data-clamped on #scenario-about while the scenario's
// description is cut to its two lines, which shows its "More" button
// (sluice.css), and removes it when the description fits. It leaves the
// attribute alone while the description shows whole (class "open"). It
// runs in the animation frame callback, where the layout is up to date.
func markClamped(root safejs.Value) {
	about, err := root.Call("querySelector", "#scenario-about")
	if err != nil || about.IsNull() || about.IsUndefined() {
		return
	}
	cl, err := about.Get("classList")
	if err != nil {
		return
	}
	if open, _ := cl.Call("contains", "open"); truthy(open) {
		return
	}
	desc, err := about.Call("querySelector", "#scenario-desc")
	if err != nil || desc.IsNull() || desc.IsUndefined() {
		return
	}
	clamped := num(desc, "scrollHeight") > num(desc, "clientHeight")+1
	if has, _ := about.Call("hasAttribute", "data-clamped"); truthy(has) == clamped {
		return
	}
	if clamped {
		about.Call("setAttribute", "data-clamped", "")
	} else {
		about.Call("removeAttribute", "data-clamped")
	}
}

// request asks for the next animation frame.
func (l *jsLoop) request() {
	id, err := safejs.Global().Call("requestAnimationFrame", l.raf)
	if err != nil {
		return
	}
	n, _ := id.Int()
	l.rafID.Store(int64(n))
}

func offset(e safejs.Value) (x, y float64) {
	xv, _ := e.Get("offsetX")
	yv, _ := e.Get("offsetY")
	x, _ = xv.Float()
	y, _ = yv.Float()
	return x, y
}

// listen adds a listener on the canvas that calls f with the event. f runs
// as a JS callback: it must not block.
func (l *jsLoop) listen(event string, f func(e safejs.Value)) {
	l.listenOpts(event, nil, f)
}

// listenOpts is listen with addEventListener's options.
func (l *jsLoop) listenOpts(event string, opts map[string]any, f func(e safejs.Value)) {
	fn, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		if len(args) > 0 {
			f(args[0])
		}
		return nil
	})
	if err != nil {
		return
	}
	l.funcs = append(l.funcs, fn)
	if opts != nil {
		l.canvas.Call("addEventListener", event, fn, opts)
	} else {
		l.canvas.Call("addEventListener", event, fn)
	}
	l.remove = append(l.remove, func() { l.canvas.Call("removeEventListener", event, fn) })
}

// stop ends the loop. A frame in progress finishes; no other starts.
func (l *jsLoop) stop() {
	if l.stopped.Swap(true) {
		return
	}
	for _, r := range l.remove {
		r()
	}
	l.detachB()
	safejs.Global().Call("cancelAnimationFrame", l.rafID.Load())
	for _, f := range l.funcs {
		f.Release()
	}
}

// frame runs one animation frame, at ts on the frame clock. It runs on a
// goroutine of its own (ctx.Async), never in the JS callback.
func (l *jsLoop) frame(ctx app.Context, p *Play, ts float64) {
	if l.stopped.Load() {
		return
	}
	if p.tracing.Load() {
		// A trace is being read, under its note: frames and panels wait,
		// so that the reading's slices keep the thread.
		l.lastTS = 0
		return
	}
	l.handled++
	real := time.Duration(0)
	if l.lastTS > 0 && ts > l.lastTS {
		real = time.Duration((ts - l.lastTS) * float64(time.Millisecond))
	}
	l.lastTS = ts

	w := math.Floor(l.paint.cssWidth())
	if w < 200 {
		w = 960 // not laid out (yet): draw at a reasonable size
	}
	force := false
	if w != l.paint.w || l.paint.h == 0 {
		l.paint.resize(w, max(l.paint.h, 240))
		force = true
	}
	mouse := Point{
		X:  math.Float64frombits(l.mouseX.Load()),
		Y:  math.Float64frombits(l.mouseY.Load()),
		In: l.mouseIn.Load(),
	}
	if l.held.Load() || l.afterHold.Swap(false) {
		return
	}
	l.handleInputs(ctx, p)
	t0 := perfNow()
	need, drew, panelDue := l.drv.tick(l.paint, real, ts, w, l.paint.h, mouse, force)
	if drew && need != l.paint.h {
		l.paint.resize(w, need)
		l.drv.tl.Again = !l.drv.tl.Unsized
		l.drv.tl.Draw(l.paint, l.drv.frame, w, need, mouse)
		l.drv.tl.Again = false
	}
	l.paint.flush()
	if drew {
		l.drawB(w)
	}
	if drew {
		l.drv.stats.add(perfNow() - t0)
	}
	hover := l.drv.tl.Hover
	if onNow := mouse.In && l.drv.nearNow(mouse.X, "mouse"); onNow != l.onNow {
		l.onNow = onNow
		if cl, err := l.canvas.Get("classList"); err == nil {
			cl.Call("toggle", "on-now", onNow)
		}
	}
	if hovering := hover != nil; hovering != l.hovering {
		l.hovering = hovering
		if cl, err := l.canvas.Get("classList"); err == nil {
			cl.Call("toggle", "pointing", hovering)
		}
	}
	if l.first && drew {
		l.first = false
		perfMark("sluice-interactive")
		l.setData("interactive", "true")
	}
	if panelDue {
		l.publish()
		show := p.takePanels()
		det, open := l.drv.refreshDetails()
		// The panels of a trace not drawn yet, those that let its side
		// column go, and those that let the event log's rows go: each a
		// render the frame waits for.
		side := p.sideHeld.Load() && !l.drv.republish
		logs := p.logHeld.Load() && !l.drv.republish && !side
		flip := l.drv.republish || side || logs
		dispatch := func() {
			ctx.Dispatch(func(ctx app.Context) {
				if flip {
					ctx.Defer(func(app.Context) { l.release() }) // once the render is done
				}
				show()
				if side {
					p.sideHeld.Store(false) // the event log's rows come next
				} else {
					p.logHeld.Store(flip && !logs)
				}
				p.keepThumb(ctx)
				p.expireNotice(time.Now())
				if open && p.details != nil && p.details.ID == det.ID {
					p.details = &det
				}
			})
		}
		if !flip {
			dispatch()
			return
		}
		// The render in a task of its own, not this animation frame's.
		l.hold()
		ctx.Async(func() {
			yieldToBrowser()
			dispatch()
		})
	}
}

// handleInputs applies what the person did on the timeline since the
// last frame, and hands what it asks of the page to the UI goroutine.
func (l *jsLoop) handleInputs(ctx app.Context, p *Play) {
	for _, in := range l.drv.take() {
		ef := l.drv.apply(in)
		switch ef.Kind {
		case effectDetails:
			det := ef.Details
			ctx.Dispatch(func(app.Context) { p.details = &det })
		case effectClose:
			ctx.Dispatch(func(app.Context) { p.details = nil })
		case effectPlay:
			ctx.Dispatch(func(ctx app.Context) { p.onPlay(ctx, app.Event{}) })
		case effectStep:
			ctx.Dispatch(func(ctx app.Context) { p.onStep(ctx, app.Event{}) })
		case effectStepBack:
			ctx.Dispatch(func(ctx app.Context) { p.onStepBack(ctx, app.Event{}) })
		case effectSeek:
			at := ef.At
			ctx.Dispatch(func(ctx app.Context) { p.seek(ctx, at) })
		}
	}
}

// publish puts the frame statistics on the canvas's data attributes, for
// the perf probe and the tests: frames handled (data-frames-handled) and
// drawn (data-frames: a paused run that stands still is not drawn again),
// the time drawn frames took (model update plus drawing, in milliseconds:
// total, mean, 95th percentile and worst) and what the last frame drew.
func (l *jsLoop) publish() {
	s := &l.drv.stats
	l.setData("framesHandled", strconv.Itoa(l.handled))
	l.setData("frames", strconv.Itoa(s.count))
	l.setData("frameSumMs", strconv.FormatFloat(s.sum, 'f', 3, 64))
	mean := 0.0
	if s.count > 0 {
		mean = s.sum / float64(s.count)
	}
	l.setData("frameMeanMs", strconv.FormatFloat(mean, 'f', 3, 64))
	l.setData("frameP95Ms", strconv.FormatFloat(s.p95(), 'f', 3, 64))
	l.setData("frameMaxMs", strconv.FormatFloat(s.max, 'f', 3, 64))
	l.setData("bars", strconv.Itoa(l.drv.tl.Bars))
	l.setData("lanes", strconv.Itoa(l.drv.tl.Lanes))
	l.setData("runRows", strconv.Itoa(l.drv.tl.RunRows))
	if snap := l.drv.lastSnap; snap != nil { // the snapshot drawn
		l.setData("tasks", strconv.Itoa(len(snap.Tasks)))
	}
	// Where a tap would open a waiting or running task, for the
	// end-to-end tests; the window shown; the selected task.
	hit := ""
	if x, y, name, ok := l.drv.tl.OpenHit(l.drv.frame); ok && !l.drv.frame.Replay {
		hit = strconv.FormatFloat(x, 'f', 1, 64) + " " + strconv.FormatFloat(y, 'f', 1, 64) + " " + name
	}
	l.setData("openHit", hit)
	from, to := l.drv.window()
	l.setData("fromUs", strconv.FormatInt(int64(from/time.Microsecond), 10))
	l.setData("toUs", strconv.FormatInt(int64(to/time.Microsecond), 10))
	l.setData("zoomed", strconv.FormatBool(l.drv.view.fixed))
	l.setData("plot", strconv.FormatFloat(l.drv.tl.plotL, 'f', 1, 64)+" "+strconv.FormatFloat(l.drv.tl.plotR, 'f', 1, 64))
	sel := ""
	if i, ok := findTask(l.drv.frame, l.drv.tl.Selected); ok {
		sel = l.drv.frame.Snap.Text(l.drv.frame.Snap.Tasks[i].Name)
	}
	l.setData("selected", sel)
	l.setData("ticks", strings.Join(l.drv.tl.Ticks, "|"))
	l.setData("wide", strings.Join(l.drv.tl.Wide, "|"))
}

func (l *jsLoop) setData(k, v string) {
	if ds, err := l.canvas.Get("dataset"); err == nil {
		ds.Set(k, v)
	}
}

// onDownload offers the run's trace as a Chrome Trace Event JSON file.
func (p *Play) onDownload(ctx app.Context, e app.Event) {
	if p.sess == nil {
		return
	}
	ctx = pageContext{ctx, p} // SharePanel's handler
	ctx.Async(func() {
		data, name, err := p.traceBytes()
		if err == nil {
			err = download(name, "application/json", data)
		}
		ctx.Dispatch(func(app.Context) {
			if err != nil {
				p.fail(fmt.Errorf("the trace could not be saved: %v", err))
				return
			}
			p.notice = notice{fmt.Sprintf("Saved %s (%s KiB): open it in ui.perfetto.dev, or load it here.", name, formatCount((len(data)+1023)/1024)), "ok"}
		})
	})
}

// onLoadTrace reads the chosen file as a trace and shows it. The file is
// read in slices on a goroutine of its own, so that a large or hostile
// file never freezes the tab.
func (p *Play) onLoadTrace(ctx app.Context, e app.Event) {
	input := safejs.Safe(app.JSValue(ctx.JSSrc()))
	ctx = pageContext{ctx, p} // SharePanel's handler
	file, name, size, ok := fileOf(input)
	if !ok {
		return
	}
	input.Set("value", "") // choosing the same file again loads it again
	name = truncate(name, 80)
	if size > trace.MaxJSONSize {
		p.fail(fmt.Errorf("%s is %s MiB; a trace the playground reads is at most %d MiB", name, formatCount(int(size>>20)), trace.MaxJSONSize>>20))
		return
	}
	p.reading = name
	p.progress.set("Reading " + name + "…")
	p.notice = notice{}
	p.tracing.Store(true)
	ctx.Async(func() {
		defer p.tracing.Store(false)
		last := time.Now()
		r := newFileReader(file, size, func(read, size int64) {
			if time.Since(last) < 150*time.Millisecond && read < size {
				return
			}
			last = time.Now()
			pct := int(read * 100 / max(size, 1))
			msg := fmt.Sprintf("Reading %s… %d%%", name, pct)
			if read >= size {
				msg = "Building the timeline of " + name + "…"
			}
			p.progress.set(msg)
		})
		// No collection while a trace is read, below a bound: in
		// WebAssembly the collector marks on the page's one thread, and
		// does it whenever the reading pauses to let the page run, in one
		// task of hundreds of milliseconds. The reading's garbage is
		// collected once, after.
		gc := debug.SetGCPercent(-1)
		limit := debug.SetMemoryLimit(1 << 30)
		err := p.loadTrace(ctx, r, name)
		// The collection of the reading's garbage, the page's render of
		// the trace and its first frame, each in a task of its own after
		// the reading's last: the reading's task ends first, with the
		// collector still off. The collection then marks and sweeps all
		// at once (runtime.GC), so that no sweeping is left to run in the
		// render's task. A trace's snapshot holds no pointer (see
		// trace.Task): what it marks is small, and the whole collection
		// takes a task of about 20 ms.
		yieldToBrowser()
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(gc)
		runtime.GC()
		// The render in a task of its own (not an animation frame's),
		// then the browser's layout of it, then the trace's drawing.
		if p.frames != nil {
			p.frames.hold()
		}
		yieldToBrowser()
		time.Sleep(time.Millisecond)
		ctx.Dispatch(func(ctx app.Context) {
			if p.frames != nil {
				ctx.Defer(func(app.Context) { p.frames.release() })
			}
			p.reading = ""
			if err != nil {
				p.fail(err)
				return
			}
			// The transport bar says what is shown (renderTransport): a
			// toast would cover the trace.
			p.notice = notice{}
			// The side column and the code card change once the trace
			// is drawn, with the frame loop's next panels (sideHeld), and
			// the event log's rows with the panels after those (logHeld).
			p.logHeld.Store(true)
			p.sideHeld.Store(p.panel.Phase != "replay")
		})
		p.refresh(ctx)
	})
}

// appJSValue returns the DOM node of a mounted component.
func appJSValue(c app.Composer) js.Value { return app.JSValue(c.JSValue()) }
