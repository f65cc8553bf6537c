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
