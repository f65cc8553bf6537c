package core_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"

	"sluice/core"
)

// TestWaitingContextIsLookedAt checks the contract for a waiting task
// whose submitter's context ends: the queue does not watch that context,
// yet the task never runs, and it ends canceled as soon as anything looks
// at it: its handle, Stats, a submit that finds the queue full, or a
// caller waiting on its Done channel.
func TestWaitingContextIsLookedAt(t *testing.T) {
	why := errors.New("why")
	// waitingFor makes a queue of parallelism 1 whose one slot a gated
	// task holds, with a task behind it submitted with a context of its
	// own, and returns them, the queue's recorder, whether the task ran,
	// and the context's cancel.
	waitingFor := func(t *testing.T, opts ...core.Option) (*core.WorkQueue, *wqGate, *core.Task, *recorder, *bool, context.CancelCauseFunc) {
		var rec recorder
		q := core.NewWorkQueue(1, append(opts, core.WithObserver(rec.observe))...)
		t.Cleanup(func() { q.Close() })
		g := newWQGate()
		if err := q.Go(t.Context(), g.fn); err != nil {
			t.Fatal(err)
		}
		<-g.started
		ctx, cancel := context.WithCancelCause(t.Context())
		ran := new(bool)
		tk, err := q.Submit(ctx, func(context.Context) error { *ran = true; return nil })
		if err != nil {
			t.Fatal(err)
		}
		return q, g, tk, &rec, ran, cancel
	}
	// waiting is waitingFor with the context canceled.
	waiting := func(t *testing.T, opts ...core.Option) (*core.WorkQueue, *wqGate, *core.Task, *recorder, *bool) {
		q, g, tk, rec, ran, cancel := waitingFor(t, opts...)
		cancel(why)
		synctest.Wait()
		return q, g, tk, rec, ran
	}
	wantEvents := []core.EventKind{core.Enqueued, core.Waiting, core.Canceled}

	t.Run("Stats counts it canceled", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q, g, tk, rec, ran := waiting(t)
			if st := q.Stats(); st.Canceled != 1 || st.Pending != 0 || st.Running != 1 {
				t.Errorf("Stats = %+v, want 1 canceled, 0 pending, 1 running", st)
			}
			if got := rec.kinds(tk.ID()); !slices.Equal(got, wantEvents) {
				t.Errorf("events = %v, want %v", got, wantEvents)
			}
			close(g.release)
			q.Drain(t.Context())
			if *ran {
				t.Error("the canceled task ran")
			}
		})
	})
	t.Run("State and Err", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q, g, tk, _, _ := waiting(t)
			if got := tk.State(); got != core.TaskCanceled {
				t.Errorf("State = %v, want %v", got, core.TaskCanceled)
			}
			if err := tk.Err(); !errors.Is(err, context.Canceled) {
				t.Errorf("Err = %v, want %v", err, context.Canceled)
			}
			if st := q.Stats(); st.Canceled != 1 || st.Pending != 0 {
				t.Errorf("Stats = %+v, want 1 canceled, 0 pending", st)
			}
			close(g.release)
		})
	})
	t.Run("a task never reached is never run", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q, g, tk, rec, ran := waiting(t)
			close(g.release)
			if err := q.Drain(t.Context()); err != nil {
				t.Fatal(err)
			}
			if *ran {
				t.Error("the canceled task ran")
			}
			if got := rec.kinds(tk.ID()); !slices.Equal(got, wantEvents) {
				t.Errorf("events = %v, want %v", got, wantEvents)
			}
		})
	})
	t.Run("Done closes when the context ends", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			_, g, tk, rec, _, cancel := waitingFor(t)
			defer close(g.release)
			done := tk.Done()
			cancel(why)
			synctest.Wait()
			select {
			case <-done:
			default:
				t.Fatal("Done still open after the submitter's context ended")
			}
			if got := rec.kinds(tk.ID()); !slices.Equal(got, wantEvents) {
				t.Errorf("events = %v, want %v", got, wantEvents)
			}
		})
	})
	t.Run("a full queue finds the room", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q, g, _, _, _ := waiting(t, core.WithCapacity(1))
			if _, err := q.TrySubmit(nop); err != nil {
				t.Errorf("TrySubmit = %v, want nil: the waiting task's context ended", err)
			}
			if _, err := q.TrySubmit(nop); !errors.Is(err, core.ErrFull) {
				t.Errorf("second TrySubmit = %v, want %v", err, core.ErrFull)
			}
			close(g.release)
		})
	})
	t.Run("a Submit waiting for room gets it", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := core.NewWorkQueue(1, core.WithCapacity(1))
			defer q.Close()
			g := newWQGate()
			q.Go(t.Context(), g.fn)
			<-g.started
			defer close(g.release)
			ctxs := make([]context.CancelFunc, 2)
			for i := range ctxs {
				ctx, cancel := context.WithCancel(t.Context())
				ctxs[i] = cancel
				if i == 0 {
					if _, err := q.Submit(ctx, nop); err != nil {
						t.Fatal(err)
					}
					continue
				}
				// The second waits for room, then is granted the room of
				// the first while a third call still waits.
				go q.Submit(ctx, nop)
				synctest.Wait()
			}
			third := make(chan error, 1)
			go func() {
				_, err := q.Submit(t.Context(), nop)
				third <- err
			}()
			synctest.Wait()
			ctxs[0]()
			synctest.Wait()
			ctxs[1]()
			synctest.Wait()
			select {
			case err := <-third:
				if err != nil {
					t.Errorf("Submit = %v, want nil", err)
				}
			default:
				t.Error("Submit still waits for room that two canceled tasks made")
			}
		})
	})
	t.Run("a full lane finds the room", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := core.NewKeyedQueue[string](core.WithCapacity(1))
			defer q.Close()
			g := newGate()
			q.Submit(t.Context(), "a", g.fn)
			<-g.started
			ctx, cancel := context.WithCancel(t.Context())
			if _, err := q.Submit(ctx, "a", nop); err != nil {
				t.Fatal(err)
			}
			cancel()
			synctest.Wait()
			if _, err := q.TrySubmit("a", nop); err != nil {
				t.Errorf("TrySubmit = %v, want nil: the waiting task's context ended", err)
			}
			if st := q.Stats(); st.Canceled != 1 || st.Pending != 1 {
				t.Errorf("Stats = %+v, want 1 canceled, 1 pending", st)
			}
			close(g.release)
		})
	})
	t.Run("Stats cancels lane backlogs in submission order", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var rec recorder
			q := core.NewKeyedQueue[int](core.WithObserver(rec.observe))
			defer q.Close()
			const keys = 16
			gates := make([]*gate, keys)
			for k := range keys {
				gates[k] = newGate()
				q.Submit(t.Context(), k, gates[k].fn)
				<-gates[k].started
			}
			ctx, cancel := context.WithCancel(t.Context())
			var ids []uint64
			for k := keys - 1; k >= 0; k-- {
				tk, err := q.Submit(ctx, k, nop)
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, tk.ID())
			}
			cancel()
			synctest.Wait()
			if st := q.Stats(); st.Canceled != keys {
				t.Errorf("Stats.Canceled = %d, want %d", st.Canceled, keys)
			}
			var got []uint64
			for _, e := range rec.all() {
				if e.Kind == core.Canceled {
					got = append(got, e.Task)
				}
			}
			if !slices.Equal(got, ids) {
				t.Errorf("Canceled events for tasks %v, want %v (submission order)", got, ids)
			}
			for _, g := range gates {
				close(g.release)
			}
		})
	})
}
