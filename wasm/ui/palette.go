package ui

import (
	"hash/fnv"
	"strconv"
	"strings"

	"sluice/core"
)

// The timeline's colours. They match the light theme of web/sluice.css.
const (
	colBackground = "#ffffff"
	colStripe     = "#f8fafc"
	colGrid       = "#e2e8f0"
	colAxis       = "#64748b"
	colText       = "#1e293b"
	colMuted      = "#94a3b8"
	colNow        = "#0f172a"
	colEvicted    = "#f1f5f9"
	colCreated    = "#16a34a"
	colFailed     = "#dc2626"
	colPanicked   = "#7c3aed"
	colCanceled   = "#94a3b8"
	colCanceledBg = "#e2e8f0"
	colLimit      = "#dc2626"
	colTrackLine  = "#2563eb"
	colTrackFill  = "#dbeafe"
	colHover      = "#0f172a"
	colTipBg      = "#ffffff"
	colTipLine    = "#cbd5e1"
)

// shade is a colour in two strengths: strong for running tasks and queue
// chips, soft for finished tasks.
type shade struct{ strong, soft string }

// Priority colours: High orange, Normal blue, Low teal; priorities beyond
// High are red, below Low slate.
var (
	shadeHigh    = shade{"#f97316", "#fdba74"}
	shadeNormal  = shade{"#3b82f6", "#93c5fd"}
	shadeLow     = shade{"#14b8a6", "#5eead4"}
	shadeHigher  = shade{"#dc2626", "#fca5a5"}
	shadeLower   = shade{"#64748b", "#cbd5e1"}
	shadeUnknown = shade{"#64748b", "#cbd5e1"}
)

// keyShades colour keys and consumers, in an order where neighbours
// differ.
var keyShades = []shade{
	{"#3b82f6", "#93c5fd"}, // blue
	{"#f97316", "#fdba74"}, // orange
	{"#10b981", "#6ee7b7"}, // emerald
	{"#8b5cf6", "#c4b5fd"}, // violet
	{"#ec4899", "#f9a8d4"}, // pink
	{"#eab308", "#fde047"}, // yellow
	{"#06b6d4", "#67e8f9"}, // cyan
	{"#ef4444", "#fca5a5"}, // red
	{"#84cc16", "#bef264"}, // lime
	{"#6366f1", "#a5b4fc"}, // indigo
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

// taskShade returns the colour of a task with the given priority and key
// when the timeline colours by colorBy ("priority" or "key"), among the
// run's priority levels (see levelShade).
func taskShade(colorBy string, levels []core.Priority, p core.Priority, key string) shade {
	if colorBy == "key" {
		return keyShade(consumerOf(key))
	}
	return levelShade(levels, p)
}
