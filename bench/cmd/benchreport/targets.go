package main

import "slices"

// targets are the speed and memory bounds the issues set, each measured
// against the best of its peers in the same run. Each primitive keeps its
// own list in targets_<primitive>.go.
var targets = slices.Concat(semaphoreTargets, queueTargets, keyedTargets, rabbitTargets)
