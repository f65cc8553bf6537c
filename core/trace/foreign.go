package trace

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"sluice/core"
)

// buildForeign reads another tool's trace: complete events and begin/end
// pairs become tasks, replayed into a default Recorder.
func (p *parser) buildForeign() (*Recorder, error) {
	inRange := func(t int64) bool { return t >= -maxNano && t < maxNano }
	type span struct {
		name       string
		thread     int32
		start, end int64 // end noTime while open
	}
	var spans []span
	stacks := make(map[int32][]int) // open B spans per thread
	threadNames := make(map[int32]string)
	p.stage(parseShare, (1-parseShare)*0.3)
	for i := range p.events {
		p.tick(i, len(p.events))
		e := &p.events[i]
		switch e.ph {
		case 'X':
			if !inRange(e.ts) || e.dur >= maxNano || !inRange(e.ts+e.dur) {
				return nil, fmt.Errorf("trace: event %d: time out of range", e.idx)
			}
			spans = append(spans, span{e.name, e.thread, e.ts, e.ts + e.dur})
		case 'B', 'E':
			if !inRange(e.ts) {
				return nil, fmt.Errorf("trace: event %d: time out of range", e.idx)
			}
		}
		switch e.ph {
		case 'B':
			stacks[e.thread] = append(stacks[e.thread], len(spans))
			spans = append(spans, span{e.name, e.thread, e.ts, noTime})
		case 'E':
			st := stacks[e.thread]
			if len(st) == 0 {
				continue
			}
			s := &spans[st[len(st)-1]]
			s.end = max(e.ts, s.start)
			stacks[e.thread] = st[:len(st)-1]
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

	// Threads become slots in order of their first span.
	slotOf := make(map[int32]int)
	threadOf := []int32{}
	for _, s := range spans {
		if _, ok := slotOf[s.thread]; !ok {
			slotOf[s.thread] = len(threadOf)
			threadOf = append(threadOf, s.thread)
		}
	}
	order := make([]int, len(spans))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmpInt(spans[a].start, spans[b].start) })

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
		if s.end != noTime {
			rank := 0
			if s.end == s.start {
				rank = 2
			}
			steps = append(steps, step{s.end, rank, id, true})
		}
	}
	slices.SortStableFunc(steps, func(a, b step) int {
		if c := cmpInt(a.t, b.t); c != 0 {
			return c
		}
		return a.rank - b.rank
	})
	// Keep every task, and every sample of the counters they make (each
	// start and end moves the running and in-use tracks).
	r := NewRecorder(Config{MaxFinished: len(spans), MaxSamples: 2*len(spans) + 1})
	p.stage(parseShare+(1-parseShare)*0.3, (1-parseShare)*0.7)
	for i, st := range steps {
		p.tick(i, len(steps))
		s := spans[order[st.task]]
		e := core.Event{Kind: core.Started, Time: time.Unix(0, st.t), Task: uint64(st.task) + 1,
			Name: s.name, Weight: 1, Lane: slotOf[s.thread]}
		if st.end {
			e.Kind = core.Finished
		}
		r.Observe(e)
	}
	for i := range r.lanes {
		l := &r.lanes[i]
		if l.slot >= 0 && l.slot < len(threadOf) {
			if name, ok := threadNames[threadOf[l.slot]]; ok && name != "" {
				l.name = name
			}
		}
	}
	return r, nil
}
