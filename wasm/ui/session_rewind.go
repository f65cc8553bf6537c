package ui

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"sluice/core/trace"
	"sluice/wasm/sim"
)

// rewind is what a Session keeps to move its run back in virtual time.
// The state of a run at any moment is a replay from 0 of its scenario and
// of the log of what the person did (sim.Step): the runner is rebuilt and
// its clock advanced to the moment, quietly, without drawing the frames
// in between. The log keeps the actions taken after the moment, so that
// playing on replays them; an action taken at a past moment forks the
// run: the later actions are dropped, and the new one is recorded at that
// moment.
type rewind struct {
	gen     uint64        // the version of the scenario and its log: a new one with each load and each action (nextGen)
	acted   bool          // the run took a person's action live: its messages word it so, and it is no checkpoint
	horizon time.Duration // the furthest moment the run has reached since it was loaded or forked
	note    string        // the latest fork, in words; "" if none
	notes   int           // counts forks, so that the page tells each once
}

// Rewind is what the page shows of a run's rewinding: how far the
// scrubber reaches, and the latest fork.
type Rewind struct {
	// Horizon is the furthest moment the run has reached since it was
	// loaded or last forked: the scrubber's end.
	Horizon time.Duration
	// Fork says where the run was last forked and what was dropped
	// ("Forked at 2.150 s: 3 later actions dropped"), and Forks counts the
	// forks, so that a page tells each one once; "" and 0 if none.
	Fork  string
	Forks int
	// Checkpoints counts the runs parked at earlier moments, which make a
	// seek back quick (session_checkpoint.go), and Building says whether
	// the paused run is still building them.
	Checkpoints int
	Building    bool
}

// errNoRewind is returned by Seek when the log no longer replays the run.
var errNoRewind = errors.New("this run can no longer be rewound exactly")

// horizonLocked returns the furthest moment the run has reached. s.mu
// must be held.
func (s *Session) horizonLocked() time.Duration {
	return max(s.rw.horizon, s.run.Now())
}

// Seek shows the run at virtual time t (since 0): the state a fresh run of
// the scenario and its log reaches when its clock is advanced to t, with
// every action logged at or before t done and none after. It pauses. It
// moves on the latest run it has at or before t: the run itself, a
// checkpoint (a run parked at an earlier moment, see buildCheckpoints),
// or else a new run from 0, and blocks while that run catches up, which
// takes no virtual time but real time in proportion to the events on the
// way; a run it leaves past t is parked as a checkpoint. The log keeps
// its later actions: playing on from t replays them, and the run goes on
// exactly as it did. t is clamped to 0..1 hour and counts in whole
// milliseconds, as the log does.
//
// Seek hands over what is left of a person's burst first. It fails, and
// changes nothing, in replay (a loaded trace is shown) and when the log no
// longer replays the run (Panel.Unlinked), and returns the scenario's
// problems if its run cannot be rebuilt.
func (s *Session) Seek(t time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seek(t)
}

func (s *Session) seek(t time.Duration) error {
	if s.replay != nil {
		return errReplay
	}
	if s.unlinked != "" {
		return fmt.Errorf("%w: %s", errNoRewind, s.unlinked)
	}
	t = min(max(t, 0), sim.MaxOffsetMS*time.Millisecond).Truncate(time.Millisecond)
	s.handOver()
	s.rw.horizon = s.horizonLocked()
	s.playing = false
	// A replay allocates the run's model at once: collecting less often
	// meanwhile saves a good part of the time, and for a moment after,
	// the landing's render (holdGC); so does giving the event log the
	// room it had (rebuild).
	holdGC()
	defer holdGC()
	if !s.fromCheckpoint(t) && t < s.run.Now() {
		if err := s.rebuild(); err != nil {
			return err
		}
	}
	s.run.Advance(t - s.run.Now())
	s.rw.horizon = s.horizonLocked()
	s.settled()
	s.cps.quiet = time.Now().Add(checkpointQuiet)
	return nil
}

// handOver hands what is left of a person's bursts to the runner at once,
// so that the log holds them whole. s.mu must be held.
func (s *Session) handOver() {
	for len(s.queued) > 0 {
		s.submitChunk()
	}
}

// rebuild replaces the runner with a fresh one of the same scenario and
// log, at virtual time 0, keeping what the session knows of the run
// (its horizon, its fork note, its preset), and parks the old one as a
// checkpoint. s.mu must be held.
func (s *Session) rebuild() error {
	rw := s.rw
	s.log.mu.Lock()
	had := len(s.log.entries)
	s.log.mu.Unlock()
	// The run left behind is parked as a checkpoint for a later seek
	// forward, rather than stopped.
	cur := runSet{run: s.run, rec: s.rec, log: s.log}
	keep := len(s.queued) == 0 && !rw.acted
	rw.acted = false
	if keep {
		s.run = nil // load stops s.run
	}
	cps := s.cps
	s.cps = checkpoints{} // load stops the checkpoints of the scenario before
	err := s.load(s.sc, s.preset)
	s.cps = cps
	if err != nil {
		s.run = cur.run // load changes nothing when it fails
		return err
	}
	if keep {
		s.cps.park(checkpoint{gen: rw.gen, at: cur.run.Now(), set: cur})
	}
	s.log.mu.Lock()
	if len(s.log.entries) == 0 {
		s.log.entries = make([]trace.Entry, 0, had)
	}
	s.log.mu.Unlock()
	s.rw = rw
	return nil
}

// settled brings the session's own bookkeeping up to the runner's state
// after a seek: the run is not finished unless it has nothing left to do,
// the highest limit is the highest the log and the scenario set by now,
// and the refusals so far were reported already. s.mu must be held.
func (s *Session) settled() {
	st := s.run.Stats()
	s.finished = false
	s.refused = st.Refused
	now := s.nowMS()
	top := s.sc.Limit
	for _, a := range s.sc.Actions {
		if a.Do == sim.ActionLimit && a.AtMS <= now {
			top = max(top, a.N)
		}
	}
	done := len(s.sc.Log) - s.run.LogLeft()
	for _, st := range s.sc.Log[:done] {
		if st.Do == sim.ActionLimit {
			top = max(top, st.N)
		}
	}
	s.maxLimit = max(top, st.Limit)
	// The panel's wait times and throughput come from the latest
	// snapshot: take one at the new moment, as the next frame will.
	at := sim.Epoch.Add(s.run.Now())
	s.snap = s.rec.SnapshotWindow(s.snap, at, at.Add(-defaultSpan), at.Add(defaultSpan/10))
	s.snapOf = snapKey{} // a window of its own: the next frame takes its own
}

// StepBack pauses and undoes the run's latest event: it shows the run at
// the moment of the event before it (or at 0), so that Step does the
// undone event again. Events are those of the event log; the events of
// one instant count as one. It reports false, changing nothing but the
// pause, when no event before now can be undone (none has happened, or
// only at 0), in replay, or when Seek fails.
func (s *Session) StepBack() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replay != nil {
		return false
	}
	s.playing = false
	s.handOver()
	last, ok := s.log.lastAt(sim.Epoch.Add(s.run.Now()), true)
	if !ok || !last.After(sim.Epoch) {
		return false
	}
	target := time.Duration(0)
	if prev, ok := s.log.lastAt(last, false); ok {
		target = prev.Sub(sim.Epoch)
	}
	return s.seek(target) == nil
}

// lastAt returns the time of the latest event at or before t (at
// true) or before t (at false), and false if there is none.
func (l *eventLog) lastAt(t time.Time, at bool) (time.Time, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	i := sort.Search(len(l.entries), func(i int) bool {
		if at {
			return l.entries[i].Time.After(t)
		}
		return !l.entries[i].Time.Before(t)
	})
	if i == 0 {
		return time.Time{}, false
	}
	return l.entries[i-1].Time, true
}

// fork drops the log's entries not yet replayed before a person's action
// st is recorded at the current point of the run. When st changes the run
// and the run had been further (it was rewound) or the log had later
// actions, the run forks here: the horizon comes back to now, and the
// fork's note says what was dropped. s.mu must be held.
func (s *Session) fork(st sim.Step) {
	s.rw.gen = nextGen() // the checkpoints of the old log are stale
	s.rw.acted = s.rw.acted || changes(st)
	left := s.run.LogLeft()
	dropped := 0
	if left > 0 {
		for _, e := range s.sc.Log[len(s.sc.Log)-left:] {
			if changes(e) {
				dropped++
			}
		}
		s.run.DropLog()
		s.sc.Log = s.run.Scenario().Log
	}
	now := s.run.Now()
	if !changes(st) || (dropped == 0 && now >= s.horizonLocked()) {
		return
	}
	s.rw.horizon = now
	s.rw.notes++
	s.rw.note = "Forked at " + formatMoment(now) + " s"
	switch dropped {
	case 0:
		s.rw.note += ": what happened after it is replaced by this run"
	case 1:
		s.rw.note += ": 1 later action dropped"
	default:
		s.rw.note += ": " + formatCount(dropped) + " later actions dropped"
	}
}

// forkHere drops the actions of the run's log not yet replayed, as a
// person's action at this point does (fork), recording none: the other
// run of a comparison, when one run took an action of its own. Nothing
// changes when the log has none left or in replay.
func (s *Session) forkHere() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replay != nil || s.run.LogLeft() == 0 {
		return
	}
	s.fork(sim.Step{Do: sim.StepCancel})
}

// changes reports whether a log entry changes the run: all but the marks
// of a pause or a step.
func changes(st sim.Step) bool {
	return st.Do != sim.StepPause && st.Do != sim.StepStep
}

// rewindPanel is the Rewind the panel shows. s.mu must be held.
func (s *Session) rewindPanel() Rewind {
	return Rewind{Horizon: s.horizonLocked(), Fork: s.rw.note, Forks: s.rw.notes,
		Checkpoints: len(s.cps.parked), Building: s.buildingCheckpoints()}
}

// formatMoment writes a moment of a run in seconds to the millisecond,
// as a link's t= carries it: "2.150".
func formatMoment(d time.Duration) string {
	return strconv.FormatFloat(d.Round(time.Millisecond).Seconds(), 'f', 3, 64)
}

// parseMoment reads a link's t=: seconds ("2.15", "2.150") or a Go
// duration ("2150ms", "1m5s"), at least 0 and at most an hour.
func parseMoment(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	var d time.Duration
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if !(f >= 0 && f <= sim.MaxOffsetMS/1000) {
			return 0, fmt.Errorf("the link's moment (t=%s) is not between 0 and %d seconds", truncate(v, 20), sim.MaxOffsetMS/1000)
		}
		d = time.Duration(f * float64(time.Second))
	} else if d, err = time.ParseDuration(v); err != nil || d < 0 || d > sim.MaxOffsetMS*time.Millisecond {
		return 0, fmt.Errorf("the link's moment (t=%s) is not a time such as t=2.150 (seconds)", truncate(v, 20))
	}
	return d.Round(time.Millisecond), nil
}
