package trace

import (
	"slices"
	"testing"
)

// A ring with room reserved holds and evicts what one without does, and
// does not grow its array while the values fit the room.
func TestRingReserve(t *testing.T) {
	for _, c := range []struct{ max, reserve, push int }{
		{10, 100, 25}, {10, 5, 25}, {1000, 600, 500}, {1000, 600, 700},
	} {
		plain, reserved := newRing[int](c.max), newRing[int](c.max)
		reserved.reserve(c.reserve)
		room := cap(reserved.buf)
		if want := min(c.reserve, c.max); room != want {
			t.Errorf("max %d, reserve(%d): room for %d, want %d", c.max, c.reserve, room, want)
		}
		var evicted, evictedR []int
		for i := range c.push {
			if old, ok := plain.push(i); ok {
				evicted = append(evicted, old)
			}
			if old, ok := reserved.push(i); ok {
				evictedR = append(evictedR, old)
			}
			if i < room && cap(reserved.buf) != room {
				t.Fatalf("max %d, reserve(%d): the array grew to %d at push %d", c.max, c.reserve, cap(reserved.buf), i)
			}
		}
		var held, heldR []int
		for i := range plain.len() {
			held = append(held, *plain.at(i))
		}
		for i := range reserved.len() {
			heldR = append(heldR, *reserved.at(i))
		}
		if !slices.Equal(held, heldR) || !slices.Equal(evicted, evictedR) {
			t.Errorf("max %d, reserve(%d), %d pushed: holds %v, evicted %v; without reserve %v and %v", c.max, c.reserve, c.push, heldR, evictedR, held, evicted)
		}
	}
}
