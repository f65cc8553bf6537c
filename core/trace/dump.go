package trace

import (
	"slices"

	"sluice/core"
)

// dump is the whole model in plain form: what WriteJSON writes and
// ReadJSON reads.
type dump struct {
	cfg     Config
	last    int64
	fin     []rec // in the order they ended
	open    []rec // in the order first reported
	lanes   []laneRec
	tracks  [NumTracks][]sample
	log     []logRec
	waits   []waitDump
	buckets []bucket // by idx
	tot     totals
}

type waitDump struct {
	prio  core.Priority
	waits []int64 // oldest first
}

// dump copies the model. It holds the Recorder's mutex.
func (r *Recorder) dump() *dump {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := &dump{cfg: r.cfg, last: r.last, tot: r.tot}
	d.fin = make([]rec, r.fin.len())
	for i := range d.fin {
		d.fin[i] = *r.fin.at(i)
	}
	d.open = make([]rec, 0, len(r.openIdx))
	for _, x := range r.open {
		if x.id != 0 {
			d.open = append(d.open, x)
		}
	}
	d.lanes = slices.Clone(r.lanes)
	for k := range r.tracks {
		tr := &r.tracks[k]
		d.tracks[k] = make([]sample, tr.len())
		for i := range d.tracks[k] {
			d.tracks[k][i] = *tr.at(i)
		}
	}
	d.log = make([]logRec, r.log.len())
	for i := range d.log {
		d.log[i] = *r.log.at(i)
	}
	for _, w := range r.waits {
		wd := waitDump{prio: w.prio, waits: make([]int64, w.waits.len())}
		for i := range wd.waits {
			wd.waits[i] = *w.waits.at(i)
		}
		d.waits = append(d.waits, wd)
	}
	for _, b := range r.buckets {
		if b.idx != noTime {
			d.buckets = append(d.buckets, b)
		}
	}
	slices.SortFunc(d.buckets, func(a, b bucket) int { return cmpInt(a.idx, b.idx) })
	return d
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// restore builds a Recorder holding d, applying d.cfg's bounds the way
// recording would: the last MaxFinished finished tasks, the first MaxOpen
// open ones, the last samples and log entries. Evicted lanes no retained
// task ran on are dropped. Tasks must satisfy enq <= start <= end, and
// open tasks must have distinct ids.
func restore(d *dump, tick func(i, n int)) *Recorder {
	r := NewRecorder(d.cfg)
	last := d.last
	see := func(t int64) {
		if t != noTime {
			last = max(last, t)
		}
	}
	for _, l := range d.lanes {
		l.refs, l.running = 0, 0
		i, found := slices.BinarySearchFunc(r.lanes, l.id, func(l laneRec, id int) int { return l.id - id })
		if !found {
			r.lanes = slices.Insert(r.lanes, i, l)
		}
	}
	// ref counts x on each lane it holds, and as running there if it runs.
	ref := func(x *rec) {
		for _, id := range r.held(x) {
			i, found := slices.BinarySearchFunc(r.lanes, id, func(l laneRec, id int) int { return l.id - id })
			if !found {
				l := laneRec{id: id, name: "", slot: 0, created: noTime, evicted: noTime}
				r.lanes = slices.Insert(r.lanes, i, l)
			}
			r.lanes[i].refs++
			if x.state == core.TaskRunning {
				r.lanes[i].running++
			}
		}
	}
	// The finished ring takes d.fin's array, which is d's alone, rather
	// than copying it: a trace read may hold a million tasks.
	fin := d.fin[max(0, len(d.fin)-r.cfg.MaxFinished):]
	for i := range fin {
		if tick != nil {
			tick(i, len(fin))
		}
		x := &fin[i]
		ref(x)
		see(x.enq)
		see(x.start)
		see(x.end)
		x.endKey = x.end
		if i > 0 {
			x.endKey = max(x.endKey, fin[i-1].endKey)
		}
	}
	r.fin.buf, r.fin.n = fin, len(fin)
	for _, x := range d.open {
		if len(r.openIdx) >= r.cfg.MaxOpen {
			break
		}
		if _, dup := r.openIdx[x.id]; dup || x.id == 0 {
			continue
		}
		see(x.enq)
		see(x.start)
		x.endKey = 0
		r.openIdx[x.id] = len(r.open)
		r.open = append(r.open, x)
		if x.state == core.TaskRunning {
			ref(&x)
			r.running++
			r.inUse += x.weight
		} else {
			r.waiting++
		}
	}
	r.lanes = slices.DeleteFunc(r.lanes, func(l laneRec) bool { return l.refs == 0 && l.evicted != noTime })
	for _, l := range r.lanes {
		see(l.created)
		see(l.evicted)
		r.nextLane = max(r.nextLane, l.id+1)
		if l.evicted != noTime {
			continue
		}
		r.liveLanes++
		if l.slot < 0 {
			r.keyLanes[l.key] = l.id
			r.liveKeyLanes++
		} else {
			r.slotLanes[l.slot] = l.id
		}
	}
	for k := range d.tracks {
		for _, s := range d.tracks[k] {
			see(s.t)
			r.sample(Track(k), s.t, s.v)
		}
	}
	if tr := &r.tracks[TrackLimit]; tr.len() > 0 {
		r.limit = tr.last().v
	}
	for _, l := range d.log {
		see(l.t)
		r.log.push(l)
	}
	for _, w := range d.waits {
		for _, v := range w.waits {
			r.addWait(w.prio, v)
		}
	}
	for _, b := range d.buckets {
		if s := &r.buckets[uint64(b.idx)%nBuckets]; s.idx < b.idx {
			*s = b
		}
	}
	r.tot = d.tot
	r.last = last
	return r
}
