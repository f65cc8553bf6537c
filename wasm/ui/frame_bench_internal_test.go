//go:build linux

package ui

import (
	"runtime"
	"syscall"
	"testing"
	"time"

	"sluice/wasm/sim"
)

// BenchmarkCompareFrame draws frames of a comparison of two runs with
// 1,000 tasks live each, as make perf's comparison probe does in the
// page: both runs moved by 16 ms of real time, both drawn.
func BenchmarkCompareFrame(b *testing.B) {
	sc := sim.Scenario{V: sim.Version, Primitive: sim.Semaphore, Seed: 1, Limit: 50, Speed: 1,
		Bursts: []sim.Burst{{Count: 1000, MinMS: 30_000, MaxMS: 60_000, Priority: sim.PriorityMix{Low: 1, Normal: 2, High: 1}}}}
	c, err := sim.Compare(sc, sim.Change{Limit: sim.Int(100)})
	if err != nil {
		b.Fatal(err)
	}
	a, _ := NewSession(c.A, "")
	defer a.Close()
	s, _ := NewSession(c.B, "")
	defer s.Close()
	setPlayingBoth(a, s, true)
	d := newDriver(a, false)
	d.b.Store(s)
	for range 60 {
		d.tick(nopPainter{}, 16*time.Millisecond, 1, 1000, 300, Point{}, false)
		d.drawB(nopPainter{}, 1000, 300, Point{})
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	var model, draw time.Duration
	for range b.N {
		t0 := threadCPU()
		fa := a.FrameAt(16*time.Millisecond, 0, 10*time.Second)
		fb := s.FrameAt(16*time.Millisecond, 0, 10*time.Second)
		t1 := threadCPU()
		d.tl.Draw(nopPainter{}, fa, 1000, 300, Point{})
		d.cmp.tl.Draw(nopPainter{}, fb, 1000, 300, Point{})
		model, draw = model+t1-t0, draw+threadCPU()-t1
	}
	b.ReportMetric(float64(model)/float64(b.N)/1e6, "model-ms/op")
	b.ReportMetric(float64(draw)/float64(b.N)/1e6, "draw-ms/op")
}

// BenchmarkOneFrame is BenchmarkCompareFrame with run A alone.
func BenchmarkOneFrame(b *testing.B) {
	sc := sim.Scenario{V: sim.Version, Primitive: sim.Semaphore, Seed: 1, Limit: 50, Speed: 1,
		Bursts: []sim.Burst{{Count: 1000, MinMS: 30_000, MaxMS: 60_000, Priority: sim.PriorityMix{Low: 1, Normal: 2, High: 1}}}}
	a, _ := NewSession(sc, "")
	defer a.Close()
	a.SetPlaying(true)
	d := newDriver(a, false)
	for range 60 {
		d.tick(nopPainter{}, 16*time.Millisecond, 1, 1000, 300, Point{}, false)
	}
	b.ResetTimer()
	for range b.N {
		d.tick(nopPainter{}, 16*time.Millisecond, 1, 1000, 300, Point{}, false)
	}
}

// threadCPU is the CPU time of the calling OS thread: on a loaded
// machine, a steadier measure than the time on the wall.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(1, &ru) // RUSAGE_THREAD
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
