package core

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestWorkQueuePendingModel drives the pending queue with random pushes,
// pops and removals and checks it against a sorted slice.
func TestWorkQueuePendingModel(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		var p wqPending
		var model []*wqTask // in pop order
		var all []*wqTask
		arrival := map[*wqTask]int{}
		nprio := 1 + rng.IntN(6)
		for step := range 5000 {
			switch op := rng.IntN(10); {
			case op < 5:
				task := &wqTask{}
				task.task.priority = Priority(rng.IntN(nprio) - nprio/2)
				arrival[task] = step
				p.push(task)
				all = append(all, task)
				i, _ := slices.BinarySearchFunc(model, task, func(a, b *wqTask) int {
					if a.task.priority != b.task.priority {
						return int(b.task.priority - a.task.priority)
					}
					return arrival[a] - arrival[b]
				})
				model = slices.Insert(model, i, task)
			case op < 8:
				got := p.pop()
				var want *wqTask
				if len(model) > 0 {
					want, model = model[0], model[1:]
				}
				if got != want {
					t.Fatalf("seed %d step %d: pop = %p, want %p", seed, step, got, want)
				}
			default:
				if len(all) == 0 {
					continue
				}
				task := all[rng.IntN(len(all))]
				i := slices.Index(model, task)
				if got := p.remove(task); got != (i >= 0) {
					t.Fatalf("seed %d step %d: remove = %v, want %v", seed, step, got, i >= 0)
				}
				if i >= 0 {
					model = slices.Delete(model, i, i+1)
				}
			}
			if p.len() != len(model) {
				t.Fatalf("seed %d step %d: len = %d, want %d", seed, step, p.len(), len(model))
			}
		}
		if got := p.drain(); !slices.Equal(got, model) {
			t.Fatalf("seed %d: drain returned %d tasks, want %d in order", seed, len(got), len(model))
		}
	}
}
