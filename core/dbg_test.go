package core_test

import (
	"context"
	"testing"
	"testing/synctest"

	"sluice/core"
)

func TestDbg(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec recorder
		q := core.NewKeyedQueue[int](core.WithCapacity(1), core.WithParallelism(2), core.WithObserver(rec.observe))
		defer q.Close()
		g := newGate()
		q.Submit(context.Background(), 0, g.fn)
		q.Submit(context.Background(), 0, nop)
		ctx, cancel := context.WithCancel(context.Background())
		ret := make(chan error, 2)
		go func() { _, err := q.Submit(ctx, 0, nop); ret <- err }()
		synctest.Wait()
		go func() { ret <- q.Do(context.Background(), 0, nop) }()
		synctest.Wait()
		_, err := q.TrySubmit(0, nop)
		t.Logf("try %v", err)
		cancel()
		synctest.Wait()
		select {
		case err := <-ret:
			t.Logf("returned %v", err)
		default:
			t.Logf("not returned")
		}
		close(g.release)
		synctest.Wait()
		t.Logf("%+v %d", q.Stats(), len(ret))
	})
}
