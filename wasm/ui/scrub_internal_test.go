package ui

import (
	"math"
	"testing"
	"time"
)

// TestDriverScrub drags the now-line halfway back to the plot's start: the drag grabs the
// line only near it, the window stays put while it moves, and each move
// asks for a seek to the moment under the pointer.
func TestDriverScrub(t *testing.T) {
	d, _ := driverOn(t)
	nx := math.Float64frombits(d.nowX.Load())
	if math.IsNaN(nx) {
		t.Fatal("the frame drew no now-line")
	}
	from, to := d.window()
	plotW := d.tl.plotR - d.tl.plotL
	if want := d.tl.plotL + float64(d.frame.Now-from)/float64(to-from)*plotW; math.Abs(nx-want) > 0.5 {
		t.Errorf("now-line noted at x=%.1f, drawn at %.1f", nx, want)
	}
	for _, c := range []struct {
		x       float64
		pointer string
		want    bool
	}{{nx, "mouse", true}, {nx - 5, "mouse", true}, {nx - 12, "mouse", false}, {nx + 12, "touch", true}, {nx - 30, "touch", false}} {
		if got := d.nearNow(c.x, c.pointer); got != c.want {
			t.Errorf("nearNow(%.0f px from the line, %s) = %v, want %v", c.x-nx, c.pointer, got, c.want)
		}
	}
	back := (nx - d.tl.plotL) / 2
	ef := d.apply(input{Kind: inputScrub, X: nx - back})
	want := (from + time.Duration((nx-back-d.tl.plotL)/plotW*float64(to-from))).Round(time.Millisecond)
	if ef.Kind != effectSeek || ef.At != want || want <= 0 || want >= d.frame.Now {
		t.Fatalf("dragging the line %.0f px back gave %+v, want a seek to %v, between 0 and now %v", back, ef, want, d.frame.Now)
	}
	if !d.view.fixed || d.view.from != from || d.view.to != to || d.view.follow {
		t.Errorf("while the line is dragged the view is %+v, want the window %v..%v held", d.view, from, to)
	}
	ef = d.apply(input{Kind: inputScrubEnd, X: d.tl.plotL - 50})
	if ef.Kind != effectSeek || ef.At != max(from, 0) {
		t.Errorf("letting the line go left of the plot gave %+v, want a seek to the window's start %v", ef, max(from, 0))
	}
	if d.scrubbing || !d.view.follow {
		t.Errorf("after the drag: scrubbing %v, view %+v; want done, following the clock", d.scrubbing, d.view)
	}
	if ef := d.apply(input{Kind: inputKey, Key: ","}); ef.Kind != effectStepBack {
		t.Errorf("the key , gave %+v, want a step back", ef)
	}
}
