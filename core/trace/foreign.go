package trace

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"sluice/core"
)

// Unshown is what a trace written by another tool holds that the model
// read from it ([ReadJSON]) does not show, and the slices it shows that
// never end.
type Unshown struct {
	// Events counts the events not shown, by kind, most first: "instant",
	// "flow", "async", "counter sample", "sample", "object", "mark",
	// "memory dump", "context", "clock sync", "unmatched end" (an E
	// event with no B before it on its thread) or "other".
	Events []Count
	// Unfinished counts the slices that begin (a B event) and never end
	// in the trace: their tasks are shown running until the trace's last
	// event, and stay open in the model.
	Unfinished int
}

// Count is a number of things of one kind.
type Count struct {
	What string
	N    int
}

// Total returns the number of events not shown.
func (u Unshown) Total() int {
	n := 0
	for _, c := range u.Events {
		n += c.N
	}
	return n
}

// Unshown returns what the trace the Recorder was read from holds that its
// model does not show: zero for a Recorder made by NewRecorder or read
// from a trace that WriteJSON wrote. It does not block beyond the
// Recorder's mutex.
func (r *Recorder) Unshown() Unshown {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.unshown == nil {
		return Unshown{}
	}
	return Unshown{Events: slices.Clone(r.unshown.Events), Unfinished: r.unshown.Unfinished}
}

// phaseKinds names the kinds of events by their phase, as Unshown counts
// them.
var phaseKinds = map[byte]string{
	'i': "instant", 'I': "instant",
	's': "flow", 't': "flow", 'f': "flow",
	'b': "async", 'n': "async", 'e': "async", 'S': "async", 'T': "async", 'p': "async", 'F': "async",
	'C': "counter sample",
	'P': "sample",
	'O': "object", 'N': "object", 'D': "object",
	'R': "mark",
	'V': "memory dump", 'v': "memory dump",
	'(': "context", ')': "context",
	'c': "clock sync",
}

// buildForeign reads another tool's trace: complete events and begin/end
// pairs become tasks, replayed into a default Recorder. Each thread is a
// lane, named by its thread_name (and its process_name, when spans come
// from several processes); a slice nested in another (or overlapping it)
// runs on a lane of its own below its thread's, one per depth, so that no
// two tasks share a lane at once. A slice that never ends runs until the
// trace's last event. What is not shown is counted in the Recorder's
// Unshown.
func (p *parser) buildForeign() (*Recorder, error) {
	inRange := func(t int64) bool { return t >= -maxNano && t < maxNano }
	type span struct {
		name       string
		thread     int32
		start, end int64 // end noTime while open
		lane       int   // index into lanes
		open       bool  // it never ends: end is the trace's
	}
	var spans []span
	stacks := make(map[int32][]int) // open B spans per thread
	threadNames := make(map[int32]string)
	counts := make(map[string]int)
	for ph, n := range p.skipped {
		if n == 0 {
			continue
		}
		what, ok := phaseKinds[byte(ph)]
		if !ok {
			what = "other"
		}
		counts[what] += n
	}
	if n := len(p.counters); n > 0 {
		counts["counter sample"] += n // Sluice's names, another tool's trace
	}
	end := p.lastTs
	p.stage(parseShare, (1-parseShare)*0.15)
	for i := range p.events {
		p.tick(i, len(p.events))
		e := &p.events[i]
		switch e.ph {
		case 'X':
			if !inRange(e.ts) || e.dur >= maxNano || !inRange(e.ts+e.dur) {
				return nil, fmt.Errorf("trace: event %d: time out of range", e.idx)
			}
			spans = append(spans, span{name: e.name, thread: e.thread, start: e.ts, end: e.ts + e.dur})
			end = max(end, e.ts+e.dur)
		case 'B', 'E':
			if !inRange(e.ts) {
				return nil, fmt.Errorf("trace: event %d: time out of range", e.idx)
			}
		}
		switch e.ph {
		case 'B':
			stacks[e.thread] = append(stacks[e.thread], len(spans))
			spans = append(spans, span{name: e.name, thread: e.thread, start: e.ts, end: noTime})
		case 'E':
			st := stacks[e.thread]
			if len(st) == 0 {
				counts["unmatched end"]++
				continue
			}
			s := &spans[st[len(st)-1]]
			s.end = max(e.ts, s.start)
			stacks[e.thread] = st[:len(st)-1]
		case 'i', 'I':
			counts["instant"]++
		case 'M':
			var a struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(e.args, &a) == nil {
				if _, ok := threadNames[e.thread]; !ok {
					threadNames[e.thread] = a.Name
				}
			}
		}
	}
	unfinished := 0
	for i := range spans {
		if spans[i].end == noTime {
			spans[i].end, spans[i].open = max(end, spans[i].start), true
			unfinished++
		}
	}

	// Sorting the slices, laying them out and sorting their starts and
	// ends, in slices of work too: units of the slices' number, about
	// twice over for each sort (runs, then merges), once for the layout.
	p.stage(parseShare+(1-parseShare)*0.15, (1-parseShare)*0.15)
	done, units := 0, 6*len(spans)
	var tick func()
	if p.pause != nil {
		tick = func() {
			done += sortRun
			p.pause(p.stageFrom + p.stageSpan*float64(min(done, units))/float64(max(units, 1)))
		}
	}

	// Lanes: a thread's slices by start, the longer first at one time, each
	// on the lowest depth free at its start; a lane per thread and depth,
	// in order of first use.
	order := make([]int, len(spans))
	for i := range order {
		order[i] = i
	}
	sortStablePausing(order, func(a, b int) int {
		if c := cmp.Compare(spans[a].start, spans[b].start); c != 0 {
			return c
		}
		return cmp.Compare(spans[b].end, spans[a].end)
	}, tick)
	type laneKey struct {
		thread int32
		depth  int
	}
	laneOf := make(map[laneKey]int)
	var lanes []laneKey
	depthEnds := make(map[int32][]int64) // per thread, when each depth is free
	pids := make(map[idVal]bool)
	for n, i := range order {
		if tick != nil && n%sortRun == sortRun-1 {
			tick()
		}
		s := &spans[i]
		ends := depthEnds[s.thread]
		d := slices.IndexFunc(ends, func(t int64) bool { return t <= s.start })
		if d < 0 {
			d = len(ends)
			ends = append(ends, 0)
		}
		// A span that takes no time frees its depth at once.
		ends[d] = max(s.end, s.start+1)
		depthEnds[s.thread] = ends
		k := laneKey{s.thread, d}
		l, ok := laneOf[k]
		if !ok {
			l = len(lanes)
			laneOf[k] = l
			lanes = append(lanes, k)
			pids[p.keys[s.thread].pid] = true
		}
		s.lane = l
	}
	// A thread's depths go together, below it, threads in order of first
	// use.
	threadRank := make(map[int32]int)
	for _, k := range lanes {
		if _, ok := threadRank[k.thread]; !ok {
			threadRank[k.thread] = len(threadRank)
		}
	}
	byRank := make([]int, len(lanes))
	for i := range byRank {
		byRank[i] = i
	}
	slices.SortFunc(byRank, func(a, b int) int {
		if c := cmp.Compare(threadRank[lanes[a].thread], threadRank[lanes[b].thread]); c != 0 {
			return c
		}
		return cmp.Compare(lanes[a].depth, lanes[b].depth)
	})
	slot := make([]int, len(lanes))
	sorted := make([]laneKey, len(lanes))
	for i, l := range byRank {
		slot[l] = i
		sorted[i] = lanes[l]
	}
	lanes = sorted
	for i := range spans {
		spans[i].lane = slot[spans[i].lane]
	}

	// At equal times: ends of spans that took time, then starts, then
	// ends of empty spans, so that a lane is free before it is reused.
	type step struct {
		t    int64
		rank int
		task int // index in order
		end  bool
	}
	steps := make([]step, 0, 2*len(spans))
	for id, i := range order {
		s := spans[i]
		steps = append(steps, step{s.start, 1, id, false})
		if !s.open {
			rank := 0
			if s.end == s.start {
				rank = 2
			}
			steps = append(steps, step{s.end, rank, id, true})
		}
	}
	sortStablePausing(steps, func(a, b step) int {
		if c := cmpInt(a.t, b.t); c != 0 {
			return c
		}
		return a.rank - b.rank
	}, tick)
	// Keep every task, and every sample of the counters they make (each
	// start and end moves the running and in-use tracks).
	r := NewRecorder(Config{MaxFinished: len(spans), MaxSamples: 2*len(spans) + 1, MaxLanes: len(lanes)})
	// Room for every task and for the running and in-use tracks' samples
	// (one a start or an end, at most), made once: growing them copies
	// tens of megabytes at once, in one stretch of a page's thread.
	r.fin.reserve(len(spans))
	r.tracks[TrackRunning].reserve(2*len(spans) + 1)
	r.tracks[TrackInUse].reserve(2*len(spans) + 1)
	for i := range lanes {
		r.newLane("", i, noTime, 0) // in slot order, which is the lanes' order
	}
	p.stage(parseShare+(1-parseShare)*0.3, (1-parseShare)*0.7)
	for i, st := range steps {
		p.tick(i, len(steps))
		s := spans[order[st.task]]
		e := core.Event{Kind: core.Started, Time: time.Unix(0, st.t), Task: uint64(st.task) + 1,
			Name: s.name, Weight: 1, Lane: s.lane}
		if st.end {
			if s.open {
				continue // still running at the trace's end
			}
			e.Kind = core.Finished
		}
		r.Observe(e)
	}
	multi := len(pids) > 1
	for i := range r.lanes {
		l := &r.lanes[i]
		if l.slot < 0 || l.slot >= len(lanes) {
			continue
		}
		k := lanes[l.slot]
		name, ok := threadNames[k.thread]
		key := p.keys[k.thread]
		if !ok || name == "" {
			name = "thread " + idString(key.tid)
		}
		if multi {
			proc, ok := p.procNames[key.pid]
			if !ok || proc == "" {
				proc = "process " + idString(key.pid)
			}
			name = proc + " / " + name
		}
		if k.depth > 0 {
			name += " · depth " + strconv.Itoa(k.depth)
		}
		l.name = name
	}
	if p.seenTs || len(spans) > 0 {
		r.last = max(r.last, end)
	}
	u := &Unshown{Unfinished: unfinished}
	for what, n := range counts {
		u.Events = append(u.Events, Count{what, n})
	}
	slices.SortFunc(u.Events, func(a, b Count) int {
		if a.N != b.N {
			return cmp.Compare(b.N, a.N)
		}
		return cmp.Compare(a.What, b.What)
	})
	r.unshown = u
	return r, nil
}

// idString writes a pid or tid as the trace gave it.
func idString(v idVal) string {
	if v.str {
		return v.s
	}
	return strconv.FormatInt(v.n, 10)
}
