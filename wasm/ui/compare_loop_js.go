//go:build js && wasm

package ui

import (
	"math"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/hack-pad/safejs"
)

// canvasB is run B's timeline canvas while a comparison is open: its
// painter, and listeners that turn what the person does on it into the
// driver's inputs, as run A's canvas does. Zooming and panning either
// canvas moves the one window both are drawn over; a tap on it opens run
// B's task.
type canvasB struct {
	canvas safejs.Value
	paint  *canvasPainter
	drv    *driver
	funcs  []safejs.Func
	remove []func()

	mouseX, mouseY atomic.Uint64 // float64 bits, CSS pixels
	mouseIn        atomic.Bool

	// JS callbacks only.
	pointers map[float64]Point
	downAt   Point
	moved    bool
	pinch    float64

	published float64 // the frame goroutine's: the panel time its data attributes were last set at
}

// drawB draws run B's timeline after run A's, on the frame goroutine: it
// finds run B's canvas once the page shows it (and again if the page
// made it anew), and lets it go when the comparison closes.
func (l *jsLoop) drawB(w float64) {
	on := l.drv.cmp.sess != nil && l.drv.cmp.frame.Snap != nil
	b := l.b.Load()
	if b != nil && (!on || !b.connected()) {
		l.b.Store(nil)
		b.release()
		b = nil
	}
	if !on {
		return
	}
	if b == nil {
		if b = attachB(l.drv); b == nil {
			return // not in the page yet
		}
		l.b.Store(b)
	}
	mouse := Point{
		X:  math.Float64frombits(b.mouseX.Load()),
		Y:  math.Float64frombits(b.mouseY.Load()),
		In: b.mouseIn.Load(),
	}
	if w != b.paint.w || b.paint.h == 0 {
		b.paint.resize(w, max(b.paint.h, 240))
	}
	if need := l.drv.drawB(b.paint, w, b.paint.h, mouse); need != b.paint.h {
		b.paint.resize(w, need)
		l.drv.drawB(b.paint, w, need, mouse)
	}
	if l.drv.lastPanel != b.published {
		b.published = l.drv.lastPanel
		tl, f := l.drv.cmp.tl, l.drv.cmp.frame
		b.setData("bars", strconv.Itoa(tl.Bars))
		b.setData("lanes", strconv.Itoa(tl.Lanes))
		b.setData("tasks", strconv.Itoa(len(f.Snap.Tasks)))
		b.setData("fromUs", strconv.FormatInt(int64(f.From/time.Microsecond), 10))
		b.setData("toUs", strconv.FormatInt(int64(f.To/time.Microsecond), 10))
		b.setData("plot", strconv.FormatFloat(tl.plotL, 'f', 1, 64)+" "+strconv.FormatFloat(tl.plotR, 'f', 1, 64))
	}
}

// detachB lets run B's canvas go. The loop is stopping.
func (l *jsLoop) detachB() {
	if b := l.b.Swap(nil); b != nil {
		b.release()
	}
}

// attachB finds run B's canvas in the page and listens to it; nil when
// the page does not show it (yet).
func attachB(d *driver) *canvasB {
	doc, err := safejs.Global().Get("document")
	if err != nil {
		return nil
	}
	canvas, err := doc.Call("getElementById", "timeline-b")
	if err != nil || canvas.IsNull() || canvas.IsUndefined() {
		return nil
	}
	paint, err := newCanvasPainter(canvas)
	if err != nil {
		return nil
	}
	b := &canvasB{canvas: canvas, paint: paint, drv: d, pointers: make(map[float64]Point)}
	b.listen()
	return b
}

// connected reports whether the canvas is still in the page.
func (b *canvasB) connected() bool {
	v, err := b.canvas.Get("isConnected")
	return err == nil && truthy(v)
}

func (b *canvasB) setData(k, v string) {
	if ds, err := b.canvas.Get("dataset"); err == nil {
		ds.Set(k, v)
	}
}

func (b *canvasB) release() {
	for _, r := range b.remove {
		r()
	}
	for _, f := range b.funcs {
		f.Release()
	}
	b.remove, b.funcs = nil, nil
}

// on adds a listener on the canvas; f runs as a JS callback and must not
// block.
func (b *canvasB) on(event string, opts map[string]any, f func(e safejs.Value)) {
	fn, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		if len(args) > 0 {
			f(args[0])
		}
		return nil
	})
	if err != nil {
		return
	}
	b.funcs = append(b.funcs, fn)
	if opts != nil {
		b.canvas.Call("addEventListener", event, fn, opts)
	} else {
		b.canvas.Call("addEventListener", event, fn)
	}
	b.remove = append(b.remove, func() { b.canvas.Call("removeEventListener", event, fn) })
}

// listen turns the wheel, pointers and keys on run B's canvas into the
// driver's inputs: the same zoom, pan, play and step as on run A's, and a
// tap that opens run B's task.
func (b *canvasB) listen() {
	push := func(in input) { in.B = true; b.drv.push(in) }
	b.on("wheel", map[string]any{"passive": false}, func(e safejs.Value) {
		if ctrl, _ := e.Get("ctrlKey"); b.drv.tl.compact && !truthy(ctrl) {
			return // in a documentation page the wheel scrolls the page
		}
		dx, dy := num(e, "deltaX"), num(e, "deltaY")
		if num(e, "deltaMode") == 1 {
			dx, dy = dx*16, dy*16
		}
		x, _ := offset(e)
		switch {
		case math.Abs(dy) >= math.Abs(dx) && dy != 0:
			e.Call("preventDefault")
			push(input{Kind: inputZoom, X: x, V: math.Pow(1.0015, max(min(dy, 400), -400))})
		case dx != 0:
			e.Call("preventDefault")
			push(input{Kind: inputPan, V: dx})
		}
	})
	b.on("keydown", nil, func(e safejs.Value) {
		if c, _ := e.Get("ctrlKey"); truthy(c) {
			return
		}
		if m, _ := e.Get("metaKey"); truthy(m) {
			return
		}
		k := str(e, "key")
		switch k {
		case "ArrowLeft", "ArrowRight":
			dir := map[bool]string{true: "ArrowLeft", false: "ArrowRight"}[k == "ArrowLeft"]
			e.Call("preventDefault")
			push(input{Kind: inputKey, Key: dir, Shift: true}) // arrows pan both timelines
		case "+", "=", "-", "_", "0", "f", "F", " ", ".", "Escape":
			e.Call("preventDefault")
			push(input{Kind: inputKey, Key: k})
		}
	})
	b.on("pointerdown", nil, func(e safejs.Value) {
		x, y := offset(e)
		id := num(e, "pointerId")
		if len(b.pointers) == 0 {
			b.downAt, b.moved = Point{X: x, Y: y, In: true}, false
		} else {
			b.moved = true
		}
		b.pointers[id] = Point{X: x, Y: y, In: true}
		b.pinch = b.spread()
		b.canvas.Call("setPointerCapture", id)
	})
	b.on("pointermove", nil, func(e safejs.Value) {
		x, y := offset(e)
		if str(e, "pointerType") == "mouse" {
			b.mouseX.Store(math.Float64bits(x))
			b.mouseY.Store(math.Float64bits(y))
			b.mouseIn.Store(true)
		}
		id := num(e, "pointerId")
		last, down := b.pointers[id]
		if !down {
			return
		}
		if math.Hypot(x-b.downAt.X, y-b.downAt.Y) > tapSlop {
			b.moved = true
		}
		b.pointers[id] = Point{X: x, Y: y, In: true}
		switch len(b.pointers) {
		case 1:
			if b.moved {
				push(input{Kind: inputPan, V: last.X - x})
			}
		case 2:
			if d := b.spread(); d > 0 && b.pinch > 0 {
				mid := 0.0
				for _, p := range b.pointers {
					mid += p.X / 2
				}
				push(input{Kind: inputZoom, X: mid, V: b.pinch / d})
				b.pinch = d
			}
		}
	})
	up := func(tap bool) func(e safejs.Value) {
		return func(e safejs.Value) {
			id := num(e, "pointerId")
			if _, down := b.pointers[id]; !down {
				return
			}
			delete(b.pointers, id)
			b.pinch = b.spread()
			if tap && len(b.pointers) == 0 && !b.moved && num(e, "button") == 0 {
				push(input{Kind: inputTap, X: b.downAt.X, Y: b.downAt.Y})
			}
		}
	}
	b.on("pointerup", nil, up(true))
	b.on("pointercancel", nil, up(false))
	b.on("pointerleave", nil, func(e safejs.Value) {
		if str(e, "pointerType") == "mouse" {
			b.mouseIn.Store(false)
		}
	})
}

// spread returns the distance between the first two pointers down, or 0.
func (b *canvasB) spread() float64 {
	var ps []Point
	for _, p := range b.pointers {
		ps = append(ps, p)
	}
	if len(ps) < 2 {
		return 0
	}
	return math.Hypot(ps[0].X-ps[1].X, ps[0].Y-ps[1].Y)
}
