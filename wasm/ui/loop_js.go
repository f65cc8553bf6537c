//go:build js && wasm

package ui

import (
	"fmt"
	"math"
	"strconv"
	"sync/atomic"
	"syscall/js"
	"time"

	"github.com/hack-pad/safejs"
	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/core/trace"
)

// jsLoop is the browser's frame loop: a requestAnimationFrame callback
// that hands each frame to a goroutine (ctx.Async) and returns at once,
// and the pointer listeners on the canvas, which only record what they
// saw. At most one frame goroutine runs at a time; a frame that comes
// while one runs is skipped.
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
	clicks  chan Point // size 8: clicks beyond are dropped while a frame runs

	// Frame goroutine only.
	lastTS    float64
	first     bool
	hovering  bool
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
	l := &jsLoop{drv: p.drv, paint: paint, canvas: canvas, clicks: make(chan Point, 8), first: true}
	l.listen("mousemove", func(e safejs.Value) {
		x, y := offset(e)
		l.mouseX.Store(math.Float64bits(x))
		l.mouseY.Store(math.Float64bits(y))
		l.mouseIn.Store(true)
	})
	l.listen("mouseleave", func(safejs.Value) { l.mouseIn.Store(false) })
	l.listen("click", func(e safejs.Value) {
		x, y := offset(e)
		select {
		case l.clicks <- Point{X: x, Y: y, In: true}:
		default:
		}
	})

	var raf safejs.Func
	raf, err = safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		if l.stopped.Load() {
			return nil
		}
		ts := 0.0
		if len(args) > 0 {
			ts, _ = args[0].Float()
		}
		l.request(raf)
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
	l.funcs = append(l.funcs, raf)
	l.request(raf)
	return l.stop
}

// request asks for the next animation frame.
func (l *jsLoop) request(raf safejs.Func) {
	id, err := safejs.Global().Call("requestAnimationFrame", raf)
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
	l.canvas.Call("addEventListener", event, fn)
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
	t0 := perfNow()
	need, drew, panelDue := l.drv.tick(l.paint, real, ts, w, l.paint.h, mouse, force)
	if drew && need != l.paint.h {
		l.paint.resize(w, need)
		l.drv.tl.Draw(l.paint, l.drv.frame, w, need, mouse)
	}
	if drew && !l.drv.frame.Replay {
		l.drv.stats.add(perfNow() - t0)
	}
	hover := l.drv.tl.Hover
	if hovering := hover != nil && hover.Open() && !l.drv.frame.Replay; hovering != l.hovering {
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
	l.handleClicks(ctx, p)
	if panelDue {
		l.publish()
		pn := p.sess.Panel()
		sc, preset := p.sess.Scenario()
		ctx.Dispatch(func(app.Context) { p.apply(pn, sc, preset) })
	}
}

// handleClicks cancels the tasks clicked since the last frame.
func (l *jsLoop) handleClicks(ctx app.Context, p *Play) {
	for {
		select {
		case c := <-l.clicks:
			name, ok := l.drv.taskAt(c.X, c.Y)
			if !ok {
				continue
			}
			err := p.sess.Cancel(name)
			ctx.Dispatch(func(app.Context) {
				if err != nil {
					p.fail(err)
				} else {
					p.notice = notice{name + " was canceled.", "ok"}
				}
			})
		default:
			return
		}
	}
}

// publish puts the frame statistics on the canvas's data attributes, for
// the perf probe and the tests: frames drawn, the time they took (model
// update plus drawing, in milliseconds: total, mean, 95th percentile and
// worst) and what the last frame drew.
func (l *jsLoop) publish() {
	s := &l.drv.stats
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
	if snap := l.drv.frame.Snap; snap != nil {
		l.setData("tasks", strconv.Itoa(len(snap.Tasks)))
	}
	// Where a click would cancel a task, for the end-to-end tests.
	hit := ""
	if x, y, name, ok := l.drv.tl.OpenHit(l.drv.frame); ok && !l.drv.frame.Replay {
		hit = strconv.FormatFloat(x, 'f', 1, 64) + " " + strconv.FormatFloat(y, 'f', 1, 64) + " " + name
	}
	l.setData("openHit", hit)
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
	p.reading = "Reading " + name + "…"
	p.notice = notice{}
	ctx.Async(func() {
		last := time.Now()
		r := newFileReader(file, size, func(read, size int64) {
			if time.Since(last) < 200*time.Millisecond {
				return
			}
			last = time.Now()
			pct := int(read * 100 / max(size, 1))
			ctx.Dispatch(func(app.Context) { p.reading = fmt.Sprintf("Reading %s… %d%%", name, pct) })
		})
		err := p.sess.LoadTrace(r, name)
		ctx.Dispatch(func(app.Context) {
			p.reading = ""
			if err != nil {
				p.fail(err)
				return
			}
			p.notice = notice{"Showing " + name + ", read-only. “Back to live” returns to the run.", "info"}
		})
		p.refresh(ctx)
	})
}

// appJSValue returns the DOM node of a mounted component.
func appJSValue(c app.Composer) js.Value { return app.JSValue(c.JSValue()) }
