package ui

import (
	"runtime/debug"
	"testing"
	"time"
)

// TestSeekHoldsTheCollectorBack: a seek leaves the collector held back
// (GOGC 400), so that it does not collect amid the landing's render; the
// first frame after gcHoldAfter sets it back, and so does Close.
func TestSeekHoldsTheCollectorBack(t *testing.T) {
	_, s := driverOn(t)
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	if err := s.Seek(time.Second); err != nil {
		t.Fatal(err)
	}
	if got := gcPercent(); got != 400 {
		t.Errorf("just after a seek, GOGC is %d, want 400", got)
	}
	s.Frame(0, defaultSpan)
	if got := gcPercent(); got != 400 {
		t.Errorf("a frame right after a seek: GOGC is %d, want 400 still", got)
	}
	gcHold.mu.Lock()
	gcHold.until = time.Now().Add(-time.Millisecond) // the hold has run out
	gcHold.mu.Unlock()
	s.Frame(0, defaultSpan)
	if got := gcPercent(); got != 100 {
		t.Errorf("a frame after the hold: GOGC is %d, want 100 again", got)
	}
	if err := s.Seek(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if got := gcPercent(); got != 100 {
		t.Errorf("after Close: GOGC is %d, want 100 again", got)
	}
}

func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}
