package ui

import (
	"hash/fnv"
	"math"
	"strconv"
	"strings"

	"sluice/core"
	"sluice/core/trace"
)

// The timeline's colours. They match the light theme of web/sluice.css.
const (
	colBackground = "#ffffff"
	colStripe     = "#f8fafc"
	colGrid       = "#e2e8f0"
	colAxis       = "#576579"
	colText       = "#1e293b"
	colMuted      = "#64748b"
	colNow        = "#0f172a"
	colEvicted    = "#f1f5f9"
	colCreated    = "#16a34a"
	colFailed     = "#dc2626"
	colPanicked   = "#7c3aed"
	colCanceled   = "#64748b"
	colCanceledBg = "#e2e8f0"
	colLimit      = "#dc2626"
	colTrackLine  = "#2563eb"
	colTrackFill  = "#dbeafe"
	colHover      = "#0f172a"
	colTipBg      = "#ffffff"
	colTipLine    = "#cbd5e1"
	colSelect     = "#0f172a"
	colLabelDark  = "#0f172a"
)

// textOn returns the colour of a label on a bar of colour bg ("#rrggbb"):
// dark or white, whichever contrasts more.
func textOn(bg string) string {
	if contrast(bg, colLabelDark) >= contrast(bg, "#ffffff") {
		return colLabelDark
	}
	return "#ffffff"
}

// contrast returns the WCAG contrast ratio of two "#rrggbb" colours.
func contrast(a, b string) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// luminance returns the relative luminance of a "#rrggbb" colour.
func luminance(c string) float64 {
	if len(c) != 7 || c[0] != '#' {
		return 0
	}
	v, err := strconv.ParseUint(c[1:], 16, 32)
	if err != nil {
		return 0
	}
	ch := func(x uint64) float64 {
		f := float64(x) / 255
		if f <= 0.03928 {
			return f / 12.92
		}
		return math.Pow((f+0.055)/1.055, 2.4)
	}
	return 0.2126*ch(v>>16&0xff) + 0.7152*ch(v>>8&0xff) + 0.0722*ch(v&0xff)
}

// shade is a colour in two strengths: strong for running tasks and queue
// chips, soft for finished tasks.
type shade struct{ strong, soft string }

// Priority colours: High orange, Normal blue, Low teal; priorities beyond
// High are red, below Low slate.
var (
	shadeHigh    = shade{"#ea580c", "#fdba74"}
	shadeNormal  = shade{"#3b82f6", "#93c5fd"}
	shadeLow     = shade{"#0d9488", "#5eead4"}
	shadeHigher  = shade{"#dc2626", "#fca5a5"}
	shadeLower   = shade{"#64748b", "#cbd5e1"}
	shadeUnknown = shade{"#64748b", "#cbd5e1"}
)

// keyShades colour keys and consumers, in an order where neighbours
// differ.
var keyShades = []shade{
	{"#3b82f6", "#93c5fd"}, // blue
	{"#ea580c", "#fdba74"}, // orange
	{"#059669", "#6ee7b7"}, // emerald
	{"#7c3aed", "#c4b5fd"}, // violet
	{"#ec4899", "#f9a8d4"}, // pink
	{"#a16207", "#fde047"}, // yellow
	{"#0891b2", "#67e8f9"}, // cyan
	{"#ef4444", "#fca5a5"}, // red
	{"#4d7c0f", "#bef264"}, // lime
	{"#4f46e5", "#a5b4fc"}, // indigo
}

// priorityShade returns the colour of priority p.
func priorityShade(p core.Priority) shade {
	switch {
	case p == core.High:
		return shadeHigh
	case p == core.Normal:
		return shadeNormal
	case p == core.Low:
		return shadeLow
	case p > core.High:
		return shadeHigher
	}
	return shadeLower
}

// keyShade returns the colour of a key: keys that end in a number (the
// playground's "device-3" and "consumer-2") take the palette in order, so
// that neighbours differ; other keys are hashed.
func keyShade(key string) shade {
	if key == "" {
		return shadeUnknown
	}
	if i := strings.LastIndexByte(key, '-'); i >= 0 {
		if n, err := strconv.Atoi(key[i+1:]); err == nil && n > 0 {
			return keyShades[(n-1)%len(keyShades)]
		}
	}
	h := fnv.New32a()
	h.Write([]byte(key))
	return keyShades[h.Sum32()%uint32(len(keyShades))]
}

// taskShade returns the colour of task x of frame f, by its priority or
// its key as the frame's ColorBy says ("priority" or "key"), among the
// run's priority levels (see levelShade).
func taskShade(f *Frame, x *trace.Task) shade {
	if f.ColorBy == "key" {
		return keyShade(consumerOf(f.Snap.Text(x.Key)))
	}
	return levelShade(f.Levels, x.Priority)
}
