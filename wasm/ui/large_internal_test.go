package ui

import (
	"bytes"
	"fmt"
	"testing"
	"time"

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

func BenchmarkDrawLargeTrace(b *testing.B) {
	s, err := NewSession(defaultScenarioForBench(), "")
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.LoadTrace(bytes.NewReader(largeTrace(200_000)), "large.json"); err != nil {
		b.Fatal(err)
	}
	tl := newTimeline(false)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f := s.Frame(16*time.Millisecond, defaultSpan)
		tl.Draw(nopPainter{}, f, 1200, 400, Point{X: 600, Y: 80, In: true})
	}
}

func BenchmarkLoadLargeTrace(b *testing.B) {
	data := largeTrace(200_000)
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
}

func defaultScenarioForBench() sim.Scenario { return sim.Presets()[0].Scenario }
