package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/core"
	"sluice/wasm/sim"
)

// Hooks for the external tests.

// PlaySession returns the session a mounted Play runs.
func PlaySession(p *Play) *Session { return p.sess }

// SessionTasks returns every task of the session's run.
func SessionTasks(s *Session) []sim.TaskInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.run.Tasks()
}

// SetLocation sets the page's URL, as a link would open it.
func SetLocation(url string) { replaceURL(url) }

// NewTimeline returns a timeline, compact or not.
func NewTimeline(compact bool) *timeline { return newTimeline(compact) }

// SpanFor is the window the page draws by default.
const SpanFor = defaultSpan

// TestPainter records what a timeline draws.
type TestPainter struct {
	Calls []string
	Texts []string
	Rects int // rectangles in filled paths and FillRect calls
}

func (p *TestPainter) Clear(color string) { p.Calls = append(p.Calls, "clear "+color) }

func (p *TestPainter) FillRect(x, y, w, h float64, color string) {
	p.Rects++
	p.Calls = append(p.Calls, fmt.Sprintf("rect %s %.1f %.1f %.1f %.1f", color, x, y, w, h))
}

func (p *TestPainter) FillPath(path []byte, color string) {
	p.Rects += strings.Count(string(path), "Z")
	p.Calls = append(p.Calls, "fill "+color+" "+string(path))
}

func (p *TestPainter) StrokePath(path []byte, color string, width float64) {
	p.Calls = append(p.Calls, fmt.Sprintf("stroke %s %g %s", color, width, path))
}

// FillRects records the rectangles as the SVG path that fills them.
func (p *TestPainter) FillRects(rects []float64, color string) {
	p.FillPath(appendRects(nil, rects), color)
}

// StrokeRects records the rectangles as the SVG path that outlines them.
func (p *TestPainter) StrokeRects(rects []float64, color string, width float64) {
	p.StrokePath(appendRects(nil, rects), color, width)
}

func (p *TestPainter) Text(s string, x, y float64, font, color string, align textAlign) {
	p.Texts = append(p.Texts, s)
	p.Calls = append(p.Calls, fmt.Sprintf("text %q %.1f %.1f %s", s, x, y, color))
}

func (p *TestPainter) TextWidth(s, font string) float64 { return float64(len([]rune(s))) * 6 }

// DrawFrame moves s by one frame of real time and draws it, w pixels wide,
// with the pointer at mouse; it returns the frame.
func DrawFrame(t *timeline, p *TestPainter, s *Session, real time.Duration, w float64, mouse Point) Frame {
	f := s.Frame(real, defaultSpan)
	t.Draw(p, f, w, 300, mouse)
	return f
}

// Exported for tests of the helpers.
var (
	FormatSpan     = formatSpan
	FormatClock    = formatClock
	FormatCount    = formatCount
	Truncate       = truncate
	NaturalCompare = naturalCompare
	TickStep       = tickStep
	AppendRect     = appendRect
	KeyShade       = func(k string) string { return keyShade(k).strong }
	EmbedSnippet   = embedSnippet
	SpeedSlider    = func(v float64) float64 { return speedFromSlider(v) }
	SliderSpeed    = sliderFromSpeed
	CheckBurst     = checkBurst
	ParseLevels    = parseLevels
	ParseKeyNames  = parseKeyNames
	LevelShade     = func(levels []core.Priority, p core.Priority) string { return levelShade(levels, p).strong }
)

// Act runs f on the UI goroutine of p, with p's context, as an event
// handler would run; the caller consumes the dispatch.
func Act(disp app.Dispatcher, p *Play, f func(ctx app.Context)) {
	disp.Dispatch(app.Dispatch{Mode: app.Update, Source: p, Function: f})
}

// actComposer runs f on the UI goroutine with p's composer, as one of the
// composer's event handlers runs: the composer, then the page, render
// again. The caller consumes the dispatch.
func actComposer(disp app.Dispatcher, p *Play, f func(ctx app.Context, c *Composer)) {
	c := p.composer
	if c == nil {
		panic("the page shows no composer")
	}
	disp.Dispatch(app.Dispatch{Mode: app.Update, Source: c, Function: func(ctx app.Context) { f(ctx, c) }})
	disp.Dispatch(app.Dispatch{Mode: app.Update, Source: p, Function: func(app.Context) {}})
}

// ClickAddBurst fills the burst composer with b and clicks "Add burst".
func ClickAddBurst(disp app.Dispatcher, p *Play, b sim.Burst) {
	actComposer(disp, p, func(ctx app.Context, c *Composer) {
		c.form = b
		c.onAddBurst(ctx, app.Event{})
	})
}

// TypeList types text into the composer's list input id
// ("burst-levels" or "burst-key-names").
func TypeList(disp app.Dispatcher, p *Play, id, text string) {
	actComposer(disp, p, func(ctx app.Context, c *Composer) { c.setList(ctx, id, text) })
}

// ClickAddForm clicks "Add burst" with the composer as it is, count tasks.
func ClickAddForm(disp app.Dispatcher, p *Play, count int) {
	actComposer(disp, p, func(ctx app.Context, c *Composer) {
		c.form.Count = count
		c.onAddBurst(ctx, app.Event{})
	})
}

// ClickPreset clicks a preset.
func ClickPreset(disp app.Dispatcher, p *Play, id string) {
	Act(disp, p, func(ctx app.Context) { p.onPreset(id)(ctx, app.Event{}) })
}

// Host sends p a command from the page that frames it.
func Host(disp app.Dispatcher, p *Play, kind, preset, scenario string) {
	Act(disp, p, func(ctx app.Context) {
		ctx.Async(func() { p.hostCommand(ctx, hostMessage{Kind: kind, Preset: preset, Scenario: scenario}) })
	})
}
