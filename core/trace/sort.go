package trace

import "slices"

// sortRun is how many elements sortStablePausing sorts at once, and merges
// between calls of tick: a few milliseconds' worth in WebAssembly.
const sortRun = 4096

// sortStablePausing sorts s as slices.SortStableFunc(s, cmp) does, calling
// tick, if not nil, between slices of the work: runs of sortRun elements
// are sorted one at a time, then merged pairwise, a run's worth of
// elements between calls. A stable sort has one result: this is the one
// SortStableFunc gives. It uses a buffer as long as s.
func sortStablePausing[T any](s []T, cmp func(a, b T) int, tick func()) {
	if tick == nil || len(s) <= sortRun {
		slices.SortStableFunc(s, cmp)
		return
	}
	for i := 0; i < len(s); i += sortRun {
		slices.SortStableFunc(s[i:min(i+sortRun, len(s))], cmp)
		tick()
	}
	src, dst := s, make([]T, len(s))
	merged := 0 // elements merged since the last tick
	for width := sortRun; width < len(s); width *= 2 {
		for lo := 0; lo < len(s); lo += 2 * width {
			mid, hi := min(lo+width, len(s)), min(lo+2*width, len(s))
			i, j, k := lo, mid, lo
			for i < mid || j < hi {
				// The left run's element first at a tie: stable.
				if j == hi || (i < mid && cmp(src[j], src[i]) >= 0) {
					dst[k] = src[i]
					i++
				} else {
					dst[k] = src[j]
					j++
				}
				k++
				if merged++; merged == sortRun {
					merged = 0
					tick()
				}
			}
		}
		src, dst = dst, src
	}
	if &src[0] != &s[0] {
		copy(s, src)
	}
}
