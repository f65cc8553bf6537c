// Package core provides async coordination primitives for limiting and
// ordering concurrent work:
//
//   - [Semaphore]: a weighted semaphore with priorities and aging, a drop-in
//     for golang.org/x/sync/semaphore.Weighted.
//   - [WorkQueue]: runs at most N functions at once, in priority order;
//     [WorkQueue.Go] submits without a handle.
//   - [Processor]: a typed WorkQueue whose tasks return results.
//   - [KeyedQueue]: tasks with the same key run one at a time, in order;
//     idle keys are evicted.
//   - [Consume]: handles messages from a channel with bounded concurrency.
//
// WorkQueue, Processor and KeyedQueue share one scheduler. [WithSemaphore]
// on any of them, and on Consume, makes a task also wait for a token of a
// Semaphore shared with other primitives: one global limit for them all.
//
// # The scheduler
//
// A queue is one lock around a pending queue (a FIFO ring per priority,
// highest first; a KeyedQueue puts only the head of each key's lane in it,
// so keys take fair turns) and a count of slots. Submit takes the lock
// once: it numbers the task and either hands it a free slot or queues it.
// A worker goroutine holds a slot; when its task ends it takes the next
// pending task in the same critical section, so a busy queue costs two
// lock acquisitions a task and starts no goroutine. A worker that finds
// nothing pending either exits or, on machines of four or more cores,
// spins briefly for the next submit (submits leave work for spinning
// workers instead of starting goroutines); an idle queue holds no
// goroutine. Nothing blocks, allocates a goroutine or calls user code
// under the lock, with one exception: a submit and a worker read the
// clock before taking it, but rarer changes (a cancel, a resize, a grant
// of room, Stats) read a [WithClock] clock's Now under it. A task is one
// allocation, and also its function's context, whatever context it was
// submitted with: the submitter's context of a waiting task is looked at
// (when its turn comes, when its handle or Stats is read, when a submit
// finds the queue full), not watched, unless someone waits on the task's
// Done channel (one context.AfterFunc per distinct context, armed and
// stopped outside the lock). Observer events are appended
// under the lock in the order the state changed and delivered outside it,
// one goroutine at a time.
//
// A KeyedQueue without an observer, a total capacity or a shared
// Semaphore is GOMAXPROCS such queues (shards), a key's lane always in the
// shard its hash picks, so that submitters and workers of different keys
// rarely meet on one lock. The shards share the parallelism cap as two
// atomic counts (slots held, tasks running) instead of a lock: a shard
// with pending tasks and no free slot marks itself starved, and a worker
// that has run eight tasks of its shard in a row, or found it empty,
// while another shard is starved takes its slot there, so that slots go
// round the shards; a shard's worker that finds nothing to do exits
// rather than spin. Per-key order and the cap are exact; the fair turns
// across keys, and the priority of lane heads, hold within a shard, and
// shards take turns of up to eight tasks a slot. Close, Drain and Stats
// act on every shard at once.
//
// # Contracts shared by every primitive
//
// Blocking calls take a context.Context first. When the context ends a wait,
// the call returns ctx.Err() unwrapped and leaves the primitive as it was
// before the call.
//
// Programmer errors (a limit below 1, a negative weight, releasing more than
// is held, a nil function or context) panic with a message prefixed
// "core:". Everything else is an error value: [ErrClosed], [ErrFull], a
// task's own error, or a [*PanicError] when a task panicked.
//
// # Panics and runtime.Goexit
//
// A task's function (or a Consume handler, or [Semaphore.Do]'s function)
// that panics does not crash the program: the panic is recovered, the task
// ends in [TaskPanicked] with a [*PanicError] (the value and the stack),
// which its waiter receives, and its slot and tokens are released; the
// primitive keeps running. A function that calls runtime.Goexit (as
// t.FailNow does) ends its goroutine, and its task ends failed with an
// error saying so, its slot and tokens released all the same. So whatever
// a function does, limits and counters stay right.
//
// # Observing
//
// [WithObserver] reports each step of a primitive as an [Event]. Observing
// adds the observer's calls (and a clock read for each event's time) and
// changes no decision: the primitive takes the same paths with or without
// one, except that [Semaphore.SetLimit] growing the limit releases its lock
// around the Resized report, so that the report comes before the starts
// the growth allows, and that an observed KeyedQueue is one shard, so that
// its events are one total order. Every primitive calls its observer outside every
// lock and never from two goroutines at once; a queue's events come in the
// order the queue's state changed (so counters rebuilt from them never
// pass the limit). A call that changed the queue returns, and a task's function
// starts, only once the observer has seen the change, though another of
// the queue's goroutines may have delivered it. So a queue's observer must
// not submit to, cancel in, resize or stop that queue (Stats is fine): it
// would wait for itself. [WithClock] replaces the wall clock used for
// aging, idle timeouts and event times, so that a simulation can run in
// scaled or paused time.
//
// core imports only the standard library and runs unchanged on servers and
// in WebAssembly.
package core
