package bench_test

import (
	"flag"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The work a task does in the benchmarks on real work: a calibrated spin of
// about 1 µs or 20 µs of CPU, or a 200 µs sleep, an I/O-like wait.
const (
	spinShort = time.Microsecond
	spinLong  = 20 * time.Microsecond
	sleepIO   = 200 * time.Microsecond
)

// spinSink is written only when a spin's hash comes out zero, which in
// practice never happens; reading the hash keeps the loop from being
// optimised away.
var spinSink atomic.Uint64

// spinIters runs iters rounds of a cheap 64-bit mix (a dependent chain of
// shift, xor and multiply) from seed.
func spinIters(iters int, seed uint64) {
	h := seed | 1
	for range iters {
		h ^= h >> 33
		h *= 0xff51afd7ed558ccd
	}
	if h == 0 {
		spinSink.Add(1)
	}
}

var (
	calibrateOnce sync.Once
	itersPerUs    float64 // spin rounds per microsecond on this machine
)

// calibrate measures, once per process, how many rounds of spinIters take
// a microsecond: the fastest of several timed runs, so that a run slowed
// by another process on the machine does not lengthen every task.
func calibrate() {
	calibrateOnce.Do(func() {
		const rounds = 200_000
		best := time.Duration(math.MaxInt64)
		for i := range 15 {
			start := time.Now()
			spinIters(rounds, uint64(i))
			best = min(best, time.Since(start))
		}
		itersPerUs = rounds / (float64(best) / float64(time.Microsecond))
	})
}

// spinFor returns a function that spins for about d, calibrated.
func spinFor(d time.Duration) func() {
	calibrate()
	iters := max(1, int(itersPerUs*float64(d)/float64(time.Microsecond)))
	return func() { spinIters(iters, uint64(iters)) }
}

// workloads are the kinds of task the benchmarks on real work run, each
// with the number of tasks a batch holds (tasks submitted before waiting
// for all of them).
var workloads = []struct {
	name  string
	work  func() func() // made once per benchmark, after calibration
	batch int
}{
	{"Spin1us", func() func() { return spinFor(spinShort) }, 200_000},
	{"Spin20us", func() func() { return spinFor(spinLong) }, 20_000},
	{"Sleep200us", func() func() { return func() { time.Sleep(sleepIO) } }, 2_000},
}

// BenchmarkWork times the work itself, as the tasks do it: one op is one
// spin or one sleep, so ns/op should read about 1,000, 20,000 and 200,000.
// A sleep takes what the runtime's timers make of 200 µs, which may be
// more.
func BenchmarkWork(b *testing.B) {
	for _, w := range workloads {
		b.Run(w.name, func(b *testing.B) {
			work := w.work()
			b.ReportAllocs()
			for b.Loop() {
				work()
			}
		})
	}
}

// quick reports whether the benchmarks run once each to check that they
// work (-benchtime 1x, as make test does, or -short) rather than to
// measure: the workloads of a fixed size (a million pending tasks or
// events) then run a tenth of it.
func quick() bool {
	if testing.Short() {
		return true
	}
	f := flag.Lookup("test.benchtime")
	if f == nil {
		return false
	}
	s := f.Value.String()
	n, err := strconv.Atoi(strings.TrimSuffix(s, "x"))
	return strings.HasSuffix(s, "x") && err == nil && n <= 1
}

// scaled returns n, or a tenth of it in a quick run.
func scaled(n int) int {
	if quick() {
		return max(1, n/10)
	}
	return n
}

// percentile returns the p-th percentile (0 < p ≤ 100) of vs, which it
// sorts; 0 for no values.
func percentile(vs []int64, p float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	slices.Sort(vs)
	i := int(math.Ceil(p/100*float64(len(vs)))) - 1
	return float64(vs[min(max(i, 0), len(vs)-1)])
}
