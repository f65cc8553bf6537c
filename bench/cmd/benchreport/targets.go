package main

import "slices"

// targets are the bounds set for core on real work (tasks of ~1 µs and
// ~20 µs of spin or a 200 µs sleep, cancellable contexts, steady load),
// each measured against its peer or baseline in the same run; the rows
// marked info are reported without a bound. They make the report's main
// table.
var targets = slices.Concat(taskTargets(), latencyTargets(), pendingTargets, keyedEventTargets(), semaphoreHoldTargets(), traceTargets, clockTargets, rabbitTargets)

// emptyTargets are the earlier bounds, measured on empty tasks and empty
// critical sections: a footnote to targets. Each primitive keeps its own
// list in targets_<primitive>.go.
var emptyTargets = slices.Concat(emptySemaphoreTargets, emptyQueueTargets, emptyKeyedTargets)
