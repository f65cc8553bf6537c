package ui

import (
	"runtime/debug"
	"sync"
	"time"
)

// A seek replays part of a run, which allocates its model all at once:
// collecting less often meanwhile saves a good part of its time (wasm has
// one thread). Setting the collector back at the seek's end, though,
// starts a collection at once, whose marking (about 100 ms with a 10,000-
// task run and its checkpoints in the page) then delays the landing's
// render. So the collector is held back (holdGC) while seeks run and for
// gcHoldAfter after the last, a drag's many seeks included, and set back
// (releaseGC) by the first frame after that: the collection comes once the
// moment is shown.
var gcHold struct {
	mu    sync.Mutex
	on    bool
	was   int       // the GC percent before
	until time.Time // no release before
}

// gcHoldAfter is how long after a seek the collector stays held back.
const gcHoldAfter = 250 * time.Millisecond

// holdGC holds the collector back (GOGC 400) until at least gcHoldAfter
// from now.
func holdGC() {
	gcHold.mu.Lock()
	defer gcHold.mu.Unlock()
	if !gcHold.on {
		gcHold.was, gcHold.on = debug.SetGCPercent(400), true
	}
	gcHold.until = time.Now().Add(gcHoldAfter)
}

// releaseGC sets the collector back once the hold has run out, or at once
// if now is set.
func releaseGC(now bool) {
	gcHold.mu.Lock()
	defer gcHold.mu.Unlock()
	if gcHold.on && (now || time.Now().After(gcHold.until)) {
		debug.SetGCPercent(gcHold.was)
		gcHold.on = false
	}
}
