package sim_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"sluice/core"
	"sluice/wasm/sim"
)

var _ core.Clock = (*sim.Clock)(nil)

func TestClockOrder(t *testing.T) {
	c := sim.NewClock(sim.Epoch)
	var got []string
	add := func(name string, d time.Duration) core.Timer {
		return c.AfterFunc(d, func() {
			got = append(got, fmt.Sprintf("%s@%v", name, c.Now().Sub(sim.Epoch)))
		})
	}
	add("c", 3*time.Second)
	add("a", time.Second)
	add("b1", 2*time.Second)
	add("b2", 2*time.Second) // same deadline: after b1, which was set first
	add("b3", 2*time.Second)
	add("z", 0)
	c.Advance(2500 * time.Millisecond)
	want := []string{"z@0s", "a@1s", "b1@2s", "b2@2s", "b3@2s"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("fired %v, want %v", got, want)
	}
	if now := c.Now().Sub(sim.Epoch); now != 2500*time.Millisecond {
		t.Errorf("Now = %v after Advance(2.5s), want 2.5s", now)
	}
	if n := c.Pending(); n != 1 {
		t.Errorf("Pending = %d, want 1 (c)", n)
	}
	if next, ok := c.Next(); !ok || next.Sub(sim.Epoch) != 3*time.Second {
		t.Errorf("Next = %v, %v; want 3s, true", next.Sub(sim.Epoch), ok)
	}
}

func TestClockTimersSetWhileFiring(t *testing.T) {
	c := sim.NewClock(sim.Epoch)
	var got []string
	c.AfterFunc(time.Second, func() {
		got = append(got, "first")
		// Within the span being advanced: fires in this Advance, in order.
		c.AfterFunc(500*time.Millisecond, func() { got = append(got, "inner@1.5s") })
		c.AfterFunc(0, func() { got = append(got, "inner@1s") })
		// Beyond it: waits.
		c.AfterFunc(5*time.Second, func() { got = append(got, "late") })
	})
	c.AfterFunc(1200*time.Millisecond, func() { got = append(got, "second@1.2s") })
	c.Advance(2 * time.Second)
	want := []string{"first", "inner@1s", "second@1.2s", "inner@1.5s"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("fired %v, want %v", got, want)
	}
	if n := c.Pending(); n != 1 {
		t.Errorf("Pending = %d, want 1", n)
	}
}

func TestClockStopReset(t *testing.T) {
	t.Run("Stop", func(t *testing.T) {
		c := sim.NewClock(sim.Epoch)
		fired := 0
		tm := c.AfterFunc(time.Second, func() { fired++ })
		if !tm.Stop() {
			t.Errorf("Stop on a pending timer = false, want true")
		}
		if tm.Stop() {
			t.Errorf("second Stop = true, want false")
		}
		c.Advance(2 * time.Second)
		if fired != 0 {
			t.Errorf("stopped timer fired %d times", fired)
		}
		tm2 := c.AfterFunc(time.Second, func() { fired++ })
		c.Advance(time.Second)
		if tm2.Stop() {
			t.Errorf("Stop after firing = true, want false")
		}
		if fired != 1 {
			t.Errorf("fired %d times, want 1", fired)
		}
	})
	t.Run("Reset", func(t *testing.T) {
		c := sim.NewClock(sim.Epoch)
		var at []time.Duration
		var tm core.Timer
		tm = c.AfterFunc(time.Second, func() { at = append(at, c.Now().Sub(sim.Epoch)) })
		if !tm.Reset(3 * time.Second) {
			t.Errorf("Reset on a pending timer = false, want true")
		}
		c.Advance(2 * time.Second)
		if len(at) != 0 {
			t.Fatalf("timer fired at %v before its new deadline", at)
		}
		c.Advance(time.Second)
		if fmt.Sprint(at) != "[3s]" {
			t.Fatalf("fired at %v, want [3s]", at)
		}
		if tm.Reset(time.Second) {
			t.Errorf("Reset after firing = true, want false")
		}
		c.Advance(time.Second)
		if fmt.Sprint(at) != "[3s 4s]" {
			t.Errorf("fired at %v, want [3s 4s]: Reset re-arms a fired timer", at)
		}
		tm.Stop()
		if tm.Reset(time.Second) {
			t.Errorf("Reset after Stop = true, want false")
		}
		c.Advance(time.Second)
		if fmt.Sprint(at) != "[3s 4s 5s]" {
			t.Errorf("fired at %v, want [3s 4s 5s]: Reset re-arms a stopped timer", at)
		}
	})
	t.Run("ResetOrder", func(t *testing.T) {
		c := sim.NewClock(sim.Epoch)
		var got []string
		a := c.AfterFunc(time.Second, func() { got = append(got, "a") })
		c.AfterFunc(time.Second, func() { got = append(got, "b") })
		a.Reset(time.Second) // set anew: now after b
		c.Advance(time.Second)
		if fmt.Sprint(got) != "[b a]" {
			t.Errorf("fired %v, want [b a]", got)
		}
	})
}

func TestClockStep(t *testing.T) {
	c := sim.NewClock(sim.Epoch)
	if c.Step() {
		t.Fatalf("Step with no timer = true, want false")
	}
	if now := c.Now(); !now.Equal(sim.Epoch) {
		t.Fatalf("Step with no timer moved the clock to %v", now)
	}
	var got []string
	c.AfterFunc(2*time.Second, func() { got = append(got, "b") })
	c.AfterFunc(time.Second, func() { got = append(got, "a1") })
	c.AfterFunc(time.Second, func() { got = append(got, "a2") })
	for i, want := range []struct {
		fired string
		now   time.Duration
	}{{"[a1]", time.Second}, {"[a1 a2]", time.Second}, {"[a1 a2 b]", 2 * time.Second}} {
		if !c.Step() {
			t.Fatalf("step %d: Step = false, want true", i)
		}
		if fmt.Sprint(got) != want.fired || c.Now().Sub(sim.Epoch) != want.now {
			t.Errorf("step %d: fired %v at %v, want %v at %v", i, got, c.Now().Sub(sim.Epoch), want.fired, want.now)
		}
	}
	if c.Step() {
		t.Errorf("Step after the last timer = true, want false")
	}
}

func TestClockNeverCallsSynchronously(t *testing.T) {
	c := sim.NewClock(sim.Epoch)
	called := false
	tm := c.AfterFunc(0, func() { called = true })
	if called {
		t.Fatalf("AfterFunc(0) called f synchronously")
	}
	tm.Reset(-time.Second)
	if called {
		t.Fatalf("Reset called f synchronously")
	}
	c.Advance(0)
	if !called {
		t.Errorf("Advance(0) did not fire a timer due now")
	}
}

func TestClockFunctionsMayUseTheClock(t *testing.T) {
	// f is called without the clock's lock held: it can read the time,
	// set, stop and reset timers, including its own.
	c := sim.NewClock(sim.Epoch)
	n := 0
	var tm core.Timer
	tm = c.AfterFunc(time.Second, func() {
		n++
		_ = c.Now()
		_ = c.Pending()
		c.AfterFunc(time.Hour, func() {}).Stop()
		if n < 3 {
			tm.Reset(time.Second)
		}
	})
	c.Advance(10 * time.Second)
	if n != 3 {
		t.Errorf("self-resetting timer fired %d times, want 3", n)
	}
}

func TestClockAdvancePanicsOnNegative(t *testing.T) {
	defer func() {
		v := recover()
		if s, _ := v.(string); !strings.HasPrefix(s, "sim: ") {
			t.Errorf("Advance(-1) panicked with %v, want a message prefixed \"sim: \"", v)
		}
	}()
	sim.NewClock(sim.Epoch).Advance(-1)
}

// waitPending yields until c has n pending timers; it never sleeps.
func waitPending(t *testing.T, c *sim.Clock, n int) {
	t.Helper()
	for i := 0; c.Pending() != n; i++ {
		if i > 1_000_000 {
			t.Fatalf("Pending = %d, want %d", c.Pending(), n)
		}
		runtime.Gosched()
	}
}

func TestClockSleep(t *testing.T) {
	t.Run("Elapses", func(t *testing.T) {
		c := sim.NewClock(sim.Epoch)
		done := make(chan error, 1)
		go func() { done <- c.Sleep(context.Background(), time.Second) }()
		waitPending(t, c, 1)
		c.Advance(999 * time.Millisecond)
		if c.Pending() != 1 {
			t.Fatalf("the sleep's timer fired 1 ms early")
		}
		c.Advance(time.Millisecond)
		if err := <-done; err != nil {
			t.Errorf("Sleep = %v, want nil", err)
		}
	})
	t.Run("Canceled", func(t *testing.T) {
		c := sim.NewClock(sim.Epoch)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- c.Sleep(ctx, time.Second) }()
		waitPending(t, c, 1)
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Sleep = %v, want context.Canceled", err)
		}
		if n := c.Pending(); n != 0 {
			t.Errorf("Pending = %d after a canceled Sleep, want 0: its timer must be stopped", n)
		}
	})
	t.Run("AlreadyCanceled", func(t *testing.T) {
		c := sim.NewClock(sim.Epoch)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := c.Sleep(ctx, time.Second); !errors.Is(err, context.Canceled) {
			t.Errorf("Sleep = %v, want context.Canceled", err)
		}
		if err := c.Sleep(context.Background(), 0); err != nil {
			t.Errorf("Sleep(0) = %v, want nil", err)
		}
		if n := c.Pending(); n != 0 {
			t.Errorf("Pending = %d, want 0", n)
		}
	})
}

func TestClockConcurrent(t *testing.T) {
	// Many goroutines set, stop and reset timers and read the time while
	// one advances the clock; every timer not stopped fires exactly once.
	c := sim.NewClock(sim.Epoch)
	const workers, each = 8, 50
	var mu sync.Mutex
	fired := make(map[int]int)
	var wg sync.WaitGroup
	stopped := make([][]int, workers) // stopped before firing: never fire
	rearmed := make([][]int, workers) // reset after firing: fire twice
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				id := w*each + i
				tm := c.AfterFunc(time.Duration(i%7)*time.Millisecond, func() {
					mu.Lock()
					fired[id]++
					mu.Unlock()
				})
				switch i % 5 {
				case 0:
					if tm.Stop() {
						stopped[w] = append(stopped[w], id)
					}
				case 1:
					if !tm.Reset(3 * time.Millisecond) {
						rearmed[w] = append(rearmed[w], id)
					}
				}
				_ = c.Now()
			}
		}()
	}
	advDone := make(chan struct{})
	go func() {
		defer close(advDone)
		for range 200 {
			c.Advance(time.Millisecond)
			runtime.Gosched()
		}
	}()
	wg.Wait()
	<-advDone
	c.Advance(time.Second)
	want := make(map[int]int)
	for id := range workers * each {
		want[id] = 1
	}
	for w := range workers {
		for _, id := range stopped[w] {
			want[id] = 0
		}
		for _, id := range rearmed[w] {
			want[id] = 2
		}
	}
	for id := range workers * each {
		want := want[id]
		if fired[id] != want {
			t.Errorf("timer %d fired %d times, want %d", id, fired[id], want)
		}
	}
	if n := c.Pending(); n != 0 {
		t.Errorf("Pending = %d, want 0", n)
	}
}

func TestFrameStep(t *testing.T) {
	for _, tc := range []struct {
		frame time.Duration
		speed float64
		want  time.Duration
	}{
		{16 * time.Millisecond, 1, 16 * time.Millisecond},
		{16 * time.Millisecond, 0, 16 * time.Millisecond},
		{16 * time.Millisecond, 2.5, 40 * time.Millisecond},
		{10 * time.Millisecond, 0.01, time.Millisecond},      // clamped to 0.1x
		{10 * time.Millisecond, 100, 100 * time.Millisecond}, // clamped to 10x
		{time.Minute, 1, sim.MaxFrame},                       // a tab back from the background
		{-time.Second, 1, 0},
		{10 * time.Millisecond, math.NaN(), 10 * time.Millisecond},
	} {
		if got := sim.FrameStep(tc.frame, tc.speed); got != tc.want {
			t.Errorf("FrameStep(%v, %v) = %v, want %v", tc.frame, tc.speed, got, tc.want)
		}
	}
}
