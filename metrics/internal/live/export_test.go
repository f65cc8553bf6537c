package live

// SetMaxRing bounds t's ring to n slots (a power of two, at least
// RingSize) instead of MaxRingSize, so that a test reaches the bound with
// fewer tasks.
func (t *Tracker[P]) SetMaxRing(n int) { t.maxRing = n }
