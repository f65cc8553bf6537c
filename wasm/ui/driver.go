package ui

import (
	"slices"
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
// Only the frame goroutine calls tick; span and the pointer are set from
// elsewhere through atomics.
type driver struct {
	sess *Session
	tl   *timeline
	span atomic.Int64 // the window's width, a time.Duration

	// Frame goroutine only.
	frame     Frame
	stats     frameStats
	lastPanel float64 // in ms, on the frame clock
	drawn     bool
	lastMouse Point
	lastW     float64
	lastSnap  *trace.Snapshot // a replay is drawn again only when it changes
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
	d.frame = d.sess.Frame(real, time.Duration(d.span.Load()))
	f := d.frame
	need = h
	if !f.Replay || force || !d.drawn || mouse != d.lastMouse || w != d.lastW || f.Snap != d.lastSnap {
		need = d.tl.Draw(p, f, w, h, mouse)
		drew = true
		d.drawn = true
	}
	d.lastMouse, d.lastW, d.lastSnap = mouse, w, f.Snap
	panelDue = f.Changed && nowMS-d.lastPanel >= 50 || nowMS-d.lastPanel >= panelEvery || d.lastPanel == 0
	if panelDue {
		d.lastPanel = max(nowMS, 1)
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
