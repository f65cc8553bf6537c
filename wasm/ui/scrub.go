package ui

import (
	"math"
	"time"
)

// Dragging the now-line. A drag that starts on the now-line of the
// timeline (within nowGrab pixels, more for a finger) moves the clock
// instead of panning: each move asks the page to seek the run to the
// moment under the pointer. The window stays where it was while the line
// is dragged, so that the line follows the pointer; once it is let go,
// the window follows the clock again if the clock is in it.

// How close to the now-line, in CSS pixels, a drag grabs it: with a mouse
// or pen, and with a finger.
const (
	nowGrab      = 6
	nowGrabTouch = 16
)

// noteNow keeps where the last frame drew the now-line, for the pointer
// listeners (nearNow). The frame goroutine calls it after each frame.
func (d *driver) noteNow() {
	f := d.frame
	x := math.NaN()
	if f.Snap != nil && !f.Replay && f.To > f.From {
		x = d.tl.plotL + float64(f.Now-f.From)/float64(f.To-f.From)*(d.tl.plotR-d.tl.plotL)
		if x < d.tl.plotL-1 || x > d.tl.plotR+1 {
			x = math.NaN()
		}
	}
	d.nowX.Store(math.Float64bits(x))
}

// nearNow reports whether a pointer down at x, of the given type
// ("mouse", "pen", "touch"), grabs the now-line. It may be called from a
// JS callback.
func (d *driver) nearNow(x float64, pointer string) bool {
	nx := math.Float64frombits(d.nowX.Load())
	grab := float64(nowGrab)
	if pointer == "touch" {
		grab = nowGrabTouch
	}
	return !math.IsNaN(nx) && math.Abs(x-nx) <= grab
}

// scrub applies a move of the grabbed now-line to x (end: the line was let
// go there) against the last frame drawn, and returns the seek it asks
// for.
func (d *driver) scrub(x float64, end bool) effect {
	f := d.frame
	if f.Snap == nil || f.Replay {
		return effect{}
	}
	from, to := d.window()
	if !d.scrubbing {
		d.scrubbing = true
		d.view = view{fixed: true, from: from, to: to}
	}
	plotW := max(d.tl.plotR-d.tl.plotL, 1)
	frac := min(max((x-d.tl.plotL)/plotW, 0), 1)
	at := max(from+time.Duration(frac*float64(to-from)), 0).Round(time.Millisecond)
	if end {
		d.scrubbing = false
		if d.view.from <= at && at <= d.view.to {
			d.view.follow, d.view.lead = true, d.view.to-at
		}
	}
	return effect{Kind: effectSeek, At: at}
}
