package trace

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// sortStablePausing sorts as slices.SortStableFunc does, ties in their
// order, whatever the length (one run, several, a power of two or not),
// and ticks between runs.
func TestSortStablePausing(t *testing.T) {
	type item struct{ key, seq int }
	byKey := func(a, b item) int { return cmp.Compare(a.key, b.key) }
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 100, sortRun, sortRun + 1, 2 * sortRun, 3*sortRun + 17, 5 * sortRun, 9*sortRun - 1} {
		for _, keys := range []int{1, 7, 1 << 30} {
			t.Run(fmt.Sprintf("%d of %d keys", n, keys), func(t *testing.T) {
				s := make([]item, n)
				for i := range s {
					s[i] = item{rng.IntN(keys), i}
				}
				want := slices.Clone(s)
				slices.SortStableFunc(want, byKey)
				ticks := 0
				sortStablePausing(s, byKey, func() { ticks++ })
				if !slices.Equal(s, want) {
					i := 0
					for s[i] == want[i] {
						i++
					}
					t.Fatalf("sorted differently from SortStableFunc: [%d] = %v, want %v", i, s[i], want[i])
				}
				if n > sortRun && ticks < n/sortRun {
					t.Errorf("%d ticks for %d elements, want one per %d at least", ticks, n, sortRun)
				}
			})
		}
	}
}
