package gotrace

import (
	"cmp"
	"slices"
	"strconv"

	"sluice/wasm/gotrace/golanes"
)

// The bounds of the goroutine and proc lanes.
const (
	// MaxGoroutineLanes is how many goroutines that ran sluice tasks get
	// a lane each; beyond it, they share rows ("goroutines · row 1"), a
	// goroutine keeping one row from its first sluice task to its last.
	MaxGoroutineLanes = 16
	// MaxRuns is how many runs the goroutine and proc lanes draw, the
	// latest.
	MaxRuns = 100_000
)

// span is a sluice task's run on its goroutine.
type span struct {
	start, end int64
	num        uint64 // the task's number on the timeline
}

// goLanes makes the goroutine and proc lanes of the tasks drawn (byNum,
// indexed by timeline number from 1; nil entries are not drawn): a lane
// per goroutine that ran one of them (or shared rows, see
// MaxGoroutineLanes), then a lane per proc, from the first drawn task's
// start on. A goroutine's run is cut where a task's run region begins or
// ends; the cuts outside any task have Task 0.
// It returns how many goroutines ran the tasks drawn, and how many runs
// were left out beyond MaxRuns.
func goLanes(runs []goRun, byNum []*task, last int64) (l golanes.Lanes, goroutines, cut int) {
	spans := map[uint64][]span{} // by goroutine
	from := int64(-1)
	for num, t := range byNum {
		if t == nil || !t.started || t.g == 0 {
			continue
		}
		end := t.runEnd
		switch {
		case end == 0 && t.ended:
			end = t.end
		case end == 0:
			end = last
		}
		spans[t.g] = append(spans[t.g], span{t.run, max(end, t.run), uint64(num)})
		if from < 0 || t.run < from {
			from = t.run
		}
	}
	if len(spans) == 0 {
		return golanes.Lanes{}, 0, 0
	}
	gs := make([]uint64, 0, len(spans))
	for g, s := range spans {
		slices.SortFunc(s, func(a, b span) int { return cmp.Compare(a.start, b.start) })
		gs = append(gs, g)
	}
	slices.Sort(gs)
	laneOf := make(map[uint64]int, len(gs))
	if len(gs) <= MaxGoroutineLanes {
		for _, g := range gs {
			laneOf[g] = len(l.Names)
			l.Names = append(l.Names, "goroutine "+strconv.FormatUint(g, 10))
		}
	} else {
		// Rows, each goroutine on the lowest row free over its life.
		slices.SortFunc(gs, func(a, b uint64) int { return cmp.Compare(spans[a][0].start, spans[b][0].start) })
		var free []int64 // each row's end
		for _, g := range gs {
			s := spans[g]
			life0, life1 := s[0].start, s[len(s)-1].end
			for _, x := range s {
				life1 = max(life1, x.end)
			}
			row := slices.IndexFunc(free, func(end int64) bool { return end < life0 })
			if row < 0 {
				row = len(free)
				free = append(free, 0)
				l.Names = append(l.Names, "goroutines · row "+strconv.Itoa(row+1))
			}
			free[row] = life1
			laneOf[g] = row
		}
	}
	var procs []int64
	for _, r := range runs {
		if r.end > from && r.p >= 0 && !slices.Contains(procs, r.p) {
			procs = append(procs, r.p)
		}
	}
	slices.Sort(procs)
	procLane := make(map[int64]int, len(procs))
	for _, p := range procs {
		procLane[p] = len(l.Names)
		l.Names = append(l.Names, "proc "+strconv.FormatInt(p, 10))
	}
	emit := func(r goRun, start, end int64, num uint64) {
		if end <= start {
			return
		}
		if lane, ok := laneOf[r.g]; ok {
			l.Runs = append(l.Runs, golanes.Run{Lane: lane, Start: start, End: end, Task: num, G: r.g, P: r.p})
		}
		if r.p >= 0 {
			l.Runs = append(l.Runs, golanes.Run{Lane: procLane[r.p], Start: start, End: end, Task: num, G: r.g, P: r.p})
		}
	}
	// Each goroutine's tasks in order of start, and those open (begun,
	// not ended) at the last run seen: a run is cut where a task begins or
	// ends, and each piece goes to the innermost task open.
	type walk struct {
		i    int
		open []span
	}
	walks := make(map[uint64]*walk, len(spans))
	for _, r := range runs {
		s := spans[r.g]
		w := walks[r.g]
		if w == nil {
			w = &walk{}
			walks[r.g] = w
		}
		popTo := func(t int64) {
			for n := len(w.open); n > 0 && w.open[n-1].end <= t; n-- {
				w.open = w.open[:n-1]
			}
		}
		for ; w.i < len(s) && s[w.i].start < r.start; w.i++ {
			popTo(s[w.i].start)
			w.open = append(w.open, s[w.i])
		}
		popTo(r.start)
		if r.end <= from {
			continue
		}
		at := r.start
		to := func(t int64) { // emits the pieces from at to t
			for n := len(w.open); n > 0 && w.open[n-1].end <= t; n-- {
				top := w.open[n-1]
				emit(r, at, top.end, top.num)
				at = max(at, top.end)
				w.open = w.open[:n-1]
			}
			num := uint64(0)
			if n := len(w.open); n > 0 {
				num = w.open[n-1].num
			}
			emit(r, at, t, num)
			at = max(at, t)
		}
		for ; w.i < len(s) && s[w.i].start < r.end; w.i++ {
			to(s[w.i].start)
			w.open = append(w.open, s[w.i])
		}
		to(r.end)
	}
	slices.SortStableFunc(l.Runs, func(a, b golanes.Run) int { return cmp.Compare(a.Start, b.Start) })
	if len(l.Runs) > MaxRuns {
		cut = len(l.Runs) - MaxRuns
		l.Runs = l.Runs[cut:]
	}
	return l, len(gs), cut
}
