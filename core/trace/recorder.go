package trace

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"sluice/core"
)

// Config bounds what a [Recorder] keeps, so that its memory stays bounded
// however long it records. The zero value, or any field at zero or below,
// means the default; a field above its maximum is lowered to the maximum.
type Config struct {
	// Name is the process name in the JSON trace; default "sluice".
	Name string
	// SlotName names the slot lanes, numbered from 1: "slot 1", "slot 2"
	// and so on by default; "token" names a Semaphore's lanes "token 1"...
	SlotName string
	// MaxFinished is how many finished tasks are kept; the ones that
	// ended first are dropped first. Default 10,000, at most 1<<20.
	MaxFinished int
	// MaxOpen is how many waiting or running tasks are tracked; tasks
	// reported beyond it are counted in Stats.Dropped and not drawn.
	// Default 100,000, at most 1<<20.
	MaxOpen int
	// MaxSamples is how many samples each counter track keeps; the
	// oldest are dropped first. Default 10,000, at most 1<<20.
	MaxSamples int
	// MaxLanes is how many live lanes are kept (evicted lanes are kept
	// only while a retained task ran on them). Tasks that would need a
	// lane beyond it get Lane -1. Default 4,096, at most 1<<16.
	MaxLanes int
	// MaxLog is how many events the event log keeps. Default 100, at
	// most 1<<16.
	MaxLog int
	// WaitSamples is how many of the last started tasks of each priority
	// the wait-time percentiles summarize; at most 64 priorities are
	// tracked. Default 1,000, at most 1<<16.
	WaitSamples int
	// ThroughputWindow is the window over which Stats.Throughput is
	// measured. Default 10s, between 1ms and 24h.
	ThroughputWindow time.Duration
}

// The defaults and maxima of Config.
const (
	defaultName        = "sluice"
	defaultMaxFinished = 10_000
	defaultMaxOpen     = 100_000
	defaultMaxSamples  = 10_000
	defaultMaxLanes    = 4_096
	defaultMaxLog      = 100
	defaultWaitSamples = 1_000
	defaultWindow      = 10 * time.Second
	maxBig             = 1 << 20 // MaxFinished, MaxOpen, MaxSamples
	maxSmall           = 1 << 16 // MaxLanes, MaxLog, WaitSamples
	minWindow          = time.Millisecond
	maxWindow          = 24 * time.Hour
	maxPriorities      = 64
	nBuckets           = 32 // throughput steps per window
)

func bound(v, def, hi int) int {
	if v <= 0 {
		return def
	}
	return min(v, hi)
}

// normalized returns c with defaults and maxima applied.
func (c Config) normalized() Config {
	if c.Name == "" {
		c.Name = defaultName
	}
	if c.SlotName == "" {
		c.SlotName = "slot"
	}
	c.MaxFinished = bound(c.MaxFinished, defaultMaxFinished, maxBig)
	c.MaxOpen = bound(c.MaxOpen, defaultMaxOpen, maxBig)
	c.MaxSamples = bound(c.MaxSamples, defaultMaxSamples, maxBig)
	c.MaxLanes = bound(c.MaxLanes, defaultMaxLanes, maxSmall)
	c.MaxLog = bound(c.MaxLog, defaultMaxLog, maxSmall)
	c.WaitSamples = bound(c.WaitSamples, defaultWaitSamples, maxSmall)
	switch {
	case c.ThroughputWindow <= 0:
		c.ThroughputWindow = defaultWindow
	case c.ThroughputWindow < minWindow:
		c.ThroughputWindow = minWindow
	case c.ThroughputWindow > maxWindow:
		c.ThroughputWindow = maxWindow
	}
	return c
}

// Times are kept as Unix nanoseconds in [-2^62, 2^62), years 1823 to
// 2116, so that any difference of two of them fits an int64; times outside
// are clamped.
const (
	noTime  = math.MinInt64 // unset
	maxNano = 1 << 62
)

func nanos(t time.Time) int64 {
	switch {
	case t.Before(time.Unix(0, -maxNano)):
		return -maxNano
	case !t.Before(time.Unix(0, maxNano)):
		return maxNano - 1
	}
	return t.UnixNano()
}

func timeOf(ns int64) time.Time {
	if ns == noTime {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}

// rec is a task of the model.
type rec struct {
	id     uint64
	name   string
	key    string
	err    string
	prio   core.Priority
	weight int64
	lane   int
	lanes  []int // every lane it holds, lane first, if more than one; never changed once set
	state  core.TaskState
	enq    int64
	start  int64 // noTime if it never started
	end    int64 // noTime while open
	endKey int64 // in the finished ring: the latest end of this and every earlier task
}

// appendTask appends x to s.Tasks as a Task.
func (s *Snapshot) appendTask(x *rec) {
	s.Tasks = append(s.Tasks, Task{
		ID: x.id, Name: s.AddText(x.name), Priority: x.prio, Weight: x.weight, Key: s.AddText(x.key),
		Lane: x.lane, Lanes: s.AddLanes(x.lanes), State: x.state, Err: s.AddText(x.err),
		Enqueued: stampOf(x.enq), Started: stampOf(x.start), Ended: stampOf(x.end),
	})
}

// laneRec is a lane of the model.
type laneRec struct {
	id      int
	name    string
	key     string
	slot    int // -1 for a key lane
	created int64
	evicted int64
	refs    int // retained tasks that ran on it
	running int // of which running now
}

func (l *laneRec) lane() Lane {
	return Lane{ID: l.id, Name: l.name, Key: l.key, Slot: l.slot, Created: timeOf(l.created), Evicted: timeOf(l.evicted)}
}

type sample struct{ t, v int64 }

// logRec is an entry of the event log.
type logRec struct {
	kind   core.EventKind
	t      int64
	task   uint64
	name   string
	prio   core.Priority
	weight int64
	key    string
	lane   int
	err    string
}

// waitRing holds the last waits of one priority.
type waitRing struct {
	prio  core.Priority
	waits ring[int64]
	dirty bool      // stats is stale
	stats WaitStats // cached
}

// bucket counts the tasks that ended in one step of the throughput window.
type bucket struct {
	idx int64 // floor(end / step); noTime when unused
	n   uint64
}

type totals struct {
	submitted, succeeded, failed, canceled, panicked, dropped uint64
	maxRunning                                                int
	maxInUse                                                  int64
}

// Recorder builds a timeline model from a primitive's events. Its methods
// are safe for concurrent use; each holds the Recorder's mutex for the time
// it takes to update or copy the model, and none blocks otherwise.
//
// Events of one task must arrive in their order (as core reports them);
// events of different tasks may interleave in any order. An event's time
// earlier than its task's previous step is raised to that step's time, so
// that every task's Enqueued <= Started <= Ended.
//
// Its memory is bounded by its [Config], however long it records. Use
// [NewRecorder] or [ReadJSON] to make one; the zero Recorder is not usable.
type Recorder struct {
	mu   sync.Mutex
	cfg  Config
	last int64 // the latest event time; noTime before the first event

	fin      ring[rec]      // finished tasks, in the order they ended
	open     []rec          // open tasks in the order first reported; id 0 marks a removed one
	openIdx  map[uint64]int // id -> index in open
	openDead int

	lanes        []laneRec // by id
	nextLane     int
	keyLanes     map[string]int // live key lanes: key -> id
	slotLanes    map[int]int    // slot lanes: slot -> id
	liveLanes    int            // slot lanes and live key lanes
	liveKeyLanes int
	lowFree      int // every slot below it has a lane with a running task
	one          [1]int

	tracks  [NumTracks]ring[sample]
	log     ring[logRec]
	waits   []*waitRing // highest priority first
	scratch []int64
	buckets [nBuckets]bucket
	step    int64 // throughput step, in nanoseconds

	tot              totals
	running, waiting int
	inUse, limit     int64

	// origin is the time of ts 0 in the JSON trace the Recorder was read
	// from (ReadJSON); noTime for a Recorder made by NewRecorder.
	origin int64
	// unshown is what another tool's trace it was read from holds that
	// it does not show; nil otherwise.
	unshown *Unshown
}

// NewRecorder returns an empty Recorder bounded by cfg (see [Config]). It
// does not block; the bounds cost memory only as they fill.
func NewRecorder(cfg Config) *Recorder {
	cfg = cfg.normalized()
	r := &Recorder{
		cfg:       cfg,
		last:      noTime,
		fin:       newRing[rec](cfg.MaxFinished),
		openIdx:   make(map[uint64]int),
		keyLanes:  make(map[string]int),
		slotLanes: make(map[int]int),
		log:       newRing[logRec](cfg.MaxLog),
		step:      int64(cfg.ThroughputWindow) / nBuckets,
		origin:    noTime,
	}
	for i := range r.tracks {
		r.tracks[i] = newRing[sample](cfg.MaxSamples)
	}
	for i := range r.buckets {
		r.buckets[i].idx = noTime
	}
	return r
}

// Origin returns the time that ts 0 stands for in the JSON trace the
// Recorder was read from by [ReadJSON], so that a reader can show the
// trace's own times; ok is false for a Recorder made by NewRecorder. It
// does not block beyond the Recorder's mutex.
func (r *Recorder) Origin() (t time.Time, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.origin == noTime {
		return time.Time{}, false
	}
	return time.Unix(0, r.origin).UTC(), true
}

// Config returns the Recorder's bounds, with defaults filled in. It does
// not block beyond the Recorder's mutex.
func (r *Recorder) Config() Config {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cfg
}

// Observe records e. Its method value is meant for core.WithObserver:
//
//	rec := trace.NewRecorder(trace.Config{})
//	q := core.NewWorkQueue(4, core.WithObserver(rec.Observe))
//
// It may be called from several goroutines at once. It does not block
// beyond the Recorder's mutex, and calls e.Err's Error method before taking
// it, keeping only the text.
//
// A task's first event adds it; Started puts it on a lane (its key's, its
// slot's, or the lowest free slot's when another task runs on that slot);
// a terminal event ends it. A task without a key of Weight w > 1, a
// Semaphore holder, holds min(w, 64) slot lanes, one per token: the lowest
// run of that many free slots below the limit (the last Resized, or the
// number of slot lanes when it is lower or unknown), or, when the free
// slots there are enough but not contiguous, the lowest free slots, so
// that a holder is never drawn beyond the tokens there are while enough
// are free; with too few free there, the lowest run of free slots.
//
// A Finished event with Task 0 (a Semaphore release of Weight tokens,
// which are not tied to an acquire) ends the running holder of that weight
// that started first, or else the one that started first. LaneCreated and
// LaneEvicted open and close a key's lane.
// Resized sets the limit: a caller that knows the initial limit can report
// it as a Resized event of its own. Closed is only logged. An event with a
// zero Time is taken to happen at the latest time seen.
func (r *Recorder) Observe(e core.Event) {
	errText := errorText(e.Err) // user code: outside the lock
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.last
	if !e.Time.IsZero() {
		t = nanos(e.Time)
	} else if t == noTime {
		t = 0
	}
	r.last = max(r.last, t)
	r.log.push(logRec{
		kind: e.Kind, t: t, task: e.Task, name: e.Name, prio: e.Priority,
		weight: e.Weight, key: e.Key, lane: e.Lane, err: errText,
	})
	switch e.Kind {
	case core.Enqueued, core.Waiting, core.Started:
		if e.Task == 0 {
			r.tot.dropped++
			return
		}
		i := r.task(&e, t)
		if i < 0 {
			return
		}
		if e.Kind == core.Started {
			if r.open[i].state != core.TaskPending {
				r.tot.dropped++
				return
			}
			r.begin(i, e.Lane, t)
		}
	case core.Finished, core.Failed, core.Canceled, core.Panicked:
		if e.Task == 0 {
			i := -1
			if e.Kind == core.Finished {
				i = r.holder(e.Weight)
			}
			if i < 0 {
				r.tot.dropped++
				return
			}
			r.finish(i, core.TaskSucceeded, "", e.Lane, t)
			return
		}
		i := r.task(&e, t)
		if i < 0 {
			return
		}
		r.finish(i, stateOf(e.Kind), errText, e.Lane, t)
	case core.LaneCreated:
		if id, ok := r.keyLanes[e.Key]; ok {
			if l := r.laneAt(id); l.created == noTime {
				l.created = t
			}
		} else {
			r.newLane(e.Key, -1, t, t)
		}
	case core.LaneEvicted:
		id, ok := r.keyLanes[e.Key]
		if !ok {
			r.tot.dropped++
			return
		}
		r.evict(id, t)
	case core.Resized:
		r.limit = e.Weight
		r.sample(TrackLimit, t, e.Weight)
	case core.Closed:
		// Logged only.
	default:
		r.tot.dropped++
	}
}

// errorText returns err's text; a panicking Error method yields a
// description of the panic instead.
func errorText(err error) (s string) {
	if err == nil {
		return ""
	}
	defer func() {
		if v := recover(); v != nil {
			s = fmt.Sprintf("(Error method panicked: %v)", v)
		}
	}()
	return err.Error()
}

func stateOf(k core.EventKind) core.TaskState {
	switch k {
	case core.Finished:
		return core.TaskSucceeded
	case core.Failed:
		return core.TaskFailed
	case core.Canceled:
		return core.TaskCanceled
	}
	return core.TaskPanicked
}

// task returns the index in open of e's task, reporting it if it is new,
// or -1 if it is beyond MaxOpen.
func (r *Recorder) task(e *core.Event, t int64) int {
	if i, ok := r.openIdx[e.Task]; ok {
		x := &r.open[i]
		if x.name == "" {
			x.name = e.Name
		}
		if x.key == "" {
			x.key = e.Key
		}
		if e.Weight != 0 && x.state == core.TaskPending {
			x.weight = e.Weight
		}
		return i
	}
	if len(r.openIdx) >= r.cfg.MaxOpen {
		r.tot.dropped++
		return -1
	}
	r.open = append(r.open, rec{
		id: e.Task, name: e.Name, key: e.Key, prio: e.Priority, weight: e.Weight,
		lane: -1, state: core.TaskPending, enq: t, start: noTime, end: noTime,
	})
	i := len(r.open) - 1
	r.openIdx[e.Task] = i
	r.tot.submitted++
	r.waiting++
	r.sample(TrackWaiting, t, int64(r.waiting))
	return i
}

// begin starts the pending task open[i] at t on a lane for slot.
func (r *Recorder) begin(i, slot int, t int64) {
	x := &r.open[i]
	x.state = core.TaskRunning
	x.start = max(t, x.enq)
	if x.key == "" && x.weight > 1 {
		x.lanes = r.slotsFor(int(min(x.weight, maxSpan)), t)
		x.lane = -1
		if len(x.lanes) > 0 {
			x.lane = x.lanes[0]
		}
		if len(x.lanes) < 2 {
			x.lanes = nil
		}
	} else {
		x.lane = r.laneFor(x.key, slot, t)
	}
	for _, id := range r.held(x) {
		l := r.laneAt(id)
		l.refs++
		l.running++
	}
	r.addWait(x.prio, x.start-x.enq)
	r.waiting--
	r.running++
	r.inUse += x.weight
	r.tot.maxRunning = max(r.tot.maxRunning, r.running)
	r.tot.maxInUse = max(r.tot.maxInUse, r.inUse)
	r.sample(TrackWaiting, t, int64(r.waiting))
	r.sample(TrackRunning, t, int64(r.running))
	r.sample(TrackInUse, t, r.inUse)
}

// finish ends the open task open[i] at t. A task that never started ends
// having run for no time, unless it was canceled.
func (r *Recorder) finish(i int, state core.TaskState, err string, slot int, t int64) {
	x := &r.open[i]
	if x.state == core.TaskPending && state != core.TaskCanceled {
		r.begin(i, slot, t)
	}
	switch x.state {
	case core.TaskRunning:
		r.running--
		r.inUse -= x.weight
		for _, id := range r.held(x) {
			l := r.laneAt(id)
			l.running--
			if l.running == 0 && l.slot >= 0 {
				r.lowFree = min(r.lowFree, l.slot)
			}
		}
		r.sample(TrackRunning, t, int64(r.running))
		r.sample(TrackInUse, t, r.inUse)
		x.end = max(t, x.start)
		r.addEnd(x.end)
	default:
		r.waiting--
		r.sample(TrackWaiting, t, int64(r.waiting))
		x.end = max(t, x.enq)
	}
	x.state, x.err = state, err
	switch state {
	case core.TaskSucceeded:
		r.tot.succeeded++
	case core.TaskFailed:
		r.tot.failed++
	case core.TaskCanceled:
		r.tot.canceled++
	default:
		r.tot.panicked++
	}
	done := *x
	r.removeOpen(i)
	r.pushFinished(done)
}

// pushFinished appends x to the finished ring, dropping the task that
// ended first when the ring is full.
func (r *Recorder) pushFinished(x rec) {
	x.endKey = x.end
	if r.fin.len() > 0 {
		x.endKey = max(x.endKey, r.fin.last().endKey)
	}
	if old, evicted := r.fin.push(x); evicted {
		for _, id := range r.held(&old) {
			r.unref(id)
		}
	}
}

// held returns the lanes x holds, in r.one when it is one.
func (r *Recorder) held(x *rec) []int {
	if x.lanes != nil || x.lane < 0 {
		return x.lanes
	}
	r.one[0] = x.lane
	return r.one[:]
}

// maxSpan is the most lanes a Semaphore holder is drawn on.
const maxSpan = 64

// slotsFor returns the slot lanes a holder of w tokens runs on: the lowest
// run of w free slots below the limit (or the number of slot lanes, if
// higher), or else the lowest w free slots if they are all below it, or
// else the lowest run of w free slots. A lane that cannot be made
// (MaxLanes) ends the list early.
func (r *Recorder) slotsFor(w int, t int64) []int {
	bound := max(int(min(r.limit, maxSmall)), len(r.slotLanes))
	var low, slots []int // the lowest free slots; the ones taken
	for s, run := r.lowFree, 0; slots == nil; s++ {
		if id, ok := r.slotLanes[s]; ok && r.laneAt(id).running > 0 {
			run = 0
			continue
		}
		run++
		if len(low) < w {
			low = append(low, s)
		}
		switch {
		case run == w:
			slots = make([]int, w)
			for i := range slots {
				slots[i] = s - w + 1 + i
			}
		case s+1 == bound && len(low) == w:
			slots = low
		}
	}
	for i, s := range slots {
		id, ok := r.slotLanes[s]
		if !ok {
			if id = r.newLane("", s, noTime, t); id < 0 {
				return slots[:i]
			}
		}
		slots[i] = id
	}
	return slots
}

// removeOpen removes open[i], compacting open when half of it is removed.
func (r *Recorder) removeOpen(i int) {
	delete(r.openIdx, r.open[i].id)
	r.open[i] = rec{}
	r.openDead++
	if r.openDead < 64 || 2*r.openDead < len(r.open) {
		return
	}
	n := 0
	for _, x := range r.open {
		if x.id != 0 {
			r.open[n] = x
			r.openIdx[x.id] = n
			n++
		}
	}
	clear(r.open[n:])
	r.open = r.open[:n]
	r.openDead = 0
}

// holder returns the index in open of the running task a Semaphore
// release of weight w ends, or -1 if none runs.
func (r *Recorder) holder(w int64) int {
	best, bestW := -1, -1
	for i := range r.open {
		x := &r.open[i]
		if x.id == 0 || x.state != core.TaskRunning {
			continue
		}
		if best < 0 || x.start < r.open[best].start {
			best = i
		}
		if x.weight == w && (bestW < 0 || x.start < r.open[bestW].start) {
			bestW = i
		}
	}
	if bestW >= 0 {
		return bestW
	}
	return best
}

// laneFor returns the lane a task with key starting on slot runs on: the
// key's lane, or the slot's lane if no other task runs on it, or else the
// lowest free slot's lane. It returns -1 if no lane can be made.
func (r *Recorder) laneFor(key string, slot int, t int64) int {
	if id, ok := r.keyLanes[key]; ok {
		return id
	}
	if key != "" {
		return r.newLane(key, -1, noTime, t)
	}
	slot = max(slot, 0)
	id, ok := r.slotLanes[slot]
	if !ok {
		return r.newLane("", slot, noTime, t)
	}
	if r.laneAt(id).running == 0 {
		return id
	}
	// Every slot below lowFree is busy: search from there, moving it up
	// past the busy slots and the one about to be taken.
	for s := r.lowFree; ; s++ {
		id, ok := r.slotLanes[s]
		switch {
		case s == slot || ok && r.laneAt(id).running > 0:
			// busy
		case !ok:
			id = r.newLane("", s, noTime, t)
			if id < 0 {
				return -1
			}
			fallthrough
		default:
			if s == r.lowFree {
				r.lowFree++
			}
			return id
		}
		if s == r.lowFree {
			r.lowFree++
		}
	}
}

// newLane adds a live lane for key (slot < 0) or slot and returns its id,
// or -1 if MaxLanes lanes are live.
func (r *Recorder) newLane(key string, slot int, created, t int64) int {
	if r.liveLanes >= r.cfg.MaxLanes {
		r.tot.dropped++
		return -1
	}
	l := laneRec{id: r.nextLane, key: key, slot: slot, created: created, evicted: noTime}
	if slot < 0 {
		l.name = key
		r.keyLanes[key] = l.id
		r.liveKeyLanes++
		r.sample(TrackLanes, t, int64(r.liveKeyLanes))
	} else {
		l.name = r.cfg.SlotName + " " + strconv.Itoa(slot+1)
		r.slotLanes[slot] = l.id
	}
	r.nextLane++
	r.liveLanes++
	r.lanes = append(r.lanes, l)
	return l.id
}

// evict marks the live key lane id evicted at t.
func (r *Recorder) evict(id int, t int64) {
	l := r.laneAt(id)
	l.evicted = max(t, l.created)
	delete(r.keyLanes, l.key)
	r.liveLanes--
	r.liveKeyLanes--
	r.sample(TrackLanes, t, int64(r.liveKeyLanes))
	if l.refs == 0 {
		r.removeLane(id)
	}
}

// laneAt returns the lane id, which must exist.
func (r *Recorder) laneAt(id int) *laneRec {
	i, _ := slices.BinarySearchFunc(r.lanes, id, func(l laneRec, id int) int { return l.id - id })
	return &r.lanes[i]
}

// unref notes that a task that ran on lane id is no longer retained.
func (r *Recorder) unref(id int) {
	l := r.laneAt(id)
	l.refs--
	if l.refs == 0 && l.evicted != noTime {
		r.removeLane(id)
	}
}

func (r *Recorder) removeLane(id int) {
	i, _ := slices.BinarySearchFunc(r.lanes, id, func(l laneRec, id int) int { return l.id - id })
	r.lanes = slices.Delete(r.lanes, i, i+1)
}

// sample records that track k has value v from t on. Samples stay in
// canonical form: increasing times (an earlier t is raised to the last
// sample's), consecutive values different.
func (r *Recorder) sample(k Track, t, v int64) {
	tr := &r.tracks[k]
	if n := tr.len(); n > 0 {
		l := tr.last()
		t = max(t, l.t)
		switch {
		case l.v == v:
			return
		case l.t == t && n > 1 && tr.at(n-2).v == v:
			tr.pop()
			return
		case l.t == t:
			l.v = v
			return
		}
	}
	tr.push(sample{t, v})
}

// addWait records that a task of priority p waited d before starting.
func (r *Recorder) addWait(p core.Priority, d int64) {
	i, found := slices.BinarySearchFunc(r.waits, p, func(w *waitRing, p core.Priority) int {
		switch {
		case w.prio > p:
			return -1
		case w.prio < p:
			return 1
		}
		return 0
	})
	if !found {
		if len(r.waits) >= maxPriorities {
			r.tot.dropped++
			return
		}
		r.waits = slices.Insert(r.waits, i, &waitRing{prio: p, waits: newRing[int64](r.cfg.WaitSamples)})
	}
	w := r.waits[i]
	w.waits.push(d)
	w.dirty = true
}

// floorDiv returns floor(a / b) for b > 0.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// addEnd counts a started task that ended at t, for the throughput.
func (r *Recorder) addEnd(t int64) {
	idx := floorDiv(t, r.step)
	b := &r.buckets[uint64(idx)%nBuckets]
	switch {
	case b.idx == idx:
		b.n++
	case b.idx < idx:
		*b = bucket{idx: idx, n: 1}
	}
	// else: older than the window ending at the latest end; not counted.
}

func (r *Recorder) throughput(now int64) float64 {
	hi := floorDiv(now, r.step)
	var n uint64
	for _, b := range r.buckets {
		if b.idx != noTime && b.idx > hi-nBuckets && b.idx <= hi {
			n += b.n
		}
	}
	return float64(n) / r.cfg.ThroughputWindow.Seconds()
}

// waitStats returns w's summary, recomputing it if w changed.
func (r *Recorder) waitStats(w *waitRing) WaitStats {
	if !w.dirty {
		return w.stats
	}
	s := r.scratch[:0]
	for i := range w.waits.len() {
		s = append(s, *w.waits.at(i))
	}
	slices.Sort(s)
	r.scratch = s
	n := len(s)
	rank := func(p int) time.Duration { return time.Duration(s[(p*n+99)/100-1]) }
	w.stats = WaitStats{Priority: w.prio, Count: n, P50: rank(50), P95: rank(95), Max: time.Duration(s[n-1])}
	w.dirty = false
	return w.stats
}

// grow returns s emptied, with room for n elements. A slice that had
// room before gets a quarter more, so that a snapshot reused frame after
// frame while the model grows is not reallocated every frame; a first
// one gets just n, so that a snapshot taken once (a loaded trace's, of
// 200,000 tasks) holds no room that the collector scans for nothing.
func grow[T any](s []T, n int) []T {
	switch {
	case cap(s) == 0:
		return make([]T, 0, n)
	case cap(s) < n:
		return make([]T, 0, n+n/4)
	}
	return s[:0]
}

// Snapshot returns a copy of everything the Recorder holds, as of now (a
// zero now means the latest event time). It is SnapshotWindow(nil, now,
// time.Time{}, time.Time{}).
func (r *Recorder) Snapshot(now time.Time) *Snapshot {
	return r.SnapshotWindow(nil, now, time.Time{}, time.Time{})
}

// SnapshotWindow returns a copy of the model as of now, holding only the
// tasks and counter samples in the window [from, to] (a zero from or to
// leaves that side unbounded); lanes, the log and the stats are always
// whole. A zero now means the latest event time.
//
// If dst is not nil, SnapshotWindow fills it, reusing its slices, and
// returns it: a caller taking one snapshot per animation frame can pass the
// previous frame's to allocate nothing. dst must not be in use elsewhere.
//
// It holds the Recorder's mutex while copying, for a time proportional to
// the open tasks and the tasks and samples in the window.
func (r *Recorder) SnapshotWindow(dst *Snapshot, now, from, to time.Time) *Snapshot {
	return r.snapshot(dst, now, from, to, nil)
}

// SnapshotPausing is [Recorder.Snapshot] that calls pause between slices
// of its work, every few hundred tasks or counter samples copied, from the
// goroutine that called it, with the share of the copying done, from 0 to
// 1; pause may block, for as long as it likes (a caller on a single
// thread, a browser's, lets the page draw there). It returns what
// Snapshot(now) would.
//
// It holds the Recorder's mutex throughout, pauses included: a Recorder
// still observing events waits meanwhile. It is meant for a Recorder that
// is done, such as one ReadJSON returned.
func (r *Recorder) SnapshotPausing(now time.Time, pause func(done float64)) *Snapshot {
	if pause == nil {
		pause = func(float64) {}
	}
	return r.snapshot(nil, now, time.Time{}, time.Time{}, pause)
}

// snapshot is SnapshotWindow, calling pause, if not nil, every pauseEvery
// tasks or samples copied.
func (r *Recorder) snapshot(dst *Snapshot, now, from, to time.Time, pause func(float64)) *Snapshot {
	if dst == nil {
		dst = new(Snapshot)
	}
	lo, hi := int64(-maxNano), int64(maxNano-1)
	if !from.IsZero() {
		lo = nanos(from)
	}
	if !to.IsZero() {
		hi = nanos(to)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	end := timeOf(r.last)
	nowNs := r.last
	if !now.IsZero() {
		nowNs = nanos(now)
	} else {
		now = end
	}
	dst.Now, dst.From, dst.To, dst.End = now, from, to, end

	first := r.fin.search(func(x *rec) bool { return x.endKey >= lo })
	// The units of work, for pause: the tasks and samples to copy.
	work, units := 0, r.fin.len()-first+len(r.open)
	for k := range r.tracks {
		units += r.tracks[k].len()
	}
	tick := func() {
		if work++; work%pauseEvery == 0 {
			pause(float64(work) / float64(max(units, 1)))
		}
	}
	dst.Tasks = grow(dst.Tasks, r.fin.len()-first+len(r.openIdx))
	dst.text, dst.lanes = dst.text[:0], dst.lanes[:0]
	for i := first; i < r.fin.len(); i++ {
		if pause != nil {
			tick()
		}
		if x := r.fin.at(i); x.enq <= hi && x.end >= lo {
			dst.appendTask(x)
		}
	}
	oldest := int64(noTime)
	for i := range r.open {
		if pause != nil {
			tick()
		}
		x := &r.open[i]
		if x.id == 0 {
			continue
		}
		if x.state == core.TaskPending && (oldest == noTime || x.enq < oldest) {
			oldest = x.enq
		}
		if x.enq <= hi && max(nowNs, x.enq) >= lo {
			dst.appendTask(x)
		}
	}

	dst.Lanes = grow(dst.Lanes, len(r.lanes))
	for i := range r.lanes {
		dst.Lanes = append(dst.Lanes, r.lanes[i].lane())
	}
	for k := range r.tracks {
		tr := &r.tracks[k]
		i := max(tr.search(func(s *sample) bool { return s.t > lo })-1, 0)
		j := tr.search(func(s *sample) bool { return s.t > hi })
		out := grow(dst.Counters[k], j-i)
		for ; i < j; i++ {
			if pause != nil {
				tick()
			}
			s := tr.at(i)
			out = append(out, Sample{UnixNano: s.t, Value: s.v})
		}
		dst.Counters[k] = out
	}
	dst.Log = grow(dst.Log, r.log.len())
	for i := range r.log.len() {
		l := r.log.at(i)
		dst.Log = append(dst.Log, Entry{
			Kind: l.kind, Time: timeOf(l.t), Task: l.task, Name: l.name, Priority: l.prio,
			Weight: l.weight, Key: l.key, Lane: l.lane, Err: l.err,
		})
	}

	waits := grow(dst.Stats.Waits, len(r.waits))
	for _, w := range r.waits {
		waits = append(waits, r.waitStats(w))
	}
	dst.Stats = Stats{
		Submitted: r.tot.submitted, Succeeded: r.tot.succeeded, Failed: r.tot.failed,
		Canceled: r.tot.canceled, Panicked: r.tot.panicked, Dropped: r.tot.dropped,
		Running: r.running, Waiting: r.waiting, InUse: r.inUse, Limit: r.limit,
		Lanes: r.liveKeyLanes, MaxRunning: r.tot.maxRunning, MaxInUse: r.tot.maxInUse,
		Waits: waits,
	}
	if oldest != noTime && nowNs > oldest {
		dst.Stats.OldestWait = time.Duration(nowNs - oldest)
	}
	if nowNs != noTime {
		dst.Stats.Throughput = r.throughput(nowNs)
	}
	return dst
}
