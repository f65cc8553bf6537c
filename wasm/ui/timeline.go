package ui

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"sluice/core"
	"sluice/core/trace"
	"sluice/wasm/sim"
)

// painter draws on a 2D canvas, in CSS pixels from the top left corner.
// The browser's implementation is a CanvasRenderingContext2D; tests use a
// recorder.
type painter interface {
	// Clear fills the whole canvas with colour.
	Clear(color string)
	// FillRect fills a rectangle.
	FillRect(x, y, w, h float64, color string)
	// FillPath fills an SVG path ("M1 2h3v4h-3Z..."), so that many shapes
	// of one colour cost one call.
	FillPath(path []byte, color string)
	// StrokePath strokes an SVG path with a line of the given width.
	StrokePath(path []byte, color string, width float64)
	// FillRects fills rectangles, given as x, y, width and height in
	// turn: many of one colour cost one call, and no path text.
	FillRects(rects []float64, color string)
	// StrokeRects outlines rectangles, given as FillRects takes them,
	// with a line of the given width.
	StrokeRects(rects []float64, color string, width float64)
	// Text draws s with its baseline's left, centre or right end (align)
	// at x, y.
	Text(s string, x, y float64, font, color string, align textAlign)
	// TextWidth measures s in font.
	TextWidth(s, font string) float64
}

type textAlign uint8

const (
	alignLeft textAlign = iota
	alignCenter
	alignRight
)

// Fonts of the timeline.
const (
	fontSmall = "11px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
	fontLabel = "12px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
	fontTiny  = "bold 9px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
	fontBold  = "600 12px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
)

// Point is a position on the canvas, in CSS pixels.
type Point struct {
	X, Y float64
	In   bool // the pointer is over the canvas
}

// timeline draws frames of the model on a canvas: a time axis, the
// waiting queue by priority, one lane per worker slot, key or holder with
// a bar per task, the counter tracks, a now-line, an outline around the
// selected task and a tooltip for the task under the pointer, over any
// window of time, from microseconds to hours. What is narrower than a
// pixel is drawn once per pixel, so that a frame of a 200,000-task trace
// costs about what one of a few hundred does. It keeps its buffers from
// frame to frame, so that drawing allocates little. It is used by one
// goroutine at a time.
type timeline struct {
	compact bool

	// Per frame, reused.
	g           geometry // the last Draw's, which DrawMore draws over
	chips       int      // the queue's chips' hits, first in hits
	fills, caps pathSet
	edges       pathSet // outlines of the bars whose fill is soft
	nEdges      int     // outlines this frame
	grid        []byte
	stripes     []byte // the lanes' stripes, as last drawn
	hits        []hit
	rows        []laneRow
	rowOf       map[int]int // lane ID -> row
	queue       [maxQueueRows][]int
	queueRows   []core.Priority // highest first
	queueFold   bool            // the last queue row holds lower priorities too
	queueNone   bool            // a loaded trace in which no task waited: no queue rows, no waiting track
	chipTexts   []barLabel      // the weights written on the queue's chips this frame
	reserved    int             // rows of the lanes band this frame: its lanes, or the most the run can have
	index       laneIndex       // a loaded trace's tasks by lane, for large traces
	bars        barCache        // a large loaded trace's bars, as last drawn
	queueSnap   *trace.Snapshot // the loaded trace whose queue rows are laid out
	queueN      int
	activeSnap  *trace.Snapshot // the loaded trace whose lanes with tasks are in active
	activeN     int
	active      map[int]bool
	peakSnap    *trace.Snapshot // the loaded trace whose track peaks are known
	peaks       []int64
	tracks      []*trackPaths

	// MinLabel is the narrowest the lane labels' column is drawn, so that
	// two timelines drawn one above the other (a comparison's) share
	// their plot's left edge, and so one time axis; OwnLabel is the
	// width the last frame's labels asked for. The frame goroutine sets
	// MinLabel between frames.
	MinLabel, OwnLabel float64
	// MaxLaneH, when not 0, is the tallest a lane is drawn, and MinPeaks
	// the least top of each counter track's scale, so that a
	// comparison's two timelines draw their lanes and tracks to one
	// scale; OwnLaneH and OwnPeaks are what the last frame's own run
	// asked for. The frame goroutine sets them between frames.
	MaxLaneH, OwnLaneH float64
	laneH              float64 // the lanes' height as last drawn
	MinPeaks, OwnPeaks [3]int64

	// Selected is the ID of the task selected by a tap, a click or the
	// keyboard, or 0; the frame goroutine sets it between frames.
	Selected uint64
	selRect  [4]float64 // where the selected task was drawn; selShown if it was
	selShown bool
	plotL    float64 // the plot's left edge in the last frame
	plotR    float64

	// Results of the last Draw.
	Height float64 // the canvas height the frame needed
	Bars   int     // task bars drawn
	// Slowly, set by the page's frame loop, has the bars of a large
	// trace's first window found a few rows a frame (firstBarsBudget).
	// Partial is set when the frame drew only some rows' bars: the next
	// frame draws more. Again is set by a caller that draws a frame again
	// (at another height): it finds no more of them. SizeFirst, set by
	// the page's frame loop, has a frame that needs another height than
	// the canvas's draw nothing (Unsized) and say the height, for the
	// loop to size the canvas and draw once.
	Slowly, Partial, Again bool
	SizeFirst, Unsized     bool
	Lanes                  int // lanes drawn (placeholders included)
	// RunRows are the rows of a Go execution trace's goroutines and procs
	// drawn (Frame.Loaded), a "+N more lanes" row included.
	RunRows int
	Hover   *trace.Task
	Ticks   []string // the time axis's labels
	// Wide lists the tasks drawn across several rows (Semaphore holders of
	// several tokens), at most maxWide: "name:row label+row label...@x y",
	// x y being the centre of its first bar.
	Wide []string
}

// hit is where a task was drawn, for the pointer.
type hit struct {
	x0, y0, x1, y1 float64
	task           int // index in the frame's Snap.Tasks
}

// laneRow is one row of the lanes band: a slot, or a key with every
// lifetime of its lane (a key's lane is made again after an eviction).
type laneRow struct {
	label   string
	lanes   []*trace.Lane // by creation; none for a slot not used yet
	summary bool          // the "+N more lanes" row
}

// evicted reports whether the row's latest lane was evicted.
func (r *laneRow) evicted() bool {
	return len(r.lanes) > 0 && !r.lanes[len(r.lanes)-1].Evicted.IsZero()
}

const (
	maxQueueRows   = 5
	maxQueueLevels = 64 // distinct waiting priorities looked at per frame
	axisH          = 22
	queueRowH      = 16
	trackH         = 30
	trackGap       = 6
	bandGap        = 8
	chipW, chipH   = 8, 10
	chipGap        = 2
	maxHits        = 20_000
	maxBarLabels   = 200
	maxWide        = 20
)

func newTimeline(compact bool) *timeline {
	return &timeline{compact: compact, rowOf: make(map[int]int)}
}

// geometry is the layout of one frame.
type geometry struct {
	w, h         float64
	plotL, plotR float64
	from, to     time.Duration
	origin       time.Time
	originNs     int64 // origin in Unix nanoseconds, for xn
	queueTop     float64
	laneTop      float64
	laneH        float64
	trackTop     float64
	tracks       int
}

func (g *geometry) x(d time.Duration) float64 {
	span := float64(g.to - g.from)
	if span <= 0 {
		return g.plotL
	}
	return g.plotL + float64(d-g.from)/span*(g.plotR-g.plotL)
}

func (g *geometry) xt(t time.Time) float64 { return g.x(t.Sub(g.origin)) }

// xn is xt of a time in Unix nanoseconds.
func (g *geometry) xn(ns int64) float64 { return g.x(time.Duration(ns - g.originNs)) }

// timeAt returns the time at x pixels.
func (g *geometry) timeAt(x float64) time.Time {
	if g.plotR <= g.plotL {
		return g.origin.Add(g.from)
	}
	d := g.from + time.Duration((x-g.plotL)/(g.plotR-g.plotL)*float64(g.to-g.from))
	return g.origin.Add(d)
}

// Draw draws frame f on a canvas w CSS pixels wide and returns the height
// the frame needs; the caller resizes the canvas when it differs from the
// current height, h. The pointer at mouse gets the tooltip of the task
// under it, which t.Hover keeps until the next Draw (its texts are f.Snap's).
func (t *timeline) Draw(p painter, f Frame, w, h float64, mouse Point) float64 {
	snap := f.Snap
	g := geometry{w: w, from: f.From, to: f.To, origin: f.Origin, originNs: f.Origin.UnixNano()}
	t.layoutQueue(snap, f.Levels, f.Replay, f.Loaded)
	t.layoutLanes(f, &g)
	labelW := t.labelWidth(p, snap, w)
	t.OwnLabel = labelW
	labelW = max(labelW, t.MinLabel)
	g.plotL, g.plotR = labelW, max(labelW+40, w-14)
	t.plotL, t.plotR = g.plotL, g.plotR
	g.queueTop = axisH + 4
	g.laneTop = g.queueTop + float64(len(t.queueRows))*queueRowH + bandGap
	g.tracks = 2
	if k := sim.KindOf(f.Primitive); k != nil && k.Keys || (f.Replay && snap.Stats.Lanes > 0) {
		g.tracks = 3
	}
	if t.queueNone {
		g.tracks-- // no waiting track
	}
	g.trackTop = g.laneTop + float64(t.reserved)*g.laneH + bandGap
	g.h = g.trackTop + float64(g.tracks)*(trackH+trackGap) + 4
	t.Height = math.Ceil(g.h)
	if t.Unsized = t.SizeFirst && t.Height != h; t.Unsized {
		return t.Height
	}

	t.g = g
	t.hits = t.hits[:0]
	t.Bars, t.Lanes, t.Hover, t.Wide, t.Partial = 0, len(t.rows), nil, t.Wide[:0], false
	t.selShown = false
	p.Clear(colBackground)
	t.drawLaneBackgrounds(p, &g, snap)
	t.drawAxis(p, &g, f)
	t.drawQueue(p, &g, f)
	t.drawBars(p, &g, f)
	if !t.Partial {
		t.drawTracks(p, &g, f) // else after the last rows' bars (DrawMore)
	}
	t.drawNow(p, &g, f)
	t.drawSelected(p)
	t.drawHover(p, &g, f, mouse)
	return t.Height
}

// labelWidth returns the width of the label column: wide enough for the
// longest lane, queue and track label, within a third of the canvas.
func (t *timeline) labelWidth(p painter, snap *trace.Snapshot, w float64) float64 {
	least := 128.0
	if t.compact {
		least = 112
	}
	widest := 0.0
	for _, r := range t.rows {
		label := r.label
		if r.evicted() {
			label += " (evicted)"
		}
		widest = max(widest, p.TextWidth(label, fontLabel))
	}
	for r, prio := range t.queueRows {
		widest = max(widest, p.TextWidth(t.queueLabel(r, prio), fontSmall))
	}
	limit := ""
	if snap.Stats.Limit > 0 {
		limit = " / " + strconv.FormatInt(snap.Stats.Limit, 10)
	}
	widest = max(widest, p.TextWidth("tokens in use 00000"+limit, fontSmall))
	return math.Ceil(min(max(least, widest+22), max(least, w/3)))
}

// queueLabel is the label of queue row r, of priority prio.
func (t *timeline) queueLabel(r int, prio core.Priority) string {
	n := len(t.queue[r])
	label := priorityName(prio)
	if t.queueFold && r == len(t.queueRows)-1 {
		label += " and lower"
	}
	if !t.compact && prio >= core.Low && prio <= core.High && !t.queueFold {
		label += " waiting" // other levels' names are long enough
	}
	if n > 0 {
		label += " · " + formatCount(n)
	}
	return label
}

// drawSelected outlines the selected task, where it was drawn.
func (t *timeline) drawSelected(p painter) {
	if !t.selShown {
		return
	}
	r := t.selRect
	var outline []byte
	outline = appendRect(outline, r[0]-2.5, r[1]-2.5, r[2]-r[0]+5, r[3]-r[1]+5)
	p.StrokePath(outline, colSelect, 2.5)
}

// noteSelected remembers where task x was drawn if it is the selected one.
// A task drawn in several places (a holder of several tokens) is
// outlined around all of them.
func (t *timeline) noteSelected(x *trace.Task, x0, y0, x1, y1 float64) {
	if t.Selected != 0 && x.ID == t.Selected {
		if r := t.selRect; t.selShown {
			x0, y0, x1, y1 = min(x0, r[0]), min(y0, r[1]), max(x1, r[2]), max(y1, r[3])
		}
		t.selRect = [4]float64{x0, y0, x1, y1}
		t.selShown = true
	}
}

// layoutQueue sorts the waiting tasks into rows by priority, highest on
// top: High, Normal and Low always when the run's levels are those, or
// every level when there are few enough, and any other priority that
// waits. Beyond maxQueueRows rows, the last row takes every lower
// priority too (queueFold). A loaded trace's loader found its waiting
// tasks (lo, when settled), which the layout then looks at alone.
func (t *timeline) layoutQueue(snap *trace.Snapshot, levels []core.Priority, replay bool, lo *loaded) {
	if replay && t.queueSnap == snap && t.queueN == len(snap.Tasks) {
		return // a loaded trace does not change
	}
	t.queueSnap, t.queueN = nil, 0
	if replay {
		t.queueSnap, t.queueN = snap, len(snap.Tasks)
	}
	// The tasks that wait, by index: every task's state is looked at
	// unless the loader of a trace found them.
	pending := func(yield func(i int) bool) {
		if replay && lo != nil && lo.settled {
			for _, i := range lo.pending {
				if !yield(int(i)) {
					return
				}
			}
			return
		}
		for i := range snap.Tasks {
			if snap.Tasks[i].State == core.TaskPending && !yield(i) {
				return
			}
		}
	}
	// A trace in which no task waited (another tool's, whose slices start
	// as they begin) has no queue to show.
	if replay && lo != nil && lo.settled {
		t.queueNone = lo.noWaits
	} else {
		t.queueNone = replay && !traceWaited(snap)
	}
	rows := t.queueRows[:0]
	switch {
	case t.queueNone:
	case classicLevels(levels):
		rows = append(rows, core.Low, core.Normal, core.High)
	case len(levels) <= maxQueueRows:
		rows = append(rows, levels...)
	}
	for i := range pending {
		x := &snap.Tasks[i]
		if j, found := slices.BinarySearch(rows, x.Priority); !found && len(rows) < maxQueueLevels {
			rows = slices.Insert(rows, j, x.Priority)
		}
	}
	slices.Reverse(rows)
	t.queueFold = len(rows) > maxQueueRows
	if t.queueFold {
		rows = rows[:maxQueueRows]
	}
	t.queueRows = rows
	for i := range t.queue {
		t.queue[i] = t.queue[i][:0]
	}
	for i := range pending {
		x := &snap.Tasks[i]
		// Rows are highest first: the task's row is the first whose
		// priority is not above its own, or the last.
		row, _ := slices.BinarySearchFunc(rows, x.Priority, func(r, p core.Priority) int { return cmp.Compare(p, r) })
		t.queue[min(row, len(rows)-1)] = append(t.queue[min(row, len(rows)-1)], i)
	}
	for r := range t.queueRows {
		q := t.queue[r]
		byEnqueued := func(a, b int) int { return snap.Tasks[a].Enqueued.Compare(snap.Tasks[b].Enqueued) }
		if !slices.IsSortedFunc(q, byEnqueued) { // as a run's tasks mostly are
			slices.SortStableFunc(q, byEnqueued)
		}
	}
}

// layoutLanes chooses the rows of the lanes band: the worker slots (all of
// them up to the limit, used or not) in slot order, then the key lanes in
// order of creation, dropping evicted lanes with nothing in the window
// first when there are more than fit.
// activeLanes returns the lanes snap's tasks ran on: for a loaded trace,
// which does not change, found once rather than at every frame.
func (t *timeline) activeLanes(snap *trace.Snapshot, replay bool) map[int]bool {
	if replay && t.activeSnap == snap && t.activeN == len(snap.Tasks) {
		return t.active
	}
	active := make(map[int]bool)
	for i := range snap.Tasks {
		active[snap.Tasks[i].Lane] = true
	}
	t.activeSnap, t.activeN, t.active = nil, 0, active
	if replay {
		t.activeSnap, t.activeN = snap, len(snap.Tasks)
	}
	return active
}

func (t *timeline) layoutLanes(f Frame, g *geometry) {
	snap := f.Snap
	maxRows := 64
	if t.compact {
		maxRows = 14
	}
	t.rows = t.rows[:0]
	clear(t.rowOf)
	slots := 0
	if k := sim.KindOf(f.Primitive); !f.Replay && f.Limit > 0 && k != nil && !k.Keys && !k.HasGroups() {
		slots = min(f.Limit, maxRows)
	}
	var slotLanes, keyLanes, runLanes []*trace.Lane
	for i := range snap.Lanes {
		l := &snap.Lanes[i]
		if lo := f.Loaded; lo != nil && lo.runFrom > 0 && l.ID >= lo.runFrom {
			runLanes = append(runLanes, l)
		} else if l.Slot >= 0 {
			slotLanes = append(slotLanes, l)
		} else {
			keyLanes = append(keyLanes, l)
		}
	}
	slices.SortFunc(slotLanes, func(a, b *trace.Lane) int { return cmp.Compare(a.Slot, b.Slot) })
	for _, l := range slotLanes {
		slots = max(slots, l.Slot+1)
	}
	bySlot := make(map[int]*trace.Lane, len(slotLanes))
	for _, l := range slotLanes {
		bySlot[l.Slot] = l
	}
	slotName := "slot"
	if k := sim.KindOf(f.Primitive); k != nil && k.Tokens {
		slotName = "token" // a holder of w tokens takes w rows
	}
	for s := 0; s < slots; s++ {
		l := bySlot[s]
		label := slotName + " " + strconv.Itoa(s+1)
		if f.Replay && l != nil {
			label = l.Name
		}
		row := laneRow{label: label}
		if l != nil {
			row.lanes = []*trace.Lane{l}
		}
		t.rows = append(t.rows, row)
	}
	if len(t.rows)+len(keyLanes) > maxRows && slices.ContainsFunc(keyLanes, func(l *trace.Lane) bool { return !l.Evicted.IsZero() }) {
		// Keep the live lanes and the ones with something in the window
		// (the tasks' lanes, which only an evicted lane needs).
		active := t.activeLanes(snap, f.Replay)
		kept := keyLanes[:0]
		for _, l := range keyLanes {
			if l.Evicted.IsZero() || active[l.ID] {
				kept = append(kept, l)
			}
		}
		keyLanes = kept
	}
	// One row per key, in the keys' natural order: device-2 before
	// device-10, each consumer's handler goroutines together.
	slices.SortStableFunc(keyLanes, func(a, b *trace.Lane) int { return naturalCompare(a.Key, b.Key) })
	for _, l := range keyLanes {
		if n := len(t.rows); n > 0 && l.Key != "" && len(t.rows[n-1].lanes) > 0 && t.rows[n-1].lanes[0].Key == l.Key {
			t.rows[n-1].lanes = append(t.rows[n-1].lanes, l)
			continue
		}
		label := l.Name
		if label == "" {
			label = l.Key
		}
		t.rows = append(t.rows, laneRow{label: label, lanes: []*trace.Lane{l}})
	}
	runRows := 0
	if len(runLanes) > 0 {
		runRows = min(len(runLanes), max(maxRows*2/5, 5))
	}
	if keep := maxRows - runRows; len(t.rows) > keep {
		more := len(t.rows) - (keep - 1)
		t.rows = append(t.rows[:keep-1], laneRow{label: "+" + formatCount(more) + " more lanes", summary: true})
	}
	taskRows := len(t.rows)
	t.rows = appendRunRows(t.rows, runLanes, runRows)
	t.RunRows = len(t.rows) - taskRows
	if len(t.rows) == 0 {
		t.rows = append(t.rows, laneRow{label: "no lanes yet"})
	}
	for i, r := range t.rows {
		for _, l := range r.lanes {
			t.rowOf[l.ID] = i
		}
	}
	// The rows the run can have are reserved from the first frame.
	n := max(len(t.rows), min(f.Lanes, maxRows))
	t.reserved = n
	switch {
	case t.compact && n <= 8:
		g.laneH = 20
	case t.compact:
		g.laneH = 14
	case n <= 12:
		g.laneH = 24
	case n <= 24:
		g.laneH = 18
	default:
		g.laneH = 13
	}
	t.OwnLaneH = g.laneH
	if t.MaxLaneH > 0 {
		g.laneH = min(g.laneH, t.MaxLaneH)
	}
	t.laneH = g.laneH
}

func (t *timeline) drawLaneBackgrounds(p painter, g *geometry, snap *trace.Snapshot) {
	// The stripes in one path: one call to the canvas, not one a row.
	t.stripes = t.stripes[:0]
	for i := 0; i < len(t.rows); i += 2 {
		t.stripes = appendRect(t.stripes, 0, g.laneTop+float64(i)*g.laneH, g.w, g.laneH)
	}
	p.FillPath(t.stripes, colStripe)
	for i, r := range t.rows {
		y := g.laneTop + float64(i)*g.laneH
		for j, l := range r.lanes {
			if l.Evicted.IsZero() {
				continue
			}
			x0, x1 := max(g.plotL, g.xt(l.Evicted)), g.plotR
			if j+1 < len(r.lanes) && !r.lanes[j+1].Created.IsZero() {
				x1 = min(x1, g.xt(r.lanes[j+1].Created))
			}
			if x1 > x0 {
				p.FillRect(x0, y, x1-x0, g.laneH, colEvicted)
			}
		}
	}
	// Labels.
	for i, r := range t.rows {
		y := g.laneTop + float64(i)*g.laneH + g.laneH/2 + 4
		color := colText
		if len(r.lanes) == 0 || r.evicted() || r.summary {
			color = colMuted
		}
		font := fontLabel
		if g.laneH < 16 {
			font = fontSmall
		}
		label := r.label
		if r.evicted() {
			label += " (evicted)"
		}
		p.Text(t.fit(p, label, font, g.plotL-14), 8, y, font, color, alignLeft)
	}
	// Queue labels.
	for r, prio := range t.queueRows {
		y := g.queueTop + float64(r)*queueRowH + queueRowH - 3
		n := len(t.queue[r])
		label := t.queueLabel(r, prio)
		color := colMuted
		if n > 0 {
			color = colText
		}
		p.Text(t.fit(p, label, fontSmall, g.plotL-14), 8, y, fontSmall, color, alignLeft)
	}
}

// fit shortens s to fit width in font. What follows a label's last " · "
// (a foreign trace's "· depth 2", a Go trace's queue's "· slot 3") or its
// " (evicted)" tells apart lanes whose names begin alike, so it is kept
// whole and the part before it is cut (a "process / " first), while a
// rune of that part fits; else s is cut at its end.
func (t *timeline) fit(p painter, s, font string, width float64) string {
	if p.TextWidth(s, font) <= width {
		return s
	}
	if head, tail := labelSuffix(s); tail != "" {
		// A foreign trace's "process / thread": the lanes of a thread's
		// depths lie under its own, which names the process.
		if i := strings.LastIndex(head, " / "); i >= 0 {
			head = head[i+len(" / "):]
		}
		r := []rune(head)
		for n := len(r) - 1; n >= 1; n-- {
			c := strings.TrimRight(string(r[:n]), " ") + "…" + tail
			if p.TextWidth(c, font) <= width {
				return c
			}
		}
	}
	r := []rune(s)
	for n := len(r) - 1; n > 1; n-- {
		c := string(r[:n]) + "…"
		if p.TextWidth(c, font) <= width {
			return c
		}
	}
	return "…"
}

// labelSuffix splits a label before the part that tells it apart from
// lanes of the same name: its " (evicted)", or what follows its last
// " · ". tail is "" when there is none.
func labelSuffix(s string) (head, tail string) {
	if h, ok := strings.CutSuffix(s, " (evicted)"); ok && h != "" {
		return h, " (evicted)"
	}
	if i := strings.LastIndex(s, " · "); i > 0 {
		return s[:i], s[i:]
	}
	return s, ""
}

// tickSteps are the time axis's tick intervals, from a microsecond to a
// day.
var tickSteps = []time.Duration{
	time.Microsecond, 2 * time.Microsecond, 5 * time.Microsecond,
	10 * time.Microsecond, 20 * time.Microsecond, 50 * time.Microsecond,
	100 * time.Microsecond, 200 * time.Microsecond, 500 * time.Microsecond,
	time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond,
	10 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
}

// tickStep returns a tick interval that puts ticks at least minPx apart.
func tickStep(span time.Duration, px, minPx float64) time.Duration {
	if px <= 0 || span <= 0 {
		return time.Second
	}
	for _, s := range tickSteps {
		if float64(s)/float64(span)*px >= minPx {
			return s
		}
	}
	return tickSteps[len(tickSteps)-1]
}

// axisStep returns the tick interval of the time axis: ticks far enough
// apart for their labels, at least 64 pixels.
func (t *timeline) axisStep(p painter, g *geometry) time.Duration {
	span, px := g.to-g.from, g.plotR-g.plotL
	step := tickStep(span, px, 64)
	for i := slices.Index(tickSteps, step); i >= 0 && i < len(tickSteps); i++ {
		step = tickSteps[i]
		room := float64(step) / float64(max(span, 1)) * px
		if room >= p.TextWidth(formatTick(g.to, step), fontSmall)+16 {
			break
		}
	}
	return step
}

func (t *timeline) drawAxis(p painter, g *geometry, f Frame) {
	step := t.axisStep(p, g)
	// A label the clock's badge would cover is left out (its grid line
	// stays), so that "0s" and "0.33s" never print over each other.
	bx0, bx1 := math.Inf(1), math.Inf(-1)
	if lx, w, _, ok := nowBadge(p, g, f); ok {
		bx0, bx1 = lx-4, lx+w+4
	}
	first := floorDur(g.from, step)
	if first < g.from {
		first += step
	}
	t.grid = t.grid[:0]
	t.Ticks = t.Ticks[:0]
	bottom := g.trackTop + float64(g.tracks)*(trackH+trackGap)
	for d := first; d <= g.to; d += step {
		x := math.Round(g.x(d)) + 0.5
		if x < g.plotL-0.5 || x > g.plotR+0.5 {
			continue
		}
		t.grid = appendRect(t.grid, x-0.5, axisH-4, 1, bottom-axisH+4)
		label := formatTick(d, step)
		if hw := p.TextWidth(label, fontSmall) / 2; x+hw > bx0 && x-hw < bx1 {
			continue
		}
		t.Ticks = append(t.Ticks, label)
		p.Text(label, x, axisH-8, fontSmall, colAxis, alignCenter)
	}
	p.FillPath(t.grid, colGrid)
	p.FillRect(g.plotL, axisH-1, g.plotR-g.plotL, 1, colGrid)
}

func (t *timeline) drawQueue(p painter, g *geometry, f Frame) {
	t.fills.reset()
	width := g.plotR - g.plotL
	for r := range t.queueRows {
		q := t.queue[r]
		y := g.queueTop + float64(r)*queueRowH + (queueRowH-chipH)/2
		cx := g.plotL
		shown := 0
		for _, i := range q {
			x := &f.Snap.Tasks[i]
			w := chipWidth(x.Weight)
			// Room is kept for the "+N" of those that do not fit.
			if cx+w > g.plotL+width-moreW && shown < len(q)-1 || cx+w > g.plotL+width {
				break
			}
			fill := taskShade(&f, x).strong
			t.fills.rect(fill, cx, y, w, chipH)
			if x.Weight > 1 {
				// A waiter of several tokens is as wide as that many
				// (up to maxChipUnits) and says how many.
				t.chipTexts = append(t.chipTexts, barLabel{cx + w/2, y + chipH - 1, "×" + strconv.FormatInt(x.Weight, 10), textOn(fill)})
			}
			t.addHit(cx, y, cx+w, y+chipH, i)
			t.noteSelected(x, cx, y, cx+w, y+chipH)
			cx += w + chipGap
			shown++
		}
		if shown < len(q) {
			p.Text("+"+formatCount(len(q)-shown), cx+2, y+chipH-1, fontSmall, colAxis, alignLeft)
		}
	}
	t.fills.flush(p)
	for _, l := range t.chipTexts {
		p.Text(l.s, l.x, l.y, fontTiny, l.color, alignCenter)
	}
	t.chipTexts = t.chipTexts[:0]
}

// chipWidth is the width of a waiting task's chip in the queue: one unit
// per token it asks for, up to maxChipUnits.
func chipWidth(weight int64) float64 {
	n := float64(min(max(weight, 1), maxChipUnits))
	return n*chipW + (n-1)*chipGap
}

// Bounds of the queue's chips: the widest chip, in units of one token's,
// and the room kept for the "+N" of the chips that do not fit.
const (
	maxChipUnits = 4
	moreW        = 44
)

func (t *timeline) addHit(x0, y0, x1, y1 float64, task int) {
	if len(t.hits) < maxHits {
		t.hits = append(t.hits, hit{x0, y0, x1, y1, task})
	}
}

// barLabel is a task's name drawn on its bar.
type barLabel struct {
	x, y  float64
	s     string
	color string
}

// barPass is the state of one frame's drawing of the bars.
type barPass struct {
	t      *timeline
	g      *geometry
	f      Frame
	now    time.Time
	pad    float64
	last   []float64 // per row, the last pixel column drawn
	labels []barLabel
	runs   []barRun // per row, plain bars that touch, drawn as one

	nowNs, fromNs int64   // now and the window's start, in Unix nanoseconds
	scale         float64 // pixels per nanosecond
}

// barRun is a rectangle of touching bars of one colour in one row.
type barRun struct {
	x0, x1, y, h float64
	fill, edge   string
}

// flush draws row's run, if any.
func (b *barPass) flush(row int) {
	if r := &b.runs[row]; r.fill != "" {
		b.t.fills.rect(r.fill, r.x0, r.y, r.x1-r.x0, r.h)
		b.t.edge(r.edge, r.x0, r.y, r.x1-r.x0, r.h)
		r.fill = ""
	}
}

// edge outlines a bar of a soft fill in colour, so that every bar stands
// out from the background at 3:1 or more (WCAG 1.4.11), as its strong
// colour does; "" draws none.
//
// Bars narrower than minEdgeW go without: a sliver is drawn by its fill
// alone, and a large trace zoomed out is thousands of them, whose outlines
// would cost more than the bars. So do the outlines past maxEdges in a
// frame.
func (t *timeline) edge(color string, x, y, w, h float64) {
	if color != "" && w >= minEdgeW && h >= 3 && t.nEdges < maxEdges {
		t.nEdges++
		t.edges.rect(color, x+0.5, y+0.5, w-1, h-1)
	}
}

// Bounds on the bars' outlines.
const (
	minEdgeW = 6
	maxEdges = 1500
)

// draw draws task i of the frame's snapshot on its row, and reports the
// time up to which the next task of the row would share its pixel, or the
// zero time when it does not matter.
func (b *barPass) draw(i, row int, startNs, endNs int64) (skipTo int64) {
	t, g, x := b.t, b.g, &b.f.Snap.Tasks[i]
	if endNs == openEnd {
		endNs = b.nowNs
	}
	if x.Lanes.Len() > 1 {
		b.drawWide(i, startNs, endNs)
		return noSkip
	}
	x0, x1 := b.xns(startNs), b.xns(endNs)
	if x1 < g.plotL || x0 > g.plotR {
		return noSkip
	}
	x0, x1 = max(x0, g.plotL), min(x1, g.plotR)
	if x1-x0 < 1 {
		// Whatever starts before the next pixel column is drawn by this
		// one: a thousand tasks narrower than a pixel cost one rectangle.
		skipTo = b.nsAt(math.Floor(x0) + 1)
		if math.Floor(x0) <= b.last[row] {
			return skipTo
		}
		x1 = x0 + 1
	}
	b.last[row] = math.Floor(x1)
	if x1-x0 > 4 && !x.Ended.IsZero() {
		x1-- // a gap, so that back-to-back tasks read as separate bars
	}
	y := g.laneTop + float64(row)*g.laneH + b.pad
	h := g.laneH - 2*b.pad
	fill, cap, edge := b.shade(x)
	if r := &b.runs[row]; cap == "" && r.fill == fill && r.y == y && x0 <= r.x1+0.5 {
		r.x1 = max(r.x1, x1)
	} else {
		b.flush(row)
		if cap == "" {
			*r = barRun{x0, x1, y, h, fill, edge}
		} else {
			t.fills.rect(fill, x0, y, x1-x0, h)
			t.edge(edge, x0, y, x1-x0, h)
			cw := min(3, x1-x0)
			t.caps.rect(cap, x1-cw, y, cw, h)
		}
	}
	t.addHit(x0, y, x1, y+h, i)
	t.noteSelected(x, x0, y, x1, y+h)
	t.Bars++
	b.label(x, x0, x1, y, h, fill)
	return skipTo
}

// shade returns the fill of task x's bar, the colour of its end cap or
// "", and the colour of its outline or "": a running task's bar is its
// strong colour, an ended one's soft, outlined in the strong colour.
func (b *barPass) shade(x *trace.Task) (fill, cap, edge string) {
	sh := taskShade(&b.f, x)
	if _, other := isRun(x.ID); other {
		sh = shadeUnknown // a goroutine's run outside any sluice task
	}
	fill, edge = sh.soft, sh.strong
	switch x.State {
	case core.TaskRunning:
		fill, edge = sh.strong, ""
	case core.TaskFailed:
		cap = colFailed
	case core.TaskPanicked:
		cap = colPanicked
	case core.TaskCanceled:
		fill, cap, edge = colCanceledBg, colCanceled, colCanceled
	}
	return fill, cap, edge
}

// label writes task x's name on its bar, if it fits.
func (b *barPass) label(x *trace.Task, x0, x1, y, h float64, fill string) {
	if x1-x0 >= 34 && h >= 11 && len(b.labels) < maxBarLabels {
		name := b.f.Snap.Text(x.Name)
		if x.Weight > 1 {
			name += " ×" + strconv.FormatInt(x.Weight, 10)
		}
		b.labels = append(b.labels, barLabel{x0 + 4, y + h/2 + 4, name, textOn(fill)})
	}
}

// drawWide draws task i, which holds several lanes (a Semaphore holder of
// several tokens), as one bar across each run of adjacent rows it holds,
// labelled once: one bar when its rows are adjacent, as they are unless
// the free tokens were not when it started.
func (b *barPass) drawWide(i int, startNs, endNs int64) {
	t, g, x := b.t, b.g, &b.f.Snap.Tasks[i]
	x0, x1 := b.xns(startNs), b.xns(endNs)
	if x1 < g.plotL || x0 > g.plotR {
		return
	}
	x0, x1 = max(x0, g.plotL), min(max(x1, x0+1), g.plotR)
	if x1-x0 > 4 && !x.Ended.IsZero() {
		x1--
	}
	var rows []int
	for _, id := range b.f.Snap.TaskLanes(x) {
		if r, ok := t.rowOf[id]; ok {
			rows = append(rows, r)
		}
	}
	slices.Sort(rows)
	fill, cap, edge := b.shade(x)
	note := len(t.Wide) < maxWide // for the page's data-wide, which tests read
	var wide, at string
	if note {
		wide = b.f.Snap.Text(x.Name) + ":"
	}
	for j := 0; j < len(rows); {
		k := j
		for k+1 < len(rows) && rows[k+1] == rows[k]+1 {
			k++
		}
		y := g.laneTop + float64(rows[j])*g.laneH + b.pad
		h := float64(rows[k]-rows[j]+1)*g.laneH - 2*b.pad
		t.fills.rect(fill, x0, y, x1-x0, h)
		t.edge(edge, x0, y, x1-x0, h)
		if cap != "" {
			cw := min(3, x1-x0)
			t.caps.rect(cap, x1-cw, y, cw, h)
		}
		t.addHit(x0, y, x1, y+h, i)
		t.noteSelected(x, x0, y, x1, y+h)
		if j == 0 {
			b.label(x, x0, x1, y, h, fill)
			if note {
				at = "@" + strconv.FormatFloat((x0+x1)/2, 'f', 1, 64) + " " + strconv.FormatFloat(y+h/2, 'f', 1, 64)
			}
		}
		for r := rows[j]; r <= rows[k]; r++ {
			b.last[r] = max(b.last[r], math.Floor(x1))
			if note && r > rows[0] {
				wide += "+" + t.rows[r].label
			} else if note {
				wide += t.rows[r].label
			}
		}
		j = k + 1
	}
	t.Bars++
	if note {
		t.Wide = append(t.Wide, wide+at)
	}
}

// Marks of barPass.draw's arguments and result.
const (
	openEnd = math.MaxInt64 // the task is open: it ends now
	noSkip  = math.MinInt64 // nothing to skip
)

// xns returns the x of a time in Unix nanoseconds.
func (b *barPass) xns(ns int64) float64 {
	return b.g.plotL + float64(ns-b.fromNs)*b.scale
}

// nsAt returns the time at x, in Unix nanoseconds.
func (b *barPass) nsAt(x float64) int64 {
	return b.fromNs + int64(math.Ceil((x-b.g.plotL)/b.scale))
}

// newBarPass returns a pass over the bars of frame f, drawn in g.
func (t *timeline) newBarPass(g *geometry, f Frame) *barPass {
	b := &barPass{t: t, g: g, f: f, now: f.Origin.Add(f.Now), pad: max(2, math.Floor(g.laneH/6))}
	b.nowNs = b.now.UnixNano()
	b.fromNs = f.Origin.Add(g.from).UnixNano()
	b.scale = (g.plotR - g.plotL) / float64(max(g.to-g.from, 1))
	b.last = make([]float64, len(t.rows))
	for i := range b.last {
		b.last[i] = -1
	}
	b.runs = make([]barRun, len(t.rows))
	return b
}

func (t *timeline) drawBars(p painter, g *geometry, f Frame) {
	snap := f.Snap
	t.fills.reset()
	t.caps.reset()
	t.edges.reset()
	t.nEdges = 0
	b := t.newBarPass(g, f)
	// The queue's chips came first: their hits and selection are kept.
	key, hits0, sel0, shown0 := t.barKey(g, f), len(t.hits), t.selRect, t.selShown
	t.chips = hits0
	marked := len(t.rows) // rows whose lanes' markers are drawn
	if c := &t.bars; f.Replay && len(snap.Tasks) > indexFrom {
		// A large loaded trace. Its bars are found once for a window and
		// drawn again as they were while only the pointer moves. On the
		// page (Slowly), the first window of a trace is found a few rows
		// a frame, within firstBarsBudget, from the frame after the one
		// that lays it out and draws its lanes and axis (the counter
		// tracks come in the frame after the last rows'), so that no task
		// of the page's thread holds them all; a later window (a zoom)
		// all at once.
		fresh := false
		if c.key != key {
			c.start(key, t.Slowly && c.key.snap != snap)
			fresh = c.slowly
		}
		switch {
		case c.done < len(t.rows) && !(c.slowly && t.Again) && !fresh:
			t.findBars(b, c, hits0)
		case c.done == len(t.rows):
			c.tracks = true // found by an earlier frame: the tracks now
		}
		c.draw(p)
		t.selRect, t.selShown = sel0, shown0
		t.useBars(c)
		b.labels = c.labels
		marked = c.done // DrawMore draws those of the rows it finds
	} else {
		for i := range snap.Tasks {
			x := &snap.Tasks[i]
			if x.Lane < 0 || x.Started.IsZero() {
				continue
			}
			if row, ok := t.rowOf[x.Lane]; ok {
				end := int64(openEnd)
				if !x.Ended.IsZero() {
					end = x.Ended.UnixNano()
				}
				b.draw(i, row, x.Started.UnixNano(), end)
			}
		}
	}
	for row := range b.runs {
		b.flush(row)
	}
	t.fills.flush(p)
	t.edges.stroke(p, true)
	t.caps.flush(p)
	t.drawMarkers(p, g, 0, marked)
	drawLabels(p, b.labels)
}

// useBars makes the bars c holds the frame's: their hits after the
// queue's chips', their count, the selected task's outline if it is
// among them, and whether rows are left to find.
func (t *timeline) useBars(c *barCache) {
	t.hits = append(t.hits[:t.chips], c.hits[:min(len(c.hits), maxHits-t.chips)]...)
	t.Bars = c.bars
	if c.selShown {
		t.selRect, t.selShown = c.selRect, true
	}
	t.Partial = c.done < len(t.rows) || !c.tracks
}

// drawLabels draws the task names written in bars.
func drawLabels(p painter, labels []barLabel) {
	for _, l := range labels {
		p.Text(l.s, l.x, l.y, fontSmall, l.color, alignLeft)
	}
}

// DrawMore draws, over what the canvas shows, the bars of the next rows
// of a large trace's first window that the last Draw or DrawMore left to
// find (Partial), for a frame that would otherwise draw what the last one
// did (the same frame, window, size and selection, no pointer over the
// canvas: the page's frame loop checks). Drawing those rows alone, it
// costs the browser their rasterizing, not that of every bar found so
// far, which a Draw of a 200,000-task trace's window takes some 25 ms
// for. Once every row's are drawn, the next DrawMore draws the counter
// tracks.
func (t *timeline) DrawMore(p painter, f Frame) {
	g, c := &t.g, &t.bars
	if c.done == len(t.rows) {
		// Every row's bars are drawn: the counter tracks, alone.
		t.drawTracks(p, g, f)
		c.tracks, t.Partial = true, false
		t.drawNow(p, g, f)
		return
	}
	from := c.done
	t.fills.reset()
	t.caps.reset()
	t.edges.reset()
	t.hits = t.hits[:t.chips]
	b := t.newBarPass(g, f)
	t.findBars(b, c, t.chips)
	nb := &c.batches[len(c.batches)-1]
	nb.fills.fill(p)
	nb.edges.stroke(p, false)
	nb.caps.fill(p)
	t.useBars(c)
	t.drawMarkers(p, g, from, c.done)
	drawLabels(p, b.labels)
	t.drawNow(p, g, f)
	t.drawSelected(p)
}

// drawMarkers draws the created and evicted markers of the lanes of rows
// from to to.
func (t *timeline) drawMarkers(p painter, g *geometry, from, to int) {
	t.fills.reset()
	for i := from; i < to; i++ {
		r := t.rows[i]
		y := g.laneTop + float64(i)*g.laneH
		for _, l := range r.lanes {
			if c := l.Created; !c.IsZero() {
				if x := g.xt(c); x >= g.plotL && x <= g.plotR {
					t.fills.rect(colCreated, x-1, y+2, 2, g.laneH-4)
				}
			}
			if e := l.Evicted; !e.IsZero() {
				if x := g.xt(e); x >= g.plotL && x <= g.plotR {
					t.fills.rect(colAxis, x-1, y+2, 2, g.laneH-4)
				}
			}
		}
	}
	t.fills.flush(p)
}

// barCache holds the bars drawBars drew of a loaded trace, and what it
// noted of them, to draw them again while key stays: a pointer that moves
// over a large trace costs no pass over its tasks. It holds the bars of
// the first done rows; a window's first frames may find them a few rows
// at a time (slowly).
type barCache struct {
	key    barKey
	done   int  // rows whose bars are found
	slowly bool // find them within firstBarsBudget a frame
	// batches are the bars found by each frame that found some (one,
	// unless slowly): drawn as they are, each batch's paths are made
	// once (canvasPainter keeps them), where one set growing each frame
	// would be made anew each frame.
	batches  []barBatch
	nEdges   int
	hits     []hit
	labels   []barLabel
	bars     int
	selRect  [4]float64
	selShown bool
	// tracks is set once the counter tracks are drawn with these bars:
	// at once, or, when the bars are found slowly, by the DrawMore after
	// the one that found the last rows (a frame of their own: a large
	// trace's tracks take some 20 ms).
	tracks bool
}

// barBatch is bars found in one frame, by colour.
type barBatch struct {
	fills, caps, edges pathSet
}

func (b *barBatch) clear() {
	b.fills.clear()
	b.caps.clear()
	b.edges.clear()
}

// draw draws the bars c holds: every batch's fills, outlines, then end
// caps.
func (c *barCache) draw(p painter) {
	for i := range c.batches {
		c.batches[i].fills.fill(p)
	}
	for i := range c.batches {
		c.batches[i].edges.stroke(p, false)
	}
	for i := range c.batches {
		c.batches[i].caps.fill(p)
	}
}

// firstBarsBudget is the time a frame spends finding the bars of a large
// trace's first window, after the first row. Tests set it.
var firstBarsBudget = 8 * time.Millisecond

// start empties c for the bars of key, to be found slowly or not.
func (c *barCache) start(key barKey, slowly bool) {
	c.key, c.done, c.slowly, c.tracks = key, 0, slowly, !slowly
	for i := range c.batches {
		c.batches[i].clear()
	}
	c.batches = c.batches[:0]
	c.nEdges, c.bars = 0, 0
	c.hits, c.labels = c.hits[:0], c.labels[:0]
	c.selShown = false
}

// findBars finds the bars of the rows of a large trace that c does not
// hold yet, or as many as firstBarsBudget allows when c finds them
// slowly, and adds them to c. t.hits holds the queue's chips' hits up to
// hits0; b is the frame's pass, which the caller draws c's labels with.
func (t *timeline) findBars(b *barPass, c *barCache, hits0 int) {
	snap := b.f.Snap
	// Each lane's tasks in order of start, so that the window and the
	// pixels are found by binary search.
	t.index.use(b.f.Loaded, snap)
	t.index.build(snap)
	from, to := b.g.timeAt(b.g.plotL), b.g.timeAt(b.g.plotR)
	t.selShown = false
	t.Bars, t.nEdges = 0, c.nEdges
	until := time.Now().Add(firstBarsBudget)
	for row, first := c.done, c.done; row < len(t.rows); row++ {
		if c.slowly && row > first && !time.Now().Before(until) {
			break
		}
		for _, l := range t.rows[row].lanes {
			t.index.each(l.ID, from, to, func(i int, s, e int64) int64 { return b.draw(i, row, s, e) })
		}
		b.flush(row)
		c.done = row + 1
	}
	if len(c.batches) < cap(c.batches) {
		c.batches = c.batches[:len(c.batches)+1] // the sets of an earlier window
	} else {
		c.batches = append(c.batches, barBatch{})
	}
	nb := &c.batches[len(c.batches)-1]
	nb.fills.add(&t.fills)
	nb.caps.add(&t.caps)
	nb.edges.add(&t.edges)
	c.nEdges = t.nEdges
	c.hits = append(c.hits, t.hits[hits0:]...)
	c.labels = append(c.labels, b.labels...)
	c.bars += t.Bars
	if t.selShown {
		c.selRect, c.selShown = t.selRect, true
	}
}

// barKey is what the bars of a loaded trace depend on.
type barKey struct {
	snap           *trace.Snapshot
	tasks, rows    int
	lanes          string // the rows' first lanes
	from, to       time.Duration
	plotL, plotR   float64
	laneTop, laneH float64
	colorBy        string
	selected       uint64
	now            time.Duration
}

func (t *timeline) barKey(g *geometry, f Frame) barKey {
	var lanes []byte
	for _, r := range t.rows {
		if len(r.lanes) > 0 {
			lanes = strconv.AppendInt(lanes, int64(r.lanes[0].ID), 10)
		}
		lanes = append(lanes, ',')
	}
	return barKey{f.Snap, len(f.Snap.Tasks), len(t.rows), string(lanes), g.from, g.to, g.plotL, g.plotR,
		g.laneTop, g.laneH, f.ColorBy, t.Selected, f.Now}
}

// drawTracks draws the counter tracks: the queue depth, the work in flight
// against the limit, and for a keyed queue the live lanes.
func (t *timeline) drawTracks(p painter, g *geometry, f Frame) {
	snap := f.Snap
	type track struct {
		name  string
		data  []trace.Sample
		limit bool
	}
	inFlight := track{"running", snap.Counters[trace.TrackRunning], true}
	if k := sim.KindOf(f.Primitive); k != nil && k.Tokens || (f.Replay && snap.Stats.MaxInUse > int64(snap.Stats.MaxRunning)) {
		inFlight = track{"tokens in use", snap.Counters[trace.TrackInUse], true}
	}
	tracks := []track{{"waiting", snap.Counters[trace.TrackWaiting], false}, inFlight}
	if t.queueNone {
		tracks = tracks[1:]
	}
	if len(tracks) < g.tracks {
		tracks = append(tracks, track{"live lanes", snap.Counters[trace.TrackLanes], false})
	}
	limits := snap.Counters[trace.TrackLimit]
	for i, tr := range tracks {
		top := g.trackTop + float64(i)*(trackH+trackGap)
		bottom := top + trackH
		p.FillRect(g.plotL, top, g.plotR-g.plotL, trackH, colStripe)
		peak := t.peak(f, i, tr.data, tr.limit, limits)
		y := func(v int64) float64 { return bottom - float64(v)/float64(peak)*(trackH-4) }
		key := pathKey{f.Snap, g.from, g.to, g.plotL, g.plotR, top, peak}
		c := t.trackCache(i)
		if !f.Replay || c.key != key {
			// A loaded trace's tracks are drawn again only when the
			// window moves, not when the pointer does.
			area, line := t.stepPath(g, f, tr.data, y, bottom)
			c.area, c.line, c.limit = append(c.area[:0], area...), append(c.line[:0], line...), c.limit[:0]
			if tr.limit && len(limits) > 0 {
				_, ll := t.stepPath(g, f, limits, y, bottom)
				c.limit = append(c.limit, ll...)
			}
			c.key = key
			if !f.Replay {
				c.key = pathKey{}
			}
		}
		p.FillPath(c.area, colTrackFill)
		p.StrokePath(c.line, colTrackLine, 1.5)
		if len(c.limit) > 0 {
			p.StrokePath(c.limit, colLimit, 1)
		}
		cur := int64(0)
		if n := len(tr.data); n > 0 {
			cur = tr.data[n-1].Value
		}
		label := tr.name + " " + strconv.FormatInt(cur, 10)
		if tr.limit && snap.Stats.Limit > 0 {
			label += " / " + strconv.FormatInt(snap.Stats.Limit, 10)
		}
		p.Text(t.fit(p, label, fontSmall, g.plotL-14), 8, top+trackH/2+4, fontSmall, colText, alignLeft)
		// The scale's top, left of the plot, where the now-line, the
		// grid and the track's own line never reach.
		p.Text(strconv.FormatInt(peak, 10), g.plotL-4, top+9, fontSmall, colMuted, alignRight)
	}
}

// pathKey is what a counter track's path depends on, in a loaded trace.
type pathKey struct {
	snap         *trace.Snapshot
	from, to     time.Duration
	plotL, plotR float64
	top          float64
	peak         int64
}

// trackPaths are a counter track's paths as last drawn.
type trackPaths struct {
	key               pathKey
	area, line, limit []byte
}

// trackCache returns the paths of counter track i as last drawn.
func (t *timeline) trackCache(i int) *trackPaths {
	for len(t.tracks) <= i {
		t.tracks = append(t.tracks, &trackPaths{})
	}
	return t.tracks[i]
}

// peak returns the highest value of counter track i of the frame (with
// the limit's, if limit): the top of its scale. A loaded trace's peaks are
// found once.
func (t *timeline) peak(f Frame, i int, data []trace.Sample, limit bool, limits []trace.Sample) int64 {
	if f.Replay && t.peakSnap == f.Snap && i < len(t.peaks) {
		return t.peaks[i]
	}
	peak := int64(1)
	for _, s := range data {
		peak = max(peak, s.Value)
	}
	if limit {
		for _, s := range limits {
			peak = max(peak, s.Value)
		}
	}
	if i < len(t.OwnPeaks) {
		t.OwnPeaks[i] = peak
		peak = max(peak, t.MinPeaks[i])
	}
	if f.Replay {
		if t.peakSnap != f.Snap {
			t.peakSnap, t.peaks = f.Snap, t.peaks[:0]
		}
		if i == len(t.peaks) {
			t.peaks = append(t.peaks, peak)
		}
	}
	return peak
}

// stepPath returns the outline of a counter track's samples as a filled
// area and as a line, from the window's start to now.
func (t *timeline) stepPath(g *geometry, f Frame, data []trace.Sample, y func(int64) float64, bottom float64) (area, line []byte) {
	area = t.caps.buf(0)
	line = t.caps.buf(1)
	if len(data) == 0 {
		return area, line
	}
	end := min(g.x(f.Now), g.plotR)
	// From the last sample at or before the window's start.
	from := g.timeAt(g.plotL)
	fromNs := from.UnixNano()
	i0 := max(sort.Search(len(data), func(i int) bool { return data[i].UnixNano > fromNs })-1, 0)
	x0 := max(g.xn(data[i0].UnixNano), g.plotL)
	if x0 >= end {
		return area, line
	}
	cur := y(data[i0].Value)
	area = appendCmd(area, 'M', x0, bottom)
	line = appendCmd(line, 'M', x0, cur)
	area = appendCmd(area, 'L', x0, cur)
	both := func(cmd byte, n float64) {
		area = appendCmd(area, cmd, n)
		line = appendCmd(line, cmd, n)
	}
	// Samples that fall in one pixel column are drawn as that column's
	// extremes and its last value: a path of a few commands per pixel,
	// however many samples there are.
	col := math.Floor(x0)
	hi, lo, last := cur, cur, cur
	flush := func() {
		for _, v := range [...]float64{hi, lo, last} {
			if v != cur {
				both('V', v)
				cur = v
			}
		}
	}
	for i := i0 + 1; i < len(data); {
		x := g.xn(data[i].UnixNano)
		if x > end {
			break
		}
		x = max(x, g.plotL)
		if c := math.Floor(x); c != col {
			flush()
			both('H', x)
			col = c
			v := y(data[i].Value)
			hi, lo, last = v, v, v
			i++
		}
		// The column's other samples at once, found by binary search and
		// compared by value only.
		limit := g.timeAt(col + 1).UnixNano()
		j := i + sort.Search(len(data)-i, func(k int) bool { return data[i+k].UnixNano >= limit })
		if j == i && i < len(data) && math.Floor(max(g.xn(data[i].UnixNano), g.plotL)) == col {
			j = i + 1 // rounding put it in this column after all
		}
		if j > i {
			vmin, vmax := data[i].Value, data[i].Value
			for _, s := range data[i+1 : j] {
				vmin, vmax = min(vmin, s.Value), max(vmax, s.Value)
			}
			hi, lo, last = min(hi, y(vmax)), max(lo, y(vmin)), y(data[j-1].Value)
		}
		i = j
	}
	flush()
	area = appendCmd(area, 'H', end)
	area = appendCmd(area, 'V', bottom)
	area = append(area, 'Z')
	line = appendCmd(line, 'H', end)
	t.caps.keep(0, area)
	t.caps.keep(1, line)
	return area, line
}

func (t *timeline) drawNow(p painter, g *geometry, f Frame) {
	lx, w, label, ok := nowBadge(p, g, f)
	if !ok {
		return
	}
	x := math.Round(g.x(f.Now))
	bottom := g.trackTop + float64(g.tracks)*(trackH+trackGap) - trackGap
	p.FillRect(x-1, axisH-2, 2, bottom-axisH+2, colNow)
	p.FillRect(lx, 2, w, 15, colNow)
	p.Text(label, lx+w/2, 13, fontSmall, "#ffffff", alignCenter)
}

// nowBadge places the clock's badge above the axis: its left edge, width
// and label, and whether the clock is in view at all.
func nowBadge(p painter, g *geometry, f Frame) (lx, w float64, label string, ok bool) {
	x := math.Round(g.x(f.Now))
	if x < g.plotL-1 || x > g.plotR+1 {
		return 0, 0, "", false
	}
	label = formatClock(f.Now.Round(10 * time.Millisecond))
	if f.Replay {
		label = "end"
	}
	w = p.TextWidth(label, fontSmall) + 10
	return min(max(x-w/2, g.plotL), g.plotR-w), w, label, true
}

// drawHover outlines the task under the pointer and draws its tooltip.
func (t *timeline) drawHover(p painter, g *geometry, f Frame, m Point) {
	if !m.In {
		return
	}
	i := t.hitAt(m.X, m.Y)
	if i < 0 {
		return
	}
	h := t.hits[i]
	x := &f.Snap.Tasks[h.task]
	hover := *x
	t.Hover = &hover
	var outline []byte
	for _, o := range t.hits {
		// Every bar of the task: a holder of several tokens may have two.
		if o == h || o.task == h.task && x.Lanes.Len() > 1 {
			outline = appendRect(outline, o.x0-1.5, o.y0-1.5, o.x1-o.x0+3, o.y1-o.y0+3)
		}
	}
	p.StrokePath(outline, colHover, 1.5)

	lines := tooltipLines(x, f, !f.Replay)
	width := 0.0
	for i, l := range lines {
		font := fontLabel
		if i == 0 {
			font = fontBold
		}
		width = max(width, p.TextWidth(l, font))
	}
	bw, bh := width+20, float64(len(lines))*17+10
	bx, by := m.X+14, m.Y+14
	if bx+bw > g.w-4 {
		bx = m.X - 14 - bw
	}
	if by+bh > t.Height-4 {
		by = max(4, m.Y-14-bh)
	}
	bx = max(4, bx)
	var box []byte
	box = appendRect(box, bx, by, bw, bh)
	p.FillPath(box, colTipBg)
	p.StrokePath(box, colTipLine, 1)
	for i, l := range lines {
		font, color := fontLabel, colText
		if i == 0 {
			font = fontBold
		}
		if strings.HasPrefix(l, "click or tap") {
			color = colAxis
		}
		p.Text(l, bx+10, by+20+float64(i)*17, font, color, alignLeft)
	}
}

// hitAt returns the index in t.hits of what is drawn at x, y, the last
// drawn first, or -1.
func (t *timeline) hitAt(x, y float64) int {
	for i := len(t.hits) - 1; i >= 0; i-- {
		h := t.hits[i]
		if x >= h.x0-1 && x <= h.x1+1 && y >= h.y0-1 && y <= h.y1+1 {
			return i
		}
	}
	return -1
}

// OpenHit returns the centre of the first waiting or running task drawn
// in the last frame and its name, and false if none is drawn.
func (t *timeline) OpenHit(f Frame) (x, y float64, name string, ok bool) {
	for _, h := range t.hits {
		if h.task < len(f.Snap.Tasks) && f.Snap.Tasks[h.task].Open() {
			return (h.x0 + h.x1) / 2, (h.y0 + h.y1) / 2, f.Snap.Text(f.Snap.Tasks[h.task].Name), true
		}
	}
	return 0, 0, "", false
}

// TaskAt returns the name of the task drawn at x, y in the last frame, and
// false if none is.
func (t *timeline) TaskAt(f Frame, x, y float64) (string, bool) {
	i := t.hitAt(x, y)
	if i < 0 || t.hits[i].task >= len(f.Snap.Tasks) {
		return "", false
	}
	return f.Snap.Text(f.Snap.Tasks[t.hits[i].task].Name), true
}

// tooltipLines describes a task for its tooltip.
func tooltipLines(x *trace.Task, f Frame, live bool) []string {
	if run, other := isRun(x.ID); run {
		return runLines(x, f, other)
	}
	snap := f.Snap
	name := snap.Text(x.Name)
	if name == "" {
		name = "task " + strconv.FormatUint(x.ID, 10)
	}
	lines := []string{name + " · " + priorityName(x.Priority) + " · " + stateName(x.State)}
	var facts []string
	if x.Key.Len() > 0 {
		facts = append(facts, "key "+snap.Text(x.Key))
	}
	if x.Weight > 1 {
		facts = append(facts, "weight "+strconv.FormatInt(x.Weight, 10))
	}
	if x.Lanes.Len() > 1 {
		var on []string
		for _, l := range snap.Lanes {
			if slices.Contains(snap.TaskLanes(x), l.ID) {
				on = append(on, l.Name)
			}
		}
		facts = append(facts, "on "+strings.Join(on, ", "))
	}
	if len(facts) > 0 {
		lines = append(lines, strings.Join(facts, " · "))
	}
	now := trace.StampOf(f.Origin.Add(f.Now))
	lines = append(lines, "enqueued at "+formatAt(x.Enqueued.Time().Sub(f.Origin)))
	switch {
	case !x.Started.IsZero():
		run := now
		if !x.Ended.IsZero() {
			run = x.Ended
		}
		lines = append(lines, "waited "+formatSpan(x.Started.Sub(x.Enqueued))+" · ran "+formatSpan(run.Sub(x.Started)))
	case !x.Ended.IsZero():
		lines = append(lines, "waited "+formatSpan(x.Ended.Sub(x.Enqueued))+", never started")
	default:
		lines = append(lines, "waiting for "+formatSpan(now.Sub(x.Enqueued)))
	}
	if x.Err.Len() > 0 {
		lines = append(lines, "error: "+truncate(snap.Text(x.Err), 60))
	}
	if live {
		lines = append(lines, "click or tap for details")
	}
	return lines
}

// pathSet gathers rectangles by colour, so that each colour is filled
// with one call. Its buffers are reused from frame to frame.
type pathSet struct {
	colors []string
	rects  [][]float64 // x, y, w, h of each rectangle of colors[i], in turn
	spare  [2][]byte
}

func (s *pathSet) reset() {
	for i := range s.rects {
		s.rects[i] = s.rects[i][:0]
	}
}

func (s *pathSet) rect(color string, x, y, w, h float64) {
	i := s.slot(color)
	s.rects[i] = append(s.rects[i], x, y, w, h)
}

// slot returns the index of colour's rectangles, taking the colour on,
// with the buffer of a colour clear gave up, when it is new.
func (s *pathSet) slot(color string) int {
	if i := slices.Index(s.colors, color); i >= 0 {
		return i
	}
	s.colors = append(s.colors, color)
	if len(s.rects) < cap(s.rects) {
		s.rects = s.rects[:len(s.rects)+1]
	} else {
		s.rects = append(s.rects, nil)
	}
	i := len(s.colors) - 1
	s.rects[i] = s.rects[i][:0]
	return i
}

// flush fills every colour's rectangles, in the order colours were first
// used.
func (s *pathSet) flush(p painter) {
	for i, c := range s.colors {
		if len(s.rects[i]) > 0 {
			p.FillRects(s.rects[i], c)
			s.rects[i] = s.rects[i][:0]
		}
	}
}

// clear empties s of every colour.
func (s *pathSet) clear() {
	s.reset()
	s.colors, s.rects = s.colors[:0], s.rects[:0]
}

// add adds the rectangles of o to s, colour by colour, and empties o.
func (s *pathSet) add(o *pathSet) {
	for i, c := range o.colors {
		if len(o.rects[i]) == 0 {
			continue
		}
		j := s.slot(c)
		s.rects[j] = append(s.rects[j], o.rects[i]...)
		o.rects[i] = o.rects[i][:0]
	}
}

// stroke outlines every colour's rectangles with a line of 1 pixel, and
// empties them if flush.
func (s *pathSet) stroke(p painter, flush bool) {
	for i, c := range s.colors {
		if len(s.rects[i]) > 0 {
			p.StrokeRects(s.rects[i], c, 1)
			if flush {
				s.rects[i] = s.rects[i][:0]
			}
		}
	}
}

// fill fills every colour's rectangles, as flush does, and keeps them.
func (s *pathSet) fill(p painter) {
	for i, c := range s.colors {
		if len(s.rects[i]) > 0 {
			p.FillRects(s.rects[i], c)
		}
	}
}

// buf returns spare buffer i, emptied; keep returns it after use so its
// capacity is reused.
func (s *pathSet) buf(i int) []byte     { return s.spare[i][:0] }
func (s *pathSet) keep(i int, b []byte) { s.spare[i] = b[:0] }

// appendRects appends rects (see painter.FillRects) to b as an SVG path.
func appendRects(b []byte, rects []float64) []byte {
	for i := 0; i+3 < len(rects); i += 4 {
		b = appendRect(b, rects[i], rects[i+1], rects[i+2], rects[i+3])
	}
	return b
}

func appendRect(b []byte, x, y, w, h float64) []byte {
	b = appendCmd(b, 'M', x, y)
	b = appendCmd(b, 'h', w)
	b = appendCmd(b, 'v', h)
	b = appendCmd(b, 'h', -w)
	return append(b, 'Z')
}

// appendCmd appends an SVG path command with its numbers, to one decimal.
func appendCmd(b []byte, cmd byte, nums ...float64) []byte {
	b = append(b, cmd)
	for i, n := range nums {
		if i > 0 {
			b = append(b, ' ')
		}
		if math.IsNaN(n) || math.IsInf(n, 0) || math.Abs(n) > 1e15 {
			n = 0
		}
		// One decimal, with integer arithmetic: this runs for every
		// shape of every frame.
		tenths := int64(math.Round(n * 10))
		if tenths < 0 {
			b = append(b, '-')
			tenths = -tenths
		}
		b = strconv.AppendInt(b, tenths/10, 10)
		if d := tenths % 10; d != 0 {
			b = append(b, '.', byte('0'+d))
		}
	}
	return b
}

// naturalCompare orders strings with their runs of digits compared as
// numbers: "consumer-2 · 10" after "consumer-2 · 9".
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Compare(len(na), len(nb)); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
