//go:build js && wasm

package ui

import (
	"math"
	"strconv"
	"time"

	"github.com/hack-pad/safejs"
)

// drawB draws run B's timeline after run A's, on the frame goroutine: it
// finds run B's canvas once the page shows it (and again if the page
// made it anew), listens to it as to run A's (zoom and pan move the one
// window both are drawn over; a tap opens run B's task; inputs from it
// say so, input.B), and lets it go when the comparison closes.
func (l *jsLoop) drawB(w float64) {
	on := l.drv.cmp.sess != nil && l.drv.cmp.frame.Snap != nil
	b := l.b.Load()
	if b != nil && (!on || !connected(b.canvas)) {
		l.b.Store(nil)
		b.stop()
		b = nil
	}
	if !on {
		return
	}
	if b == nil {
		if b = l.attachB(); b == nil {
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
	b.paint.flush()
	if l.drv.lastPanel != l.publishedB {
		l.publishedB = l.drv.lastPanel
		tl, f := l.drv.cmp.tl, l.drv.cmp.frame
		b.setData("bars", strconv.Itoa(tl.Bars))
		b.setData("fromUs", strconv.FormatInt(int64(f.From/time.Microsecond), 10))
		b.setData("toUs", strconv.FormatInt(int64(f.To/time.Microsecond), 10))
		b.setData("plot", strconv.FormatFloat(tl.plotL, 'f', 1, 64)+" "+strconv.FormatFloat(tl.plotR, 'f', 1, 64))
	}
}

// detachB lets run B's canvas go. The loop is stopping.
func (l *jsLoop) detachB() {
	if b := l.b.Swap(nil); b != nil {
		b.stop()
	}
}

// attachB finds run B's canvas in the page and listens to it; nil when
// the page does not show it (yet).
func (l *jsLoop) attachB() *jsLoop {
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
	b := &jsLoop{drv: l.drv, paint: paint, canvas: canvas, pointers: make(map[float64]Point), isB: true}
	b.listenPointers()
	b.listenNav(l.drv.tl.compact)
	return b
}

// connected reports whether a canvas is still in the page.
func connected(canvas safejs.Value) bool {
	v, err := canvas.Get("isConnected")
	return err == nil && truthy(v)
}
