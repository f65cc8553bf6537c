package ui

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
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
func (nopPainter) FillRects([]float64, string)                              {}
func (nopPainter) StrokeRects([]float64, string, float64)                   {}
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
var errDeclined = errors.New("declined")

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
		if i%7 == 3 {
			e.Kind, e.Err = core.Failed, errDeclined // an end cap on the bar
		}
		rec.Observe(e)
		e.Err = nil
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

// loadLarge returns the first frame of a session showing a large trace
// (a Recorder's, of 25,000 tasks over 500 keys).
func loadLarge(t *testing.T) Frame {
	t.Helper()
	s, err := NewSession(defaultScenarioForBench(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if err := s.LoadTrace(bytes.NewReader(largeOwnTrace(indexFrom+5_000)), "large.json"); err != nil {
		t.Fatal(err)
	}
	return s.Frame(0, defaultSpan)
}

// A large loaded trace's bars, drawn again from what the last frame drew
// while only the pointer moves, are the bars a fresh pass draws, with the
// same hits and selection; a new window draws them anew.
func TestDrawLargeTraceAgain(t *testing.T) {
	f := loadLarge(t)
	draw := func(tl *timeline, f Frame, mouse Point) *TestPainter {
		var p TestPainter
		tl.Draw(&p, f, 1200, 400, mouse)
		return &p
	}
	again := newTimeline(false)
	for _, sel := range []uint64{0, f.Snap.Tasks[len(f.Snap.Tasks)/2].ID} {
		again.Selected = sel
		draw(again, f, Point{X: 300, Y: 200, In: true})
		got := draw(again, f, Point{X: 900, Y: 150, In: true})
		fresh := newTimeline(false)
		fresh.Selected = sel
		want := draw(fresh, f, Point{X: 900, Y: 150, In: true})
		if !reflect.DeepEqual(got.Calls, want.Calls) {
			t.Errorf("selected %d: drawn again, %d calls; a fresh pass, %d", sel, len(got.Calls), len(want.Calls))
		}
		if !reflect.DeepEqual(again.hits, fresh.hits) || again.Bars != fresh.Bars || again.selShown != fresh.selShown || again.selRect != fresh.selRect {
			t.Errorf("selected %d: drawn again, %d hits, %d bars, selection %v %v; a fresh pass, %d, %d, %v %v", sel,
				len(again.hits), again.Bars, again.selShown, again.selRect, len(fresh.hits), fresh.Bars, fresh.selShown, fresh.selRect)
		}
		if sel != 0 && !again.selShown {
			t.Errorf("selected %d: not outlined", sel)
		}
	}
	// Zoomed in: other bars. (The colours' paths are filled in the order
	// the timeline first used them: sorted, the calls compare.)
	z := f
	z.From, z.To = f.From+(f.To-f.From)/3, f.From+(f.To-f.From)/2
	got := draw(again, z, Point{})
	fresh := newTimeline(false)
	fresh.Selected = again.Selected
	want := draw(fresh, z, Point{})
	slices.Sort(got.Calls)
	slices.Sort(want.Calls)
	if !reflect.DeepEqual(got.Calls, want.Calls) || again.Bars != fresh.Bars {
		t.Errorf("zoomed in: drawn with %d calls, %d bars; a fresh pass, %d, %d", len(got.Calls), again.Bars, len(want.Calls), fresh.Bars)
	}
}

// TestReadFileInOneBuffer checks that a trace file peeked at is read
// into one buffer of its size, read and buffered bytes alike, when its
// reader tells how much is left, and that one too large is refused
// unread.
func TestReadFileInOneBuffer(t *testing.T) {
	data := largeTrace(1_000)
	r := bytes.NewReader(data)
	br := bufio.NewReader(r)
	if _, err := br.Peek(64); err != nil {
		t.Fatal(err)
	}
	got, err := trace.ReadAll(peeked{br, r})
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read %d bytes (%v), want the %d of the file", len(got), err, len(data))
	}
	if want := len(data) + 1; cap(got) != want {
		t.Errorf("read into a buffer of %d bytes, want one of %d: the file's size and the byte that finds its end", cap(got), want)
	}
	big := &tooBig{}
	if _, err := trace.ReadAll(peeked{bufio.NewReader(big), big}); err == nil || big.reads > 0 {
		t.Errorf("a file of %d bytes: %v after %d reads, want it refused unread", big.Len(), err, big.reads)
	}
}

// tooBig is a reader that says it holds more than a trace may.
type tooBig struct{ reads int }

func (b *tooBig) Len() int                   { return trace.MaxJSONSize + 1 }
func (b *tooBig) Read(p []byte) (int, error) { b.reads++; return len(p), nil }

// TestLargeTraceFirstWindowSlowly draws the first window of a large trace
// with no time to spare: a frame lays it out and draws its lanes, each
// frame after finds one row's bars, says the drawing is partial, and the
// next goes on; the frame after the last row's draws the counter tracks,
// and what a window found at once (a zoom's) draws.
func TestLargeTraceFirstWindowSlowly(t *testing.T) {
	defer func(was time.Duration) { firstBarsBudget = was }(firstBarsBudget)
	firstBarsBudget = 0
	f := loadLarge(t)
	tl := newTimeline(false)
	tl.Slowly = true // as the page's frame loop has it
	var slow TestPainter
	frames := 0
	for {
		slow = TestPainter{}
		tl.Draw(&slow, f, 1200, 900, Point{})
		frames++
		if !tl.Partial {
			break
		}
		if frames > 1000 {
			t.Fatal("the drawing is still partial after 1,000 frames")
		}
	}
	if frames != len(tl.rows)+2 {
		t.Errorf("the first window drawn in %d frames, want one for the lanes, one a row, then one for the tracks: %d", frames, len(tl.rows)+2)
	}
	whole := newTimeline(false) // not Slowly: found at once
	var once TestPainter
	whole.Draw(&once, f, 1200, 900, Point{})
	if whole.Partial || once.Rects == 0 {
		t.Fatalf("a window found at once: partial %v, %d rectangles", whole.Partial, once.Rects)
	}
	// The frames' batches are drawn one path each: by colour, the same
	// rectangles in the same order.
	slowPaths, slowRest := byColour(slow.Calls)
	oncePaths, onceRest := byColour(once.Calls)
	if !maps.Equal(slowPaths, oncePaths) || !slices.Equal(slowRest, onceRest) || slow.Rects != once.Rects {
		t.Errorf("the last of the frames that found the bars a row at a time drew %d rectangles in %d colours and %d other calls; at once, %d in %d and %d",
			slow.Rects, len(slowPaths), len(slowRest), once.Rects, len(oncePaths), len(onceRest))
	}
}

// TestLargeTraceDrawMore draws a large trace's first window as the page
// does: a Draw, which lays the window out and draws its lanes, then
// DrawMore, which finds a row a frame and draws its bars over the canvas
// until none is left, then the counter tracks alone. What the frames drew
// together is what one pass draws (the now-line, drawn again over each
// frame's bars, aside).
func TestLargeTraceDrawMore(t *testing.T) {
	defer func(was time.Duration) { firstBarsBudget = was }(firstBarsBudget)
	firstBarsBudget = 0
	f := loadLarge(t)
	tl := newTimeline(false)
	tl.Slowly = true
	var all TestPainter
	tl.Draw(&all, f, 1200, 900, Point{})
	frames := 1
	for tl.Partial {
		if frames++; frames > 1000 {
			t.Fatal("the drawing is still partial after 1,000 frames")
		}
		tl.DrawMore(&all, f)
	}
	if frames != len(tl.rows)+2 {
		t.Errorf("the first window drawn in %d frames, want one for the lanes, one a row, then one for the tracks: %d", frames, len(tl.rows)+2)
	}
	var now TestPainter
	tl.drawNow(&now, &tl.g, f)
	calls, seen, nowRects := all.Calls[:0:0], false, 0
	for i := 0; i < len(all.Calls); {
		if i+len(now.Calls) <= len(all.Calls) && slices.Equal(all.Calls[i:i+len(now.Calls)], now.Calls) {
			if seen { // the now-line again, over a frame's bars
				i += len(now.Calls)
				nowRects += now.Rects
				continue
			}
			seen = true
		}
		calls = append(calls, all.Calls[i])
		i++
	}
	all.Rects -= nowRects
	whole := newTimeline(false)
	var once TestPainter
	whole.Draw(&once, f, 1200, 900, Point{})
	gotPaths, gotRest := byColour(calls)
	wantPaths, wantRest := byColour(once.Calls)
	slices.Sort(gotRest)
	slices.Sort(wantRest)
	if !maps.Equal(gotPaths, wantPaths) || !slices.Equal(gotRest, wantRest) || all.Rects != once.Rects {
		t.Errorf("the frames drew %d rectangles in %d colours and %d other calls; one pass, %d in %d and %d",
			all.Rects, len(gotPaths), len(gotRest), once.Rects, len(wantPaths), len(wantRest))
		for k, v := range wantPaths {
			if gotPaths[k] != v {
				t.Errorf("%s: the frames drew %d bytes of path, one pass %d", k, len(gotPaths[k]), len(v))
			}
		}
	}
	if tl.Bars != whole.Bars || len(tl.hits) != len(whole.hits) {
		t.Errorf("after the frames, %d bars and %d hits; one pass, %d and %d", tl.Bars, len(tl.hits), whole.Bars, len(whole.hits))
	}
}

// byColour returns the paths a TestPainter filled or stroked, joined by
// colour (and line width) in the order drawn, and its other calls.
func byColour(calls []string) (paths map[string]string, rest []string) {
	paths = map[string]string{}
	for _, c := range calls {
		f := strings.SplitN(c, " ", 4)
		switch {
		case f[0] == "fill" && len(f) >= 3:
			paths["fill "+f[1]] += strings.Join(f[2:], " ")
		case f[0] == "stroke" && len(f) == 4:
			paths["stroke "+f[1]+" "+f[2]] += f[3]
		default:
			rest = append(rest, c)
		}
	}
	return paths, rest
}

// TestSizeFirst draws with SizeFirst, as the page's frame loop does: a
// frame whose canvas is not of the height it needs draws nothing and says
// the height (Unsized); drawn at that height, it draws what a timeline
// without SizeFirst draws.
func TestSizeFirst(t *testing.T) {
	f := loadLarge(t)
	tl := newTimeline(false)
	tl.SizeFirst = true
	var p TestPainter
	need := tl.Draw(&p, f, 1200, 240, Point{})
	if !tl.Unsized || len(p.Calls) != 0 || need == 240 {
		t.Fatalf("drawn on a canvas 240 high: unsized %v, %d calls, height %v; want nothing drawn and another height", tl.Unsized, len(p.Calls), need)
	}
	var sized, plain TestPainter
	tl.Draw(&sized, f, 1200, need, Point{})
	newTimeline(false).Draw(&plain, f, 1200, need, Point{})
	if tl.Unsized || !slices.Equal(sized.Calls, plain.Calls) {
		t.Errorf("drawn at the height it needs: unsized %v, %d calls; without SizeFirst, %d", tl.Unsized, len(sized.Calls), len(plain.Calls))
	}
}
