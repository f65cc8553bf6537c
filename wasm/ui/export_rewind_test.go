package ui

import (
	"slices"
	"time"

	"sluice/core/trace"
)

// Hooks for the external tests of rewinding.

// SessionEvents returns the session's whole event log, oldest first.
func SessionEvents(s *Session) []trace.Entry {
	s.mu.Lock()
	l := s.log
	s.mu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.entries)
}

// SessionSnapshot returns the recorder's whole model of the run: every
// task and lane, and the counter tracks, as of now.
func SessionSnapshot(s *Session) *trace.Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rec.Snapshot(s.run.Clock().Now())
}

// FormatMoment and ParseMoment are a link's t=.
func FormatMoment(d time.Duration) string         { return formatMoment(d) }
func ParseMoment(v string) (time.Duration, error) { return parseMoment(v) }

// SetCheckpointFrom makes runs of at least n tasks build checkpoints,
// right after a seek, until the returned function restores the bounds.
func SetCheckpointFrom(n int) (restore func()) {
	old, quiet := checkpointFrom, checkpointQuiet
	checkpointFrom, checkpointQuiet = n, 0
	return func() { checkpointFrom, checkpointQuiet = old, quiet }
}

// SetCheckpointBudget sets the real time a paused frame spends building
// a checkpoint, until the returned function restores it.
func SetCheckpointBudget(d time.Duration) (restore func()) {
	old := checkpointBudget
	checkpointBudget = d
	return func() { checkpointBudget = old }
}

// SessionCheckpoints returns the moments the session's checkpoints are
// parked at.
func SessionCheckpoints(s *Session) []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	var at []time.Duration
	for _, cp := range s.cps.parked {
		at = append(at, cp.at)
	}
	return at
}

// SessionCheckpointsBuilt returns how many checkpoints the session has
// built so far.
func SessionCheckpointsBuilt(s *Session) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cps.built
}

// SessionGivenUp returns how many runs the session has given up and not
// stopped yet.
func SessionGivenUp(s *Session) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.cps.stale)
}

// SessionBuilding reports the moment the checkpoint being built has
// reached, and whether one is.
func SessionBuilding(s *Session) (time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.cps.building; b != nil {
		return b.set.run.Now(), true
	}
	return 0, false
}

// PageURL returns the page's URL as the playground last set it.
func PageURL() string {
	path, query, hash := location()
	return path + query + hash
}
