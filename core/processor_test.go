package core_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"sluice/core"
)

func upper(_ context.Context, s string) (string, error) {
	if s == "" {
		return "", errors.New("empty")
	}
	return strings.ToUpper(s), nil
}

func TestProcessorProgrammerErrors(t *testing.T) {
	wqMustPanic(t, "NewProcessor(0, fn)", func() { core.NewProcessor(0, upper) })
	wqMustPanic(t, "NewProcessor(1, nil)", func() { core.NewProcessor[int, int](1, nil) })
	p := core.NewProcessor(1, upper)
	defer p.Close()
	wqMustPanic(t, "SetParallelism(-1)", func() { p.SetParallelism(-1) })
}

func TestProcessorProcess(t *testing.T) {
	ctx := t.Context()
	p := core.NewProcessor(2, upper)
	defer p.Close()
	if out, err := p.Process(ctx, "abc"); out != "ABC" || err != nil {
		t.Errorf("Process(abc) = %q, %v; want ABC, nil", out, err)
	}
	if out, err := p.Process(ctx, ""); out != "" || err == nil || err.Error() != "empty" {
		t.Errorf("Process(\"\") = %q, %v; want \"\", empty", out, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if out, err := p.Process(cctx, "x"); out != "" || err != context.Canceled {
		t.Errorf("Process with a done context = %q, %v; want \"\", %v", out, err, context.Canceled)
	}
	s := p.Stats()
	wqCheckStats(t, s)
	if s.Submitted != 2 || s.Succeeded != 1 || s.Failed != 1 || s.Parallelism != 2 {
		t.Errorf("stats = %+v, want 2 submitted, 1 succeeded, 1 failed, parallelism 2", s)
	}
}

func TestProcessorPanic(t *testing.T) {
	p := core.NewProcessor(1, func(_ context.Context, n int) (int, error) {
		if n < 0 {
			panic(fmt.Sprintf("negative: %d", n))
		}
		return 2 * n, nil
	})
	defer p.Close()
	out, err := p.Process(t.Context(), -1)
	var pe *core.PanicError
	if out != 0 || !errors.As(err, &pe) || pe.Value != "negative: -1" {
		t.Errorf("Process(-1) = %d, %v; want 0 and a *PanicError", out, err)
	}
	f, _ := p.Submit(t.Context(), -2)
	if out, err := f.Wait(t.Context()); out != 0 || !errors.As(err, &pe) {
		t.Errorf("Future.Wait = %d, %v; want 0 and a *PanicError", out, err)
	}
	if out, err := p.Process(t.Context(), 21); out != 42 || err != nil {
		t.Errorf("Process(21) after panics = %d, %v; want 42, nil", out, err)
	}
}

func TestProcessorFuture(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		release := make(chan struct{})
		p := core.NewProcessor(1, func(ctx context.Context, s string) (string, error) {
			if s == "block" {
				select {
				case <-release:
				case <-ctx.Done():
					return "stopped", ctx.Err()
				}
			}
			return upper(ctx, s)
		}, core.WithCapacity(2))
		defer p.Close()
		blocker, err := p.Submit(ctx, "block", core.WithName("blocker"))
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if blocker.State() != core.TaskRunning || blocker.Name() != "blocker" || blocker.Task().ID() != blocker.ID() {
			t.Errorf("blocker: state %v, name %q; want running, blocker", blocker.State(), blocker.Name())
		}
		later, _ := p.Submit(ctx, "later", core.WithPriority(core.Low))
		sooner, _ := p.TrySubmit("sooner", core.WithPriority(core.High))
		if _, err := p.TrySubmit("full"); err != core.ErrFull {
			t.Errorf("TrySubmit when full = %v, want %v", err, core.ErrFull)
		}
		if later.Priority() != core.Low || sooner.Priority() != core.High {
			t.Errorf("priorities = %v, %v; want low, high", later.Priority(), sooner.Priority())
		}
		// Waiting gives up when its context ends, without canceling.
		wctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		if out, err := later.Wait(wctx); out != "" || err != context.DeadlineExceeded {
			t.Errorf("later.Wait with a short context = %q, %v; want \"\", %v", out, err, context.DeadlineExceeded)
		}
		if later.State() != core.TaskPending || later.Err() != nil {
			t.Errorf("later: state %v, err %v; want pending, nil", later.State(), later.Err())
		}
		sooner.Cancel()
		<-sooner.Done()
		if out, err := sooner.Wait(ctx); out != "" || err != context.Canceled {
			t.Errorf("canceled sooner.Wait = %q, %v; want \"\", %v", out, err, context.Canceled)
		}
		blocker.Cancel()
		if out, err := blocker.Wait(ctx); out != "stopped" || err != context.Canceled {
			t.Errorf("blocker.Wait = %q, %v; want stopped, %v", out, err, context.Canceled)
		}
		if out, err := later.Wait(ctx); out != "LATER" || err != nil {
			t.Errorf("later.Wait = %q, %v; want LATER, nil", out, err)
		}
		close(release)
	})
}

func TestProcessorNested(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var p *core.Processor[int, int]
		p = core.NewProcessor(1, func(ctx context.Context, n int) (int, error) {
			if n <= 1 {
				return 1, nil
			}
			// Both run at once in this call's slot.
			a, err := p.Process(ctx, n-1)
			if err != nil {
				return 0, err
			}
			f, err := p.Submit(ctx, n-2)
			if err != nil {
				return 0, err
			}
			b, err := f.Wait(ctx)
			return a + b, err
		}, core.WithCapacity(1))
		defer p.Close()
		if out, err := p.Process(t.Context(), 10); out != 89 || err != nil {
			t.Errorf("Process(10) = %d, %v; want 89, nil", out, err)
		}
	})
}

func TestProcessorCloseAndDrain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := core.NewProcessor(2, func(ctx context.Context, d time.Duration) (time.Duration, error) {
			select {
			case <-time.After(d):
				return d, nil
			case <-ctx.Done():
				return 0, ctx.Err()
			}
		})
		var futures []*core.Future[time.Duration]
		for i := range 4 {
			f, _ := p.Submit(t.Context(), time.Duration(i+1)*time.Second)
			futures = append(futures, f)
		}
		dctx, cancel := context.WithTimeout(t.Context(), 2500*time.Millisecond)
		defer cancel()
		if err := p.Drain(dctx); err != context.DeadlineExceeded {
			t.Errorf("Drain with a short context = %v, want %v", err, context.DeadlineExceeded)
		}
		if _, err := p.Process(t.Context(), time.Second); err != core.ErrClosed {
			t.Errorf("Process while draining = %v, want %v", err, core.ErrClosed)
		}
		if _, err := p.Submit(t.Context(), time.Second); err != core.ErrClosed {
			t.Errorf("Submit while draining = %v, want %v", err, core.ErrClosed)
		}
		if _, err := p.TrySubmit(time.Second); err != core.ErrClosed {
			t.Errorf("TrySubmit while draining = %v, want %v", err, core.ErrClosed)
		}
		p.Close()
		var got []string
		for _, f := range futures {
			out, err := f.Wait(t.Context())
			got = append(got, fmt.Sprint(out, err))
		}
		want := []string{"1s <nil>", "2s <nil>", "0s context canceled", "0s context canceled"}
		if !slices.Equal(got, want) {
			t.Errorf("results = %q, want %q", got, want)
		}
		if err := p.Drain(t.Context()); err != nil {
			t.Errorf("Drain after Close = %v, want nil", err)
		}
		s := p.Stats()
		wqCheckStats(t, s)
	})
}

func TestProcessorConcurrent(t *testing.T) {
	p := core.NewProcessor(4, func(_ context.Context, n int) (int, error) { return n * n, nil })
	defer p.Close()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				n := g*1000 + i
				if out, err := p.Process(t.Context(), n); out != n*n || err != nil {
					t.Errorf("Process(%d) = %d, %v; want %d, nil", n, out, err, n*n)
					return
				}
			}
		})
	}
	wg.Wait()
	s := p.Stats()
	wqCheckStats(t, s)
	if s.Succeeded != 4000 || s.MaxRunning > 4 {
		t.Errorf("stats = %+v, want 4000 succeeded, MaxRunning at most 4", s)
	}
}

// A Processor is a WorkQueue for one function: each call returns its own
// result, at once with Process or later through a Future.
func ExampleProcessor() {
	ctx := context.Background()
	words := core.NewProcessor(4, func(ctx context.Context, s string) (int, error) {
		return len(strings.Fields(s)), nil
	})
	defer words.Close()

	n, err := words.Process(ctx, "the quick brown fox")
	fmt.Println(n, err)

	var futures []*core.Future[int]
	for _, s := range []string{"one", "two words", "and then three"} {
		f, err := words.Submit(ctx, s)
		if err != nil {
			fmt.Println("submit:", err)
			return
		}
		futures = append(futures, f)
	}
	for _, f := range futures {
		n, err := f.Wait(ctx)
		fmt.Println(n, err)
	}
	// Output:
	// 4 <nil>
	// 1 <nil>
	// 2 <nil>
	// 3 <nil>
}
