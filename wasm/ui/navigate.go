package ui

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"time"

	"sluice/core/trace"
)

// indexFrom is the number of tasks of a loaded trace from which the
// timeline finds what to draw through a laneIndex rather than by looking
// at every task.
const indexFrom = 20_000

// laneIndex holds a snapshot's tasks by lane, in order of start, so that
// a frame finds the tasks in its window, and skips those that would share
// a pixel, by search over compact arrays.
type laneIndex struct {
	snap   *trace.Snapshot
	n      int
	byLane map[int]*laneTasks
}

// laneTasks are one lane's tasks: their indices in the snapshot and their
// start times (Unix nanoseconds), in order of start.
type laneTasks struct {
	idx        []int32
	start, end []int64 // end is openEnd for a task still open
}

// build indexes snap, unless it is the one indexed already.
func (x *laneIndex) build(snap *trace.Snapshot) { x.buildPausing(snap, nil) }

// use takes on the index built by the loader of a trace (see
// Frame.Loaded), when it is snap's.
func (x *laneIndex) use(lo *loaded, snap *trace.Snapshot) {
	if lo == nil || lo.index == nil {
		return
	}
	if pre := lo.index; pre.snap == snap && pre.n == len(snap.Tasks) && x.snap != snap {
		*x = *pre
	}
}

// buildPausing is build that calls pause, if not nil, every few thousand
// tasks: a loader builds the index of a large trace in slices, so that
// its first frame does not.
func (x *laneIndex) buildPausing(snap *trace.Snapshot, pause func()) {
	if x.snap == snap && x.n == len(snap.Tasks) {
		return
	}
	x.snap, x.n = nil, 0
	byLane := make(map[int]*laneTasks)
	for i := range snap.Tasks {
		if pause != nil && i%2048 == 2047 {
			pause()
		}
		t := &snap.Tasks[i]
		if t.Lane < 0 || t.Started.IsZero() {
			continue
		}
		l := byLane[t.Lane]
		if l == nil {
			l = &laneTasks{}
			byLane[t.Lane] = l
		}
		end := int64(openEnd)
		if !t.Ended.IsZero() {
			end = t.Ended.UnixNano()
		}
		l.idx = append(l.idx, int32(i))
		l.start = append(l.start, t.Started.UnixNano())
		l.end = append(l.end, end)
	}
	for _, l := range byLane {
		if pause != nil {
			pause()
		}
		if !slices.IsSorted(l.start) {
			order := make([]int, len(l.idx))
			for i := range order {
				order[i] = i
			}
			slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(l.start[a], l.start[b]) })
			idx, start, end := make([]int32, len(order)), make([]int64, len(order)), make([]int64, len(order))
			for i, o := range order {
				idx[i], start[i], end[i] = l.idx[o], l.start[o], l.end[o]
			}
			l.idx, l.start, l.end = idx, start, end
		}
	}
	x.snap, x.n, x.byLane = snap, len(snap.Tasks), byLane
}

// startsFrom returns the first position from lo on whose task starts at
// or after t, searching outwards from lo first: the next pixel's tasks
// are near.
func (l *laneTasks) startsFrom(lo int, t int64) int {
	hi, step := lo, 1
	for hi < len(l.start) && l.start[hi] < t {
		lo = hi + 1
		hi += step
		step *= 2
	}
	hi = min(hi, len(l.start))
	return lo + sort.Search(hi-lo, func(k int) bool { return l.start[lo+k] >= t })
}

// each calls draw with the index, start and end of every task of lane
// that may show between from and to, in order of start. When draw returns
// a time (Unix nanoseconds), the tasks that start before it are skipped,
// but for the last of them if it reaches past it (a lane's tasks never
// overlap).
func (x *laneIndex) each(lane int, from, to time.Time, draw func(i int, start, end int64) int64) {
	l := x.byLane[lane]
	if l == nil {
		return
	}
	last := to.UnixNano()
	j := max(sort.Search(len(l.start), func(k int) bool { return l.start[k] >= from.UnixNano() })-1, 0)
	for j < len(l.idx) {
		if l.start[j] > last {
			return
		}
		skip := draw(int(l.idx[j]), l.start[j], l.end[j])
		j++
		if skip != noSkip {
			k := l.startsFrom(j, skip)
			if k-1 >= j && l.end[k-1] >= skip {
				k--
			}
			j = k
		}
	}
}

// floorDur rounds d down to a multiple of step.
func floorDur(d, step time.Duration) time.Duration {
	q := d / step * step
	if q > d {
		q -= step
	}
	return q
}

// view is the window of time the timeline shows, when the person zoomed
// or panned it; otherwise the window follows the run (or shows the whole
// trace).
type view struct {
	fixed    bool
	from, to time.Duration
	follow   bool          // a live run's window moves with now
	lead     time.Duration // how far the window reaches past now, when it follows
}

// Bounds of zooming.
const (
	minWindow = 10 * time.Microsecond
	maxWindow = 48 * time.Hour
)

// zoom scales the window [from, to] by factor (below 1 zooms in) around
// the point at fraction at of its width.
func (v *view) zoom(from, to time.Duration, factor, at float64) {
	span := float64(to - from)
	next := min(max(span*factor, float64(minWindow)), float64(maxWindow))
	at = min(max(at, 0), 1)
	anchor := float64(from) + at*span
	v.fixed = true
	v.from = time.Duration(anchor - at*next)
	v.to = v.from + time.Duration(next)
}

// pan moves the window [from, to] by frac of its width (positive: later).
func (v *view) pan(from, to time.Duration, frac float64) {
	d := time.Duration(frac * float64(to-from))
	v.fixed, v.follow = true, false
	v.from, v.to = from+d, to+d
}

// show moves the window [from, to] so that [a, b] is in it, keeping its
// width unless [a, b] is wider.
func (v *view) show(from, to, a, b time.Duration) {
	if a >= from && b <= to {
		return
	}
	span := to - from
	if b-a > span*8/10 {
		span = (b - a) * 5 / 4
	}
	mid := a + (b-a)/2
	v.fixed, v.follow = true, false
	v.from = mid - span/2
	v.to = v.from + span
}

// taskTime is when a task shows on the timeline: its start, or when it
// was enqueued if it never started.
func taskTime(x *trace.Task) trace.Stamp {
	if !x.Started.IsZero() {
		return x.Started
	}
	return x.Enqueued
}

// navRows returns the tasks of each row drawn in the last frame of f, for
// the keyboard: the queue rows, then the lane rows, each in time order.
func (t *timeline) navRows(f Frame) [][]int {
	snap := f.Snap
	var rows [][]int
	for r := range t.queueRows {
		if len(t.queue[r]) > 0 {
			rows = append(rows, slices.Clone(t.queue[r]))
		}
	}
	if f.Replay && len(snap.Tasks) > indexFrom {
		// A large loaded trace: its lanes are indexed in order already.
		t.index.use(f.Loaded, snap)
		t.index.build(snap)
		for _, r := range t.rows {
			var row []int
			for _, l := range r.lanes {
				if lt := t.index.byLane[l.ID]; lt != nil {
					for _, i := range lt.idx {
						row = append(row, int(i))
					}
				}
			}
			if len(row) > 0 {
				if len(r.lanes) > 1 {
					slices.SortStableFunc(row, func(a, b int) int { return snap.Tasks[a].Started.Compare(snap.Tasks[b].Started) })
				}
				rows = append(rows, row)
			}
		}
		return rows
	}
	lanes := make([][]int, len(t.rows))
	for i := range snap.Tasks {
		x := &snap.Tasks[i]
		if x.Lane < 0 || x.Started.IsZero() {
			continue
		}
		if row, ok := t.rowOf[x.Lane]; ok {
			lanes[row] = append(lanes[row], i)
		}
	}
	for _, l := range lanes {
		if len(l) == 0 {
			continue
		}
		slices.SortStableFunc(l, func(a, b int) int { return snap.Tasks[a].Started.Compare(snap.Tasks[b].Started) })
		rows = append(rows, l)
	}
	return rows
}

// move returns the task the keyboard selects from the selected one: dx
// steps along its row (-1 earlier, +1 later), or dy rows up or down, to
// the task nearest in time. With nothing selected, it is the first task
// drawn in the window. ok is false when there is no task.
func (t *timeline) move(f Frame, selected uint64, dx, dy int) (task int, ok bool) {
	if f.Snap == nil {
		return 0, false
	}
	rows := t.navRows(f)
	if len(rows) == 0 {
		return 0, false
	}
	r, c := -1, -1
	for i, row := range rows {
		if j := slices.IndexFunc(row, func(k int) bool { return f.Snap.Tasks[k].ID == selected }); j >= 0 && selected != 0 {
			r, c = i, j
			break
		}
	}
	if r < 0 {
		for _, h := range t.hits {
			if h.task < len(f.Snap.Tasks) {
				return h.task, true
			}
		}
		return rows[0][0], true
	}
	switch {
	case dx != 0:
		c = min(max(c+dx, 0), len(rows[r])-1)
		return rows[r][c], true
	case dy != 0:
		at := taskTime(&f.Snap.Tasks[rows[r][c]])
		r = min(max(r+dy, 0), len(rows)-1)
		best, bestD := rows[r][0], time.Duration(math.MaxInt64)
		for _, k := range rows[r] {
			d := taskTime(&f.Snap.Tasks[k]).Sub(at)
			if d < 0 {
				d = -d
			}
			if d < bestD {
				best, bestD = k, d
			}
		}
		return best, true
	}
	return rows[r][c], true
}

// findTask returns the index in f's snapshot of the task with the given
// ID.
func findTask(f Frame, id uint64) (int, bool) {
	if f.Snap == nil || id == 0 {
		return 0, false
	}
	for i := range f.Snap.Tasks {
		if f.Snap.Tasks[i].ID == id {
			return i, true
		}
	}
	return 0, false
}

// hitTask returns the index in the frame's snapshot of the task drawn at
// x, y in the last frame.
func (t *timeline) hitTask(f Frame, x, y float64) (int, bool) {
	i := t.hitAt(x, y)
	if i < 0 || f.Snap == nil || t.hits[i].task >= len(f.Snap.Tasks) {
		return 0, false
	}
	return t.hits[i].task, true
}

// TaskDetails is what the details sheet shows of a task.
type TaskDetails struct {
	ID       uint64
	Name     string // the name Session.Cancel takes
	Title    string
	Lines    []string
	Open     bool // waiting or running: it can be canceled
	ReadOnly bool // a loaded trace's task
	B        bool // a comparison's run B's task
}

// taskDetails describes task x of frame f for the details sheet.
func taskDetails(x *trace.Task, f Frame) TaskDetails {
	lines := tooltipLines(x, f, false)
	return TaskDetails{ID: x.ID, Name: f.Snap.Text(x.Name), Title: lines[0], Lines: lines[1:], Open: x.Open(), ReadOnly: f.Replay}
}
