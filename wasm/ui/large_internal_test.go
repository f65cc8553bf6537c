package ui

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"sluice/core"
	"sluice/core/trace"
	"sluice/wasm/sim"
)

type nopPainter struct{}

func (nopPainter) Clear(string)                                             {}
func (nopPainter) FillRect(x, y, w, h float64, c string)                    {}
func (nopPainter) FillPath([]byte, string)                                  {}
func (nopPainter) StrokePath([]byte, string, float64)                       {}
func (nopPainter) Text(string, float64, float64, string, string, textAlign) {}
func (nopPainter) TextWidth(s, font string) float64                         { return float64(len(s)) * 6 }

// largeTrace is a foreign trace of n tasks on 8 threads.
func largeTrace(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"traceEvents":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		lane := i % 8
		fmt.Fprintf(&b, `{"name":"job-%d","ph":"X","ts":%d,"dur":40,"pid":1,"tid":%d}`, i, 5_000_000+int64(i/8)*50+int64(lane), lane+1)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// largeOwnTrace is a trace of n tasks in Sluice's own format, as a
// service's Recorder writes it: 8 lanes, tasks with names, priorities in
// turn, weights, one of 500 keys each, and one in five waiting.
func largeOwnTrace(n int) []byte {
	rec := trace.NewRecorder(trace.Config{MaxFinished: n})
	first := time.Unix(1_700_000_000, 0)
	for i := range n {
		e := core.Event{Task: uint64(i + 1), Name: fmt.Sprintf("checkout order %d", i+1), Priority: core.Priority(i%3 - 1),
			Weight: int64(1 + i%2), Key: fmt.Sprintf("customer-%d", i%500)}
		enq := first.Add(time.Duration(i) * 6250)
		e.Kind, e.Time = core.Enqueued, enq
		rec.Observe(e)
		start := enq
		if i%5 == 0 {
			e.Kind = core.Waiting
			rec.Observe(e)
			start = enq.Add(30 * time.Microsecond)
		}
		e.Kind, e.Time, e.Lane = core.Started, start, i%8
		rec.Observe(e)
		e.Kind, e.Time = core.Finished, start.Add(40*time.Microsecond)
		rec.Observe(e)
	}
	var b bytes.Buffer
	if err := rec.WriteJSON(&b); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// BenchmarkDrawLargeTrace measures a frame, zoomed out, of a loaded trace
// of 200,000 tasks written by another tool, and by a Recorder.
func BenchmarkDrawLargeTrace(b *testing.B) {
	for _, in := range []struct {
		name string
		data func() []byte
	}{{"foreign", func() []byte { return largeTrace(200_000) }}, {"own", func() []byte { return largeOwnTrace(200_000) }}} {
		b.Run(in.name, func(b *testing.B) {
			s, err := NewSession(defaultScenarioForBench(), "")
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			if err := s.LoadTrace(bytes.NewReader(in.data()), "large.json"); err != nil {
				b.Fatal(err)
			}
			tl := newTimeline(false)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				f := s.Frame(16*time.Millisecond, defaultSpan)
				tl.Draw(nopPainter{}, f, 1200, 400, Point{X: 600, Y: 80, In: true})
			}
		})
	}
}

// BenchmarkLoadLargeTrace measures loading a trace of 200,000 tasks
// written by another tool, and by a Recorder.
func BenchmarkLoadLargeTrace(b *testing.B) {
	for _, in := range []struct {
		name string
		data func() []byte
	}{{"foreign", func() []byte { return largeTrace(200_000) }}, {"own", func() []byte { return largeOwnTrace(200_000) }}} {
		b.Run(in.name, func(b *testing.B) {
			data := in.data()
			s, err := NewSession(defaultScenarioForBench(), "")
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := s.LoadTrace(bytes.NewReader(data), "large.json"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func defaultScenarioForBench() sim.Scenario { return sim.Presets()[0].Scenario }
