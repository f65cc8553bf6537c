package ui

import (
	"math"
	"slices"
	"sort"
	"sync/atomic"
	"time"

	"sluice/core"
	"sluice/core/trace"
	"sluice/wasm/sim"
)

// runSet is a run with the recorder and the event log that observe it.
type runSet struct {
	run *sim.Runner
	rec *trace.Recorder
	log *eventLog
}

// newRunSet makes a run of sc at virtual time 0, observed by a new
// recorder and a new event log filtered by query. It returns the
// scenario's problems, as sim.NewRunner does, when sc cannot run.
func newRunSet(sc sim.Scenario, query string) (runSet, error) {
	cfg := trace.Config{Name: "sluice " + sc.Primitive, MaxLog: panelLog, ThroughputWindow: rateWindow}
	if k := sim.KindOf(sc.Primitive); k != nil && k.Tokens {
		cfg.SlotName = "token" // a holder of w tokens is drawn on w of them
	}
	rec := trace.NewRecorder(cfg)
	log := newEventLog(sc.Primitive, sim.Epoch, nil)
	log.setQuery(query)
	run, err := sim.NewRunner(sc, sim.Config{Observe: observer(func(e core.Event) {
		if log.muted.Load() {
			return
		}
		rec.Observe(e)
		log.add(e)
	}, sc.Primitive)})
	if err != nil {
		return runSet{}, err
	}
	if sc.Limit > 0 {
		// The recorder learns the limit from Resized events; the first
		// one is the primitive's construction.
		rec.Observe(core.Event{Kind: core.Resized, Time: sim.Epoch, Weight: int64(sc.Limit)})
	}
	return runSet{run: run, rec: rec, log: log}, nil
}

// stop ends the set's run and waits for its goroutines. The recorder and
// the log take none of the events of the stop (the cancellation of every
// open task), which nobody will see.
func (r runSet) stop() {
	r.log.muted.Store(true)
	r.run.Stop()
	r.run.Wait()
}

// Checkpoints. A run of real goroutines cannot be copied, so a
// checkpoint is a whole run (runner, recorder, event log) parked at a
// moment: a seek to a moment at or after it moves it on from there, which
// takes far less than a replay from 0, and it is used up. While a large
// run is paused (or finished), the spare time of each frame builds
// checkpoints at 0 and at each fifth of
// the run's events (checkpointMarks), a slice of virtual time at a time,
// cut where checkpointBudget runs out (between two timers, or within a
// burst: see sim.Runner.AdvanceFor), so that a click, a drag of the
// scrubber or a frame never waits behind a build for long; a seek
// back parks the run it leaves, unless that run took a person's action
// live (its messages then word the action as the person's, where a replay
// says the scenario's). A checkpoint belongs to one version of the
// scenario and its log (rewind.gen): an action, a fork or a new scenario
// leaves it stale, and it is stopped.
type checkpoints struct {
	parked   []checkpoint // in order of at
	building *checkpoint  // the one being built, towards its at
	quiet    time.Time    // no building before this: a seek just ran, and the next may follow
	built    int          // checkpoints built so far, for tests

	// Runs given up (stale, trimmed or acted on), to stop. Stopping a
	// run takes as long as canceling its open tasks (10,000 at most),
	// so a frame stops one, rather than a click all of them.
	stale []runSet
}

type checkpoint struct {
	gen uint64        // the scenario and log it runs (rewind.gen)
	at  time.Duration // where it is parked, or (building) is to be
	set runSet
}

// Bounds on checkpoints. They are variables so that tests can build
// checkpoints of small runs at once, or a little at a time.
var (
	checkpointFrom   = 1_000                 // tasks a run has before it gets checkpoints
	checkpointQuiet  = 50 * time.Millisecond // real time after a seek before building goes on
	checkpointBudget = 6 * time.Millisecond  // real time a paused frame spends building
)

const (
	checkpointParts  = 5     // checkpoints at 0 (its events done) and at each fifth of the run's events
	checkpointSlices = 2_000 // a building step advances the horizon / checkpointSlices
	maxParked        = checkpointParts + 2
)

// gens numbers the versions of sessions' scenarios and logs.
var gens atomic.Uint64

func nextGen() uint64 { return gens.Add(1) }

// drop gives up the checkpoints not of gen (all with gen 0).
func (c *checkpoints) drop(gen uint64) {
	keep := c.parked[:0]
	for _, cp := range c.parked {
		if gen != 0 && cp.gen == gen {
			keep = append(keep, cp)
		} else {
			c.stale = append(c.stale, cp.set)
		}
	}
	clear(c.parked[len(keep):])
	c.parked = keep
	if b := c.building; b != nil && (gen == 0 || b.gen != gen) {
		c.stale = append(c.stale, b.set)
		c.building = nil
	}
}

// stopStale stops one of the runs given up, if there is one, and reports
// whether there was.
func (c *checkpoints) stopStale() bool {
	if len(c.stale) == 0 {
		return false
	}
	last := len(c.stale) - 1
	c.stale[last].stop()
	c.stale[last] = runSet{}
	c.stale = c.stale[:last]
	return true
}

// stopAll stops every checkpoint and every run given up.
func (c *checkpoints) stopAll() {
	c.drop(0)
	for c.stopStale() {
	}
}

// park keeps cp, in order of at. Stopping a run takes as long as
// canceling its open tasks, so park never does: trim gives up the
// checkpoints beyond maxParked in a paused frame.
func (c *checkpoints) park(cp checkpoint) {
	i, _ := slices.BinarySearchFunc(c.parked, cp.at, func(p checkpoint, at time.Duration) int { return int(p.at - at) })
	c.parked = slices.Insert(c.parked, i, cp)
}

// take removes and returns the parked checkpoint latest at or before t,
// and false if there is none or it is not after after.
func (c *checkpoints) take(t, after time.Duration) (checkpoint, bool) {
	for i := len(c.parked) - 1; i >= 0; i-- {
		if cp := c.parked[i]; cp.at <= t {
			if cp.at <= after {
				break
			}
			c.parked = slices.Delete(c.parked, i, i+1)
			return cp, true
		}
	}
	return checkpoint{}, false
}

// trim gives up one parked checkpoint if more than maxParked are parked:
// the one nearest the one before it, so that those left spread over the
// run. It reports whether it stopped one.
func (c *checkpoints) trim() bool {
	if len(c.parked) <= maxParked {
		return false
	}
	drop := 1
	for i := 2; i < len(c.parked); i++ {
		if c.parked[i].at-c.parked[i-1].at < c.parked[drop].at-c.parked[drop-1].at {
			drop = i
		}
	}
	c.stale = append(c.stale, c.parked[drop].set)
	c.parked = slices.Delete(c.parked, drop, drop+1)
	return true
}

// wanted returns the next moment of marks (checkpointMarks) a
// checkpoint should be built at: 0 first, then of the marks with no
// checkpoint within half the way to the marks beside them, the one
// furthest from the checkpoint before it, which a seek there replays
// from; so that each checkpoint built cuts the longest replay left.
func (c *checkpoints) wanted(marks []time.Duration) (time.Duration, bool) {
	best, gap := time.Duration(0), time.Duration(-1)
	for k, at := range marks {
		room := time.Duration(math.MaxInt64)
		if k > 0 {
			room = at - marks[k-1]
		}
		if k+1 < len(marks) {
			room = min(room, marks[k+1]-at)
		}
		near, from := false, time.Duration(0)
		for _, cp := range c.parked {
			near = near || cp.at == at || k > 0 && (cp.at-at).Abs() < room/2
			if cp.at <= at {
				from = max(from, cp.at)
			}
		}
		switch {
		case near:
		case k == 0:
			return at, true
		case at-from > gap:
			best, gap = at, at-from
		}
	}
	return best, gap >= 0
}

// checkpointMarks returns the moments checkpoints are wanted at in a run
// whose horizon is h: 0, and the moments that split the run's events
// into checkpointParts parts of as many events each, so that a seek
// replays at most about a part's events whatever their pace (a run idle
// for a minute and then busy gets its checkpoints in the busy part). The
// events are those of the session's event log, or, when the run was
// rewound before h, those of a checkpoint parked at h; without one, equal
// parts of h. s.mu must be held.
func (s *Session) checkpointMarks(h time.Duration) []time.Duration {
	log := s.log
	if s.run.Now() < h {
		log = nil
		for _, cp := range s.cps.parked {
			if cp.at >= h {
				log = cp.set.log
			}
		}
	}
	marks := make([]time.Duration, 0, checkpointParts)
	if log == nil {
		for k := range checkpointParts {
			marks = append(marks, (h * time.Duration(k) / checkpointParts).Truncate(time.Millisecond))
		}
		return marks
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	// The checkpoint at 0 has done the events at 0 (a burst's
	// submissions): the parts share out those after.
	es := log.entries
	es = es[sort.Search(len(es), func(i int) bool { return es[i].Time.After(sim.Epoch) }):]
	marks = append(marks, 0)
	for k := 1; k < checkpointParts && len(es) > 0; k++ {
		at := es[k*len(es)/checkpointParts].Time.Sub(sim.Epoch).Truncate(time.Millisecond)
		if at > marks[len(marks)-1] {
			marks = append(marks, at)
		}
	}
	return marks
}

// checkpointable reports whether the session's run gets checkpoints
// while paused: a run of its own (not a loaded trace), that still
// replays from its log, with no burst being handed over, and large
// enough for replays to be slow. s.mu must be held.
func (s *Session) checkpointable() bool {
	return s.replay == nil && s.unlinked == "" && len(s.queued) == 0 && s.run.Stats().Tasks >= checkpointFrom
}

// nextCheckpoint returns the moment the next checkpoint is wanted at, and
// false if none is. A full set is kept as it is, since building one more
// would stop another, except for want of one at 0: what is due at 0 (a
// burst of up to 10,000 submissions) is a replay's costliest stretch,
// and a seek before every other checkpoint would replay it. s.mu must be
// held.
func (s *Session) nextCheckpoint() (time.Duration, bool) {
	at, ok := s.cps.wanted(s.checkpointMarks(s.horizonLocked()))
	return at, ok && (len(s.cps.parked) < maxParked || at == 0)
}

// buildingCheckpoints reports whether a paused run's checkpoints are
// still being built (or given up beyond maxParked): a seek then may
// replay more than it will once they are. s.mu must be held.
func (s *Session) buildingCheckpoints() bool {
	if s.playing || !s.checkpointable() {
		return false
	}
	if s.cps.building != nil || len(s.cps.parked) > maxParked {
		return true
	}
	_, ok := s.nextCheckpoint()
	return ok
}

// buildCheckpoints spends a paused frame's spare time building the next
// checkpoint the run wants, if it is large enough to want any. frame
// calls it, once it has given up the stale checkpoints; s.mu must be
// held.
func (s *Session) buildCheckpoints() {
	c := &s.cps // frame has dropped the stale ones
	if !s.checkpointable() || time.Now().Before(c.quiet) || c.trim() {
		return
	}
	h := s.horizonLocked()
	if c.building == nil {
		at, ok := s.nextCheckpoint()
		if !ok {
			return
		}
		set, err := newRunSet(s.sc, s.logQuery)
		if err != nil {
			return
		}
		c.building = &checkpoint{gen: s.rw.gen, at: at, set: set}
	}
	b := c.building
	slice := max(time.Millisecond, (h / checkpointSlices).Truncate(time.Millisecond))
	until := time.Now().Add(checkpointBudget)
	moved := false
	for {
		now := b.set.run.Now()
		// At 0, the first step does what is due at 0, a burst of
		// 10,000 submissions at most, over as many frames as it takes.
		if moved = b.set.run.AdvanceFor(min(slice, b.at-now), until); !moved {
			break
		}
		if b.set.run.Now() == now && b.set.run.Finished() {
			break // the run ended before at: park it at its end
		}
		if b.set.run.Now() >= b.at || !time.Now().Before(until) {
			break
		}
	}
	if now := b.set.run.Now(); moved && (now >= b.at || b.set.run.Finished()) {
		c.building = nil
		b.at = now
		c.park(*b)
		c.built++
	}
}

// fromCheckpoint makes the session's run the checkpoint latest at or
// before t, parked or being built, if there is one and it is nearer t
// than the run (a run past t cannot go back), and parks the run it
// replaces. It reports whether it found one. s.mu must be held.
func (s *Session) fromCheckpoint(t time.Duration) bool {
	c := &s.cps
	c.drop(s.rw.gen)
	after := time.Duration(-1)
	if now := s.run.Now(); now <= t {
		after = now
	}
	cp, ok := c.take(t, after)
	if b := c.building; b != nil {
		// The one being built may be nearer, or the only one: a seek
		// back soon after one from 0 finds the one at 0 half built.
		near := after
		if ok {
			near = max(near, cp.at)
		}
		if now := b.set.run.Now(); now <= t && now > near {
			if ok {
				c.park(cp)
			}
			cp, ok = checkpoint{gen: b.gen, at: now, set: b.set}, true
			c.building = nil
		}
	}
	if !ok {
		return false
	}
	cur := runSet{run: s.run, rec: s.rec, log: s.log}
	if len(s.queued) == 0 && !s.rw.acted {
		c.park(checkpoint{gen: s.rw.gen, at: s.run.Now(), set: cur})
	} else {
		c.stale = append(c.stale, cur)
	}
	s.rw.acted = false
	s.run, s.rec, s.log = cp.set.run, cp.set.rec, cp.set.log
	s.log.setQuery(s.logQuery)
	return true
}
