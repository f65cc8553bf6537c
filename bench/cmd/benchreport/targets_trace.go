package main

// traceTargets are core's runtime/trace hooks with tracing off
// (BenchmarkTraceHooks, in the core module): the checks a task's enqueue,
// start and end make, one op one task.
var traceTargets = []target{
	{
		what:  "Tracing off: core's runtime/trace hooks of one task, time",
		bench: "TraceHooks", unit: "ns/op", max: 2,
		miss: "the hooks are a trace.IsEnabled load and two type checks of the task's context, inlined into the engine.",
	},
	{
		what:  "Tracing off: core's runtime/trace hooks of one task, allocations",
		bench: "TraceHooks", unit: "allocs/op", max: 0,
		miss: "the hooks are a trace.IsEnabled load and two type checks of the task's context, inlined into the engine.",
	},
}

// clockTargets report what a read of the wall clock costs on the machine
// of the run (BenchmarkClock), which the misses made of clock reads quote.
var clockTargets = []target{
	{
		what:  "One read of the wall clock as core reads it (time.Since from the queue's creation: the monotonic clock alone) on this machine, which observed events and pending ages pay",
		bench: "Clock/since", unit: "ns/op", info: true,
	},
	{
		what:  "One time.Now on this machine (the wall and the monotonic clock), for comparison",
		bench: "Clock/now", unit: "ns/op", info: true,
	},
}
