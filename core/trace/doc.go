// Package trace records the events of a sluice/core primitive into a
// timeline model and reads and writes that model as Chrome Trace Event JSON.
//
// A [Recorder] is the observer: pass its Observe method to
// core.WithObserver. It keeps, within configurable bounds (see [Config]):
//
//   - tasks, with their lane, enqueue, start and end times, outcome and
//     error text; tasks still waiting or running are open;
//   - lanes: one per worker slot or Semaphore token, named from 1 ("slot
//     1", "token 1", see Config.SlotName), or per KeyedQueue key (with the
//     times the lane was created and evicted); a Semaphore holder of w
//     tokens holds w token lanes;
//   - counter tracks over time: running, waiting, tokens in use, live lanes
//     and the limit;
//   - aggregates: outcome totals, the most tasks and tokens in flight,
//     wait-time percentiles per priority, throughput, the age of the oldest
//     waiting task, and a log of the last events.
//
// [Recorder.Snapshot] and [Recorder.SnapshotWindow] return an immutable copy
// of the model, cheap enough to take on every animation frame. Its tasks
// hold no pointer, so that a snapshot of hundreds of thousands of them
// costs the garbage collector nothing to mark: a [Task]'s texts and lanes
// are its snapshot's ([Snapshot.Text], [Snapshot.TaskLanes]) and its times
// are [Stamp]s.
//
// [Recorder.WriteJSON] writes the model in the Trace Event Format that
// Perfetto (ui.perfetto.dev) and chrome://tracing open: one thread per lane
// (one per key, whose lane may be made again after an eviction), named as
// the playground names it, with a complete event per run (one per token a
// Semaphore holder holds), a second process whose threads show the
// waiting spans, instant events for lanes created and evicted, counter
// events for the counter tracks, and metadata naming the process and
// threads. [ReadJSON] rebuilds the same model from that output, so a trace
// recorded in a service replays in the playground; it also accepts traces
// written by other tools, reading their complete and begin/end events as
// tasks.
//
// One Recorder observes one primitive: task numbers are unique only per
// primitive.
//
// The package starts no goroutines.
package trace
