package core

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// pendingItem is a task of the model in TestWorkQueuePendingModel: a task
// with a handle, or a bare one whose function returns its id.
type pendingItem struct {
	t    *wqTask
	id   int
	prio Priority
}

type bareID int

func (b bareID) Error() string { return "bare" }

// identify returns the model item an entry stands for.
func identify(e wqEntry) pendingItem {
	if e.t != nil {
		return pendingItem{t: e.t, prio: e.t.task.priority}
	}
	if e.fn == nil {
		return pendingItem{}
	}
	var id bareID
	errors.As(e.fn(context.Background()), &id)
	return pendingItem{id: int(id)}
}

// TestWorkQueuePendingModel drives the pending queue with random pushes of
// tasks with and without a handle, pops and removals, and checks it
// against a sorted slice.
func TestWorkQueuePendingModel(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		var p wqPending
		var model []pendingItem // in pop order
		var all []*wqTask
		arrival := map[pendingItem]int{}
		nprio := 1 + rng.IntN(6)
		for step := range 5000 {
			switch op := rng.IntN(10); {
			case op < 5:
				it := pendingItem{prio: Priority(rng.IntN(nprio) - nprio/2)}
				if rng.IntN(2) == 0 {
					it.t = &wqTask{}
					it.t.task.priority = it.prio
					p.push(it.t)
					all = append(all, it.t)
				} else {
					it.id = step + 1
					p.pushBare(func(context.Context) error { return bareID(it.id) }, it.prio)
				}
				arrival[pendingItem{t: it.t, id: it.id}] = step
				i, _ := slices.BinarySearchFunc(model, it, func(a, b pendingItem) int {
					if a.prio != b.prio {
						return int(b.prio - a.prio)
					}
					return arrival[pendingItem{t: a.t, id: a.id}] - arrival[pendingItem{t: b.t, id: b.id}]
				})
				model = slices.Insert(model, i, it)
			case op == 5 && len(model) > 0:
				// Take a run of bare tasks, as a worker's batch does.
				dst := make([]func(context.Context) error, 1+rng.IntN(8))
				prio := model[0].prio
				k := p.popBare(dst, prio)
				want := 0
				for want < len(dst) && want < len(model) && model[want].t == nil && model[want].prio == prio {
					want++
				}
				if k != want {
					t.Fatalf("seed %d step %d: popBare = %d, want %d", seed, step, k, want)
				}
				for i := range k {
					if got := identify(wqEntry{fn: dst[i]}); got.id != model[i].id {
						t.Fatalf("seed %d step %d: popBare[%d] = %d, want %d", seed, step, i, got.id, model[i].id)
					}
				}
				// Give some back, last first, as a preempted batch does.
				back := rng.IntN(k + 1)
				for i := k - 1; i >= k-back; i-- {
					p.pushFrontBare(dst[i], prio)
				}
				model = model[k-back:]
			case op < 8:
				got := identify(p.pop())
				var want pendingItem
				if len(model) > 0 {
					want, model = model[0], model[1:]
				}
				if got.t != want.t || got.id != want.id {
					t.Fatalf("seed %d step %d: pop = %+v, want %+v", seed, step, got, want)
				}
			default:
				if len(all) == 0 {
					continue
				}
				task := all[rng.IntN(len(all))]
				i := slices.IndexFunc(model, func(it pendingItem) bool { return it.t == task })
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
		var wantTasks []*wqTask
		wantBare := 0
		for _, it := range model {
			if it.t != nil {
				wantTasks = append(wantTasks, it.t)
			} else {
				wantBare++
			}
		}
		tasks, bare := p.drain()
		if !slices.Equal(tasks, wantTasks) || bare != wantBare {
			t.Fatalf("seed %d: drain returned %d tasks and %d bare, want %d and %d in order",
				seed, len(tasks), bare, len(wantTasks), wantBare)
		}
	}
}
