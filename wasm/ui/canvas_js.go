//go:build js && wasm

package ui

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hack-pad/safejs"
)

// canvasPainter is the painter of a <canvas>: its 2D context, reached
// through safejs. Every call into JavaScript costs, so it remembers the
// context's fill, stroke, font and alignment to set each only when it
// changes, caches text widths, draws a frame's texts in one call
// (web/canvas.js) and keeps the Path2D objects of long paths that the next
// frames draw again.
type canvasPainter struct {
	canvas, ctx2d safejs.Value
	path2DCtor    safejs.Value // the Path2D constructor
	dpr           float64
	w, h          float64 // CSS pixels

	fill, stroke, font string
	lineWidth          float64
	align              textAlign
	widths             map[string]map[rune]float64 // by font, each character's width

	// texts are the Text calls not yet drawn, and the state they set, for
	// web/canvas.js's sluiceTexts to draw in one call (flush): the state
	// fields above are the context's once they are.
	texts   []byte
	batcher pageFunc // sluiceTexts

	paths []cachedPath // large paths made into Path2D objects, kept for the next frames
	uses  int          // FillPath calls so far, to find the least recently used path

	// Rectangles reach the page as float32s (FillRects): packed is their
	// bytes; rectBytes is a Uint8Array the page reads them from, of
	// rectCap bytes, for rectMaker.
	packed    []byte
	svg       []byte // the path of a few rectangles
	rectBytes safejs.Value
	rectCap   int
	rectMaker pageFunc // sluiceRects

	widthsOf pageFunc // sluiceWidths
}

// pageFunc is a function of web/canvas.js, looked for again after every
// 256 calls until the page has it (the script loads beside app.wasm).
type pageFunc struct {
	name  string
	fn    safejs.Value
	retry int
}

// get returns the function, if the page has it.
func (f *pageFunc) get() (safejs.Value, bool) {
	if f.fn.IsUndefined() || f.fn.IsNull() {
		if f.retry > 0 {
			f.retry--
			return f.fn, false
		}
		v, err := safejs.Global().Get(f.name)
		if err != nil || v.Type() != safejs.TypeFunction {
			f.retry = 256 // the script is not there (yet)
			return f.fn, false
		}
		f.fn = v
	}
	return f.fn, true
}

// cachedPath is a Path2D object and the path or the rectangles it was
// made from: a timeline at rest draws the same bars frame after frame,
// and making a Path2D of a zoomed-out trace's bars (megabytes of path)
// took most of a frame.
type cachedPath struct {
	src   []byte    // the path's text, or
	rects []float64 // the rectangles (non-nil)
	p     safejs.Value
	used  int
}

// fewRects is the number of rectangles below which FillRects sends an SVG
// path.
const fewRects = 64

// Bounds on the paths kept: only those long enough to cost, a few.
const (
	minCachedPath  = 4 << 10 // bytes of path text
	minCachedRects = 128     // rectangles, about as much path
	maxCachedPath  = 48      // a large trace's first window is drawn in batches (barCache), each of a few colours
)

// path2D returns a Path2D of path, kept from an earlier call if it was
// made of the same path.
func (c *canvasPainter) path2D(path []byte) (safejs.Value, error) {
	return c.cached(len(path) >= minCachedPath,
		func(cp *cachedPath) bool { return cp.rects == nil && bytes.Equal(cp.src, path) },
		func() (safejs.Value, error) { return c.path2DCtor.New(string(path)) },
		func(cp *cachedPath) { cp.src, cp.rects = append(cp.src[:0], path...), nil })
}

// rects2D returns a Path2D of rects (see painter.FillRects), kept from an
// earlier call if it was made of the same rectangles. The page makes it
// from their numbers, as float32s (web/canvas.js's sluiceRects); a few
// rectangles, or a page without web/canvas.js, from an SVG path, in one
// call instead of two.
func (c *canvasPainter) rects2D(rects []float64) (safejs.Value, error) {
	maker, ok := c.rectMaker.get()
	if len(rects) < 4*fewRects || !ok {
		c.svg = appendRects(c.svg[:0], rects)
		return c.path2D(c.svg)
	}
	return c.cached(len(rects) >= 4*minCachedRects,
		func(cp *cachedPath) bool { return cp.rects != nil && slices.Equal(cp.rects, rects) },
		func() (safejs.Value, error) {
			b := c.packed[:0]
			for _, v := range rects {
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(v)))
			}
			c.packed = b
			if len(b) > c.rectCap {
				u8, err := safejs.Global().Get("Uint8Array")
				if err != nil {
					return safejs.Value{}, err
				}
				if c.rectBytes, err = u8.New(len(b) + len(b)/2); err != nil {
					c.rectCap = 0
					return safejs.Value{}, err
				}
				c.rectCap = len(b) + len(b)/2
			}
			if _, err := safejs.CopyBytesToJS(c.rectBytes, b); err != nil {
				return safejs.Value{}, err
			}
			return maker.Invoke(c.rectBytes, len(rects)/4)
		},
		func(cp *cachedPath) { cp.src, cp.rects = cp.src[:0], append(cp.rects[:0:0], rects...) })
}

// cached returns the Path2D of the kept entry that same matches, else
// the one build makes, which keep notes in an entry when big (the least
// recently used one, once there are maxCachedPath).
func (c *canvasPainter) cached(big bool, same func(*cachedPath) bool, build func() (safejs.Value, error), keep func(*cachedPath)) (safejs.Value, error) {
	if !big {
		return build()
	}
	c.uses++
	lru := -1
	for i := range c.paths {
		cp := &c.paths[i]
		if same(cp) {
			cp.used = c.uses
			return cp.p, nil
		}
		if lru < 0 || cp.used < c.paths[lru].used {
			lru = i
		}
	}
	p, err := build()
	if err != nil {
		return p, err
	}
	if len(c.paths) < maxCachedPath {
		c.paths = append(c.paths, cachedPath{})
		lru = len(c.paths) - 1
	}
	cp := &c.paths[lru]
	cp.p, cp.used = p, c.uses
	keep(cp)
	return p, nil
}

func newCanvasPainter(canvas safejs.Value) (*canvasPainter, error) {
	ctx2d, err := canvas.Call("getContext", "2d")
	if err != nil {
		return nil, err
	}
	path2D, err := safejs.Global().Get("Path2D")
	if err != nil {
		return nil, err
	}
	dpr := 1.0
	if v, err := safejs.Global().Get("devicePixelRatio"); err == nil {
		if f, err := v.Float(); err == nil && f >= 1 && f <= 4 {
			dpr = f
		}
	}
	return &canvasPainter{canvas: canvas, ctx2d: ctx2d, path2DCtor: path2D, dpr: dpr, widths: make(map[string]map[rune]float64),
		batcher: pageFunc{name: "sluiceTexts"}, rectMaker: pageFunc{name: "sluiceRects"}, widthsOf: pageFunc{name: "sluiceWidths"}}, nil
}

// cssWidth returns the canvas's width on the page, in CSS pixels.
func (c *canvasPainter) cssWidth() float64 {
	v, err := c.canvas.Get("clientWidth")
	if err != nil {
		return 0
	}
	f, _ := v.Float()
	return f
}

// resize sets the canvas's backing store to w × h CSS pixels at the
// device's pixel ratio. Resizing clears the canvas and its state.
func (c *canvasPainter) resize(w, h float64) {
	if w == c.w && h == c.h {
		return
	}
	c.texts = c.texts[:0] // resizing clears the canvas
	c.w, c.h = w, h
	c.canvas.Set("width", int(w*c.dpr+0.5))
	c.canvas.Set("height", int(h*c.dpr+0.5))
	c.ctx2d.Call("setTransform", c.dpr, 0, 0, c.dpr, 0, 0)
	c.fill, c.stroke, c.font, c.lineWidth, c.align = "", "", "", 0, 255
}

func (c *canvasPainter) setFill(color string) {
	c.flush()
	if color != c.fill {
		c.fill = color
		c.ctx2d.Set("fillStyle", color)
	}
}

func (c *canvasPainter) Clear(color string) {
	c.FillRect(0, 0, c.w, c.h, color)
}

func (c *canvasPainter) FillRect(x, y, w, h float64, color string) {
	c.setFill(color)
	c.ctx2d.Call("fillRect", x, y, w, h)
}

func (c *canvasPainter) FillPath(path []byte, color string) {
	if len(path) > 0 {
		p, err := c.path2D(path)
		c.fill2D(p, err, color)
	}
}

func (c *canvasPainter) FillRects(rects []float64, color string) {
	if len(rects) > 0 {
		p, err := c.rects2D(rects)
		c.fill2D(p, err, color)
	}
}

func (c *canvasPainter) StrokePath(path []byte, color string, width float64) {
	if len(path) > 0 {
		p, err := c.path2D(path)
		c.stroke2D(p, err, color, width)
	}
}

func (c *canvasPainter) StrokeRects(rects []float64, color string, width float64) {
	if len(rects) > 0 {
		p, err := c.rects2D(rects)
		c.stroke2D(p, err, color, width)
	}
}

// fill2D fills the Path2D p, unless making it failed (err).
func (c *canvasPainter) fill2D(p safejs.Value, err error, color string) {
	if err != nil {
		return
	}
	c.setFill(color) // after the texts batched before
	c.ctx2d.Call("fill", p)
}

// stroke2D strokes the Path2D p, unless making it failed (err).
func (c *canvasPainter) stroke2D(p safejs.Value, err error, color string, width float64) {
	if err != nil {
		return
	}
	c.flush() // the texts batched before
	if color != c.stroke {
		c.stroke = color
		c.ctx2d.Set("strokeStyle", color)
	}
	if width != c.lineWidth {
		c.lineWidth = width
		c.ctx2d.Set("lineWidth", width)
	}
	c.ctx2d.Call("stroke", p)
}

func (c *canvasPainter) setFont(font string) {
	c.flush()
	if font != c.font {
		c.font = font
		c.ctx2d.Set("font", font)
	}
}

var alignNames = [...]string{"left", "center", "right"}

// Text draws s, in the frame's batch of texts when the page has
// web/canvas.js (flush draws it), else at once.
func (c *canvasPainter) Text(s string, x, y float64, font, color string, align textAlign) {
	if !c.batching() {
		c.setFont(font)
		c.setFill(color)
		if align != c.align {
			c.align = align
			c.ctx2d.Set("textAlign", alignNames[align])
		}
		c.ctx2d.Call("fillText", s, x, y)
		return
	}
	b := c.texts
	if font != c.font {
		c.font = font
		b = append(append(append(b, 'f'), font...), '\n')
	}
	if color != c.fill {
		c.fill = color
		b = append(append(append(b, 'c'), color...), '\n')
	}
	if align != c.align {
		c.align = align
		b = append(append(append(b, 'a'), alignNames[align]...), '\n')
	}
	b = append(b, 't')
	b = strconv.AppendFloat(b, x, 'f', -1, 64)
	b = append(b, ' ')
	b = strconv.AppendFloat(b, y, 'f', -1, 64)
	b = append(b, ' ')
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			b = append(b, ' ')
		} else {
			b = append(b, s[i])
		}
	}
	c.texts = append(b, '\n')
}

// batching reports whether Text batches: once the page has sluiceTexts.
func (c *canvasPainter) batching() bool {
	_, ok := c.batcher.get()
	return ok
}

// flush draws the batched texts. Every other drawing, and the end of a
// frame, calls it first, so that the texts keep their place in the order
// of drawing.
func (c *canvasPainter) flush() {
	if len(c.texts) == 0 {
		return
	}
	s := string(c.texts)
	c.texts = c.texts[:0]
	if _, err := c.batcher.fn.Invoke(c.ctx2d, s); err != nil {
		c.fill, c.font, c.align = "", "", 255 // the context's state is unknown
	}
}

// TextWidth returns the width of s in font as the sum of its characters'
// widths, each measured once per font: a new trace's lane labels, and
// the tries of fit, cost no call into JavaScript for characters measured
// before (a first frame of a 200,000-task trace spent 21 ms measuring).
// Kerning, which the sum leaves out, moves a label by a fraction of a
// pixel.
func (c *canvasPainter) TextWidth(s, font string) float64 {
	ws := c.widths[font]
	if ws == nil {
		if len(c.widths) > 16 {
			clear(c.widths)
		}
		ws = c.measureASCII(font)
		c.widths[font] = ws
	}
	total := 0.0
	for _, r := range s {
		w, ok := ws[r]
		if !ok {
			w = c.measure(string(r), font)
			ws[r] = w
		}
		total += w
	}
	return total
}

// measureASCII returns the widths of the printable ASCII characters in
// font, measured in one call to web/canvas.js's sluiceWidths (a call into
// JavaScript costs more than the measuring), or none without it.
func (c *canvasPainter) measureASCII(font string) map[rune]float64 {
	ws := make(map[rune]float64, 128)
	fn, ok := c.widthsOf.get()
	if !ok {
		return ws
	}
	var chars [126 - 32 + 1]byte
	for i := range chars {
		chars[i] = byte(32 + i)
	}
	c.flush()
	v, err := fn.Invoke(c.ctx2d, font, string(chars[:]))
	c.font = font // sluiceWidths set it
	if err != nil {
		return ws
	}
	out, err := v.String()
	if err != nil {
		return ws
	}
	for i, f := range strings.Split(out, ",") {
		if w, err := strconv.ParseFloat(f, 64); err == nil && i < len(chars) {
			ws[rune(chars[i])] = w
		}
	}
	return ws
}

// measure asks the canvas for the width of s in font.
func (c *canvasPainter) measure(s, font string) float64 {
	c.flush()
	c.setFont(font)
	m, err := c.ctx2d.Call("measureText", s)
	if err != nil {
		return 6
	}
	v, err := m.Get("width")
	if err != nil {
		return 6
	}
	w, _ := v.Float()
	return w
}
