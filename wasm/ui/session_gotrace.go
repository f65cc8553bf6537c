package ui

import "strings"

// NoteGoTrace completes what the view of a loaded trace says of it, for a
// Go execution trace read by the Go-trace worker: drawn (its span and its
// sluice tasks by queue) goes before the note on its times, omitted (what
// the timeline does not draw) before the trace's own omissions. It does
// nothing when no trace is shown.
func (s *Session) NoteGoTrace(drawn, omitted string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.replay
	if rp == nil {
		return
	}
	if drawn != "" {
		rp.times = drawn + " " + rp.times
	}
	var parts []string
	for _, p := range []string{omitted, rp.omitted} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	rp.omitted = strings.Join(parts, "; ")
}
