// Package core provides async coordination primitives for limiting and
// ordering concurrent work:
//
//   - [Semaphore]: a weighted semaphore with priorities and aging, a drop-in
//     for golang.org/x/sync/semaphore.Weighted.
//   - [WorkQueue]: runs at most N functions at once, in priority order;
//     [WorkQueue.Go] submits without a handle, allocating nothing.
//   - [Processor]: a typed WorkQueue whose tasks return results.
//   - [KeyedQueue]: tasks with the same key run one at a time, in order;
//     idle keys are evicted.
//   - [Consume]: handles messages from a channel with bounded concurrency,
//     optionally drawing slots from a [Semaphore] shared by several consumers.
//
// # Contracts shared by every primitive
//
// Blocking calls take a context.Context first. When the context ends a wait,
// the call returns ctx.Err() unwrapped and leaves the primitive as it was
// before the call.
//
// Programmer errors (a limit below 1, a negative weight, releasing more than
// is held) panic with a message prefixed "core:". Everything else is an
// error value: [ErrClosed], [ErrFull], a task's own error, or a
// [*PanicError] when a task panicked. A task's slot is released in every
// case.
//
// # Observing
//
// [WithObserver] reports each step of a primitive as an [Event]. The
// observer is called outside every lock, in event order per task; a nil
// observer costs nothing. [WithClock] replaces the wall clock used for aging,
// idle timeouts and event times, so that a simulation can run in scaled or
// paused time.
//
// core imports only the standard library and runs unchanged on servers and
// in WebAssembly.
package core
