package ui

import "time"

// compareDriver is what the driver keeps of a comparison's run B, on the
// frame goroutine: its session as last drawn, its timeline and frame.
type compareDriver struct {
	sess  *Session
	tl    *timeline
	frame Frame
}

// tickBoth is tick for a comparison: both runs move by the same real
// time, on one clock, and are snapshotted over the same window, which
// follows the later of the two; run A is drawn on p, and run B by drawB,
// on its own canvas. Both timelines get the wider of their lane labels'
// columns, so that their plots, and their time axes, line up, the
// shorter of their lanes' heights and the higher of each counter track's
// tops, so that both read on one scale. b is the
// run B now open, or nil once the comparison has closed.
func (d *driver) tickBoth(b *Session, p painter, real time.Duration, nowMS, w, h float64, mouse Point, force bool) (need float64, drew, panelDue bool) {
	if b != d.cmp.sess {
		d.cmp = compareDriver{sess: b}
		d.tl.MinLabel, d.tl.MaxLaneH, d.tl.MinPeaks = 0, 0, [3]int64{}
		if b == nil {
			return d.tick(p, real, nowMS, w, h, mouse, true) // the canvas showed both: draw one anew
		}
		d.cmp.tl = newTimeline(d.tl.compact)
	}
	if d.hold.Load() {
		real = 0 // the page is starting or stopping both runs: neither moves alone
	}
	now := max(d.frame.Now, d.cmp.frame.Now)
	if d.view.fixed && d.view.follow {
		span := d.view.to - d.view.from
		d.view.to = now + d.view.lead
		d.view.from = d.view.to - span
		d.viewed = d.view
	}
	from, to := d.view.from, d.view.to
	if !d.view.fixed {
		span := max(time.Duration(d.span.Load()), time.Second)
		to = max(span, now+span/10)
		from = to - span
	}
	d.frame = d.sess.FrameAt(real, from, to)
	d.cmp.frame = b.FrameAt(real, from, to)
	if d.frame.Replay {
		d.cmp.frame = Frame{} // a loaded trace: run B waits, undrawn
	}
	d.tl.MinLabel, d.tl.MaxLaneH, d.tl.MinPeaks = d.cmp.tl.OwnLabel, d.cmp.tl.OwnLaneH, d.cmp.tl.OwnPeaks
	need = d.tl.Draw(p, d.frame, w, h, mouse)
	d.cmp.tl.MinLabel, d.cmp.tl.MaxLaneH, d.cmp.tl.MinPeaks = d.tl.OwnLabel, d.tl.OwnLaneH, d.tl.OwnPeaks
	d.drawn = true
	d.lastMouse, d.lastW, d.lastSnap, d.viewed, d.lastSel = mouse, w, d.frame.Snap, d.view, d.tl.Selected
	d.noteNow()
	changed := d.frame.Changed || d.cmp.frame.Changed
	panelDue = changed && nowMS-d.lastPanel >= 50 || nowMS-d.lastPanel >= panelEvery || d.lastPanel == 0
	if panelDue {
		d.lastPanel = max(nowMS, 1)
	}
	return need, true, panelDue
}

// drawB draws run B's frame, taken by the last tickBoth, on p, w CSS
// pixels wide and h high, and returns the height it needs (see
// timeline.Draw); h when no comparison is drawn.
func (d *driver) drawB(p painter, w, h float64, mouse Point) float64 {
	if d.cmp.tl == nil || d.cmp.frame.Snap == nil {
		return h
	}
	return d.cmp.tl.Draw(p, d.cmp.frame, w, h, mouse)
}

// tapB selects the task of run B tapped at in.X, in.Y and opens its
// details; run A's selection goes.
func (d *driver) tapB(in input) effect {
	if d.cmp.tl == nil || d.cmp.frame.Snap == nil {
		return effect{}
	}
	d.tl.Selected, d.details = 0, 0
	i, ok := d.cmp.tl.hitTask(d.cmp.frame, in.X, in.Y)
	if !ok {
		d.cmp.tl.Selected = 0
		return effect{Kind: effectClose}
	}
	x := &d.cmp.frame.Snap.Tasks[i]
	d.cmp.tl.Selected = x.ID
	det := taskDetails(x, d.cmp.frame)
	det.Title, det.B = "Run B · "+det.Title, true
	return effect{Kind: effectDetails, Details: det}
}

// fitFrame is the frame Fit fits: run A's, or for a comparison the two
// runs' together, finished when both are, up to the later one's end.
func (d *driver) fitFrame() Frame {
	f := d.frame
	if d.cmp.sess != nil && d.cmp.frame.Snap != nil {
		f.Now = max(f.Now, d.cmp.frame.Now)
		f.Finished = f.Finished && d.cmp.frame.Finished
	}
	return f
}
