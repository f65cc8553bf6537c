//go:build !(js && wasm)

package ui_test

import (
	"syscall"
	"testing"
	"time"

	"sluice/wasm/sim"
	"sluice/wasm/ui"
)

// BenchmarkSeek10k lands on moments of a finished 10,000-task run, as
// make perf's TestPerfRewind does in the page, once the paused run has
// built its checkpoints.
func BenchmarkSeek10k(b *testing.B) {
	sc := sim.Scenario{V: sim.Version, Primitive: sim.WorkQueue, Seed: 1, Limit: 50, Speed: 10,
		Bursts: []sim.Burst{{Count: sim.MaxTasks, MinMS: 100, MaxMS: 500, Priority: sim.PriorityMix{Low: 1, Normal: 2, High: 1}}}}
	s, err := ui.NewSession(sc, "")
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.Seek(time.Hour); err != nil {
		b.Fatal(err)
	}
	end := s.Panel().Now
	built := func() {
		for range 100_000 {
			if len(ui.SessionCheckpoints(s)) >= 4 {
				return
			}
			s.Frame(0, ui.SpanFor)
		}
		b.Fatalf("checkpoints %v", ui.SessionCheckpoints(s))
	}
	restore := ui.SetCheckpointFrom(1_000)
	defer restore()
	built()
	fracs := []float64{0.9, 0.1, 0.5, 0.3, 0.7, 0.2, 0.95, 0.05, 0.6, 0.4}
	b.ResetTimer()
	var cpu, pcpu time.Duration
	for i := range b.N {
		at := time.Duration(fracs[i%len(fracs)] * float64(end)).Truncate(100 * time.Millisecond)
		c0 := cpuTime()
		if err := s.Seek(at); err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime() - c0
		c1 := cpuTime()
		s.Panel()
		pcpu += cpuTime() - c1
		b.StopTimer()
		built()
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
	b.ReportMetric(float64(pcpu)/float64(b.N)/1e6, "panel-cpu-ms/op")
}

// cpuTime is the process's CPU time so far: on a loaded machine, a
// steadier measure than the time on the wall.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
