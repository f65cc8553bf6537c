// Package sim is the engine behind the playground: it runs a scenario
// through the real sluice/core primitives on a virtual clock, so that the
// page can play it at any speed, pause it, step it one event at a time,
// and draw a timeline from the primitives' own events. It is plain Go, with
// no browser code, and runs natively and under GOOS=js GOARCH=wasm alike.
//
// Nothing is animated from a model. Every task is a real function inside a
// real primitive: a goroutine in core.Semaphore.Do, a task of a
// core.WorkQueue, core.Processor or core.KeyedQueue (or of one of several
// work queues sharing a core.Semaphore through core.WithSemaphore), or a
// message handled by core.Consume. Its body sleeps its duration on the virtual [Clock] and
// then succeeds, fails or panics; what the page shows is what the
// primitive reports through core.WithObserver.
//
// The pieces:
//
//   - [Clock], a core.Clock whose time moves only when told to.
//   - [Scenario], the whole state of a playground view, with
//     [Scenario.Validate], and [Scenario.Encode] and [Decode] for links
//     (#s=...); [Presets] offers one per pattern.
//   - [Runner], which builds the scenario's primitive, submits its bursts
//     on the virtual clock, and takes the page's clicks: Cancel, CancelAll,
//     Drain, Close, SetLimit, Submit.
//   - [Scenario.Log], one ordered log of what a person did ([Step]: bursts,
//     single and bulk cancels, drain, close, limit changes, pauses and
//     steps), each entry at its virtual time and after the count of the
//     run's events it followed, which the Runner replays at that very
//     point: a link replays a run event for event.
//   - [Kind], one descriptor per primitive ([Kinds], [KindOf]): its setup
//     fields, its validation, how its tasks are drawn and submitted (its
//     backend), its lanes and counters, its words and its Go code. The
//     runner, the code generator and the page ask it; nothing else
//     branches on which primitive a scenario runs.
//   - [Scenario.GoCode], the Go program that runs the scenario with
//     sluice/core as the runner does: on the same virtual clock, with
//     the same draws and the same order of submission, printing one line
//     per task event in the event log's format ([EventLine]).
//
// # Reproducible runs
//
// All randomness comes from math/rand/v2 seeded with [Scenario.Seed], and
// the Runner moves time only when every goroutine of the run is blocked on
// the clock or inside the primitive: before and after each timer fires it
// waits, by yielding and never by sleeping, until the primitive's counters
// agree with the events it has reported and no task is on its way
// anywhere. Timers due at the same instant fire in a fixed order. So a
// scenario gives the same tasks, starting and ending at the same virtual
// times, on every run, at every speed and frame rate, natively and in
// WebAssembly.
//
// # Driving it from a page
//
//	r, err := sim.NewRunner(scenario, sim.Config{Observe: rec.Observe, OnMessage: show})
//	// on every animation frame:
//	if playing {
//		r.Advance(sim.FrameStep(frameTime, speed))
//	} else {
//		r.Advance(0) // let clicks take effect
//	}
//	// step button: r.Step(); task clicked: r.Cancel(name); reset: r.Stop(), then a new Runner
//	// when the page goes: r.Stop(); r.Wait()
//
// In WebAssembly there is one thread: goroutines interleave and never run
// in parallel, and Advance's waits are yields to them.
package sim
