package sim_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"sluice/core"
	"sluice/wasm/sim"
)

// A virtual clock fires timers in deadline order, only when told to.
func ExampleClock() {
	c := sim.NewClock(sim.Epoch)
	since := func() time.Duration { return c.Now().Sub(sim.Epoch) }
	c.AfterFunc(2*time.Second, func() { fmt.Println("second timer at", since()) })
	c.AfterFunc(time.Second, func() { fmt.Println("first timer at", since()) })
	fmt.Println("pending:", c.Pending())
	c.Advance(1500 * time.Millisecond)
	fmt.Println("now:", since())
	c.Step() // jump to the next timer
	fmt.Println("now:", since(), "pending:", c.Pending())
	// Output:
	// pending: 2
	// first timer at 1s
	// now: 1.5s
	// second timer at 2s
	// now: 2s pending: 0
}

// A run of the async semaphore preset, stepped to its end. Each task is a
// real goroutine in core.Semaphore.Do, sleeping on the virtual clock: the
// run is the same on every machine and at every speed.
func ExampleRunner() {
	p, _ := sim.PresetByID("semaphore")
	var waited atomic.Int64
	r, err := sim.NewRunner(p.Scenario, sim.Config{
		// Called from the tasks' goroutines, possibly several at once.
		Observe: func(e core.Event) {
			if e.Kind == core.Waiting {
				waited.Add(1)
			}
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Wait()
	defer r.Stop()

	r.Advance(0) // the first burst is due at 0
	st := r.Stats()
	fmt.Printf("at 0s: %d running, %d waiting\n", st.Running, st.Waiting)

	for r.Step() {
	}
	st = r.Stats()
	fmt.Printf("at %v: %d of %d tasks succeeded; at most %d of %d tokens held\n",
		st.Now, st.Succeeded, st.Tasks, st.MaxTokens, st.Limit)
	heavy, _ := r.Task("t4")
	fmt.Printf("%s asked for %d tokens at %v and got them at %v\n", heavy.Name, heavy.Weight, heavy.Submitted, heavy.Started)
	fmt.Println("tasks that had to wait:", waited.Load())
	// Output:
	// at 0s: 3 running, 0 waiting
	// at 2.522s: 10 of 10 tasks succeeded; at most 3 of 3 tokens held
	// t4 asked for 3 tokens at 200ms and got them at 1.12s
	// tasks that had to wait: 7
}

// A scenario travels in a link's hash as compact text.
func ExampleDecode() {
	p, _ := sim.PresetByID("keyed-devices")
	link := "https://example.com/" + sim.LinkPrefix + p.Scenario.Encode()

	hash := link[strings.Index(link, "#"):] // what location.hash reads: "#s=..."
	s, err := sim.Decode(hash)
	fmt.Println(s.Primitive, s.IdleMS, len(s.Bursts), err)

	_, err = sim.Decode("#s=not-a-scenario")
	fmt.Println(err)
	// Output:
	// keyed 1000 3 <nil>
	// the link is damaged: its scenario does not unpack (flate: corrupt input before offset 1); was it cut short when copied?
}
