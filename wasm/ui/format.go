package ui

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"sluice/core"
	"sluice/wasm/sim"
)

// formatSpan writes a span of virtual time as a person reads it on a
// counter: "0 ms", "340 ms", "1.25 s", "2m05s".
func formatSpan(d time.Duration) string {
	switch {
	case d < 0:
		return "-" + formatSpan(-d)
	case d < time.Millisecond && d > 0:
		return fmt.Sprintf("%d µs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + " s"
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// formatClock writes a time since the run started for the time axis and
// the clock: "0s", "1.5s", "12s", "2m30s".
func formatClock(d time.Duration) string {
	if d < 0 {
		return "-" + formatClock(-d)
	}
	if d < time.Minute {
		s := strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
		if i := strings.IndexByte(s, '.'); i >= 0 && len(s) > i+3 {
			s = s[:i+3]
		}
		return s + "s"
	}
	m := int(d / time.Minute)
	s := d - time.Duration(m)*time.Minute
	if m >= 60 {
		return fmt.Sprintf("%dh%02dm", m/60, m%60)
	}
	if s == 0 {
		return fmt.Sprintf("%dm", m)
	}
	return fmt.Sprintf("%dm%02ds", m, int(s.Seconds()))
}

// formatTick writes a time since the run started as a time axis with
// ticks step apart labels it, in one style whatever the zoom, with the
// decimals the step needs: "250µs", "1.25ms", "250ms", "1.5s",
// "4.015996s", "2m30s", "21m50.8s", "3h02m".
func formatTick(d, step time.Duration) string {
	switch {
	case d < 0:
		return "-" + formatTick(-d, step)
	case d == 0:
		return "0s"
	case d < time.Millisecond:
		return strconv.FormatFloat(float64(d)/float64(time.Microsecond), 'f', decimals(step, time.Microsecond), 64) + "µs"
	case d < time.Second:
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', decimals(step, time.Millisecond), 64) + "ms"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', decimals(step, time.Second), 64) + "s"
	}
	h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
	rest := d % time.Minute
	head := fmt.Sprintf("%dm", m)
	if h > 0 {
		head = fmt.Sprintf("%dh%02dm", h, m)
	}
	if rest == 0 && step%time.Minute == 0 {
		return head
	}
	secs := strconv.FormatFloat(rest.Seconds(), 'f', decimals(step, time.Second), 64)
	if rest < 10*time.Second {
		secs = "0" + secs
	}
	return head + secs + "s"
}

// decimals returns the digits after the point that a unit needs to show
// multiples of step.
func decimals(step, unit time.Duration) int {
	n := 0
	for u := unit; u > 0 && step%u != 0 && n < 9; u /= 10 {
		n++
	}
	return n
}

// formatAt writes a time since the run started precisely enough for a
// task's details and the event log, to the microsecond: "1.25s",
// "6.24995s", "12.5ms", "340µs".
func formatAt(d time.Duration) string { return sim.FormatAt(d) }

// formatCount writes n with thousands separators: 10,000.
func formatCount(n int) string {
	if n < 0 {
		if n == math.MinInt {
			return strconv.Itoa(n)
		}
		return "-" + formatCount(-n)
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// formatRate writes a throughput in tasks per second.
func formatRate(r float64) string {
	switch {
	case math.IsNaN(r) || math.IsInf(r, 0) || r <= 0:
		return "0/s"
	case r < 10:
		return strconv.FormatFloat(r, 'f', 1, 64) + "/s"
	}
	return strconv.FormatFloat(r, 'f', 0, 64) + "/s"
}

// formatSpeed writes a playback speed: "0.1×", "1×", "2.5×".
func formatSpeed(s float64) string {
	return strconv.FormatFloat(s, 'f', -1, 64) + "×"
}

// priorityName names a priority as the event log does; any int is a
// valid priority.
func priorityName(p core.Priority) string { return sim.PriorityName(p) }

// stateName is how the page names a task state.
func stateName(s core.TaskState) string {
	switch s {
	case core.TaskPending:
		return "waiting"
	case core.TaskRunning:
		return "running"
	case core.TaskSucceeded:
		return "succeeded"
	case core.TaskFailed:
		return "failed"
	case core.TaskCanceled:
		return "canceled"
	case core.TaskPanicked:
		return "panicked"
	}
	return s.String()
}

// eventVerb is how the event log names an event kind.
func eventVerb(k core.EventKind) string { return sim.EventVerb(k) }

// truncate shortens s to at most n runes, ending it with "…" when cut.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n <= 1 {
		return string(r[:max(n, 0)])
	}
	return string(r[:n-1]) + "…"
}
