package sim

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"sluice/core"
)

// This file is copied whole, after its imports, into every program that
// GoCode writes: the page's event log and the program write their lines
// with the same code. It uses nothing but the standard library and
// sluice/core.

// eventLine writes an event of a task as the page's event log shows it:
// the virtual time since the run started, the task's name, what happened,
// and the details, separated by two spaces. slots says whether the
// primitive runs its tasks in numbered worker slots.
func eventLine(slots bool, at time.Duration, e core.Event) string {
	line := strings.Join([]string{formatAt(at), e.Name, eventVerb(e.Kind), eventDetail(slots, e.Kind, e.Key, e.Lane, e.Weight, e.Priority, errText(e.Err))}, "  ")
	return strings.TrimRight(line, " ")
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// formatAt writes a time since the run started, to the microsecond:
// "0s", "250µs", "1.25ms", "1.5s", "2m30s".
func formatAt(d time.Duration) string {
	if d < 0 {
		return "-" + formatAt(-d)
	}
	switch {
	case d >= time.Minute:
		m := int(d / time.Minute)
		if m >= 60 {
			return fmt.Sprintf("%dh%02dm", m/60, m%60)
		}
		if s := d - time.Duration(m)*time.Minute; s >= time.Second {
			return fmt.Sprintf("%dm%02ds", m, int(s.Seconds()))
		}
		return fmt.Sprintf("%dm", m)
	case d >= time.Second:
		s := strconv.FormatFloat(d.Seconds(), 'f', 6, 64) // to the microsecond
		return strings.TrimRight(strings.TrimRight(s, "0"), ".") + "s"
	case d >= time.Millisecond:
		ms := strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 3, 64)
		return strings.TrimRight(strings.TrimRight(ms, "0"), ".") + "ms"
	case d > 0:
		return strconv.FormatFloat(float64(d)/float64(time.Microsecond), 'f', 0, 64) + "µs"
	}
	return "0s"
}

// eventVerb says what an event of kind k reports.
func eventVerb(k core.EventKind) string {
	switch k {
	case core.Enqueued:
		return "enqueued"
	case core.Waiting:
		return "waits"
	case core.Started:
		return "started"
	case core.Finished:
		return "finished"
	case core.Failed:
		return "failed"
	case core.Canceled:
		return "canceled"
	case core.Panicked:
		return "panicked"
	case core.LaneCreated:
		return "lane created"
	case core.LaneEvicted:
		return "lane evicted"
	case core.Resized:
		return "resized"
	case core.Closed:
		return "closed"
	}
	return k.String()
}

// eventDetail writes the details of an event: its priority when it is
// queued, where it started (its key, consumer or queue, or, if slots, the
// worker slot of a work queue or processor), its weight and its error.
func eventDetail(slots bool, k core.EventKind, key string, lane int, weight int64, prio core.Priority, err string) string {
	var parts []string
	switch k {
	case core.Resized:
		return "limit " + strconv.FormatInt(weight, 10)
	case core.LaneCreated, core.LaneEvicted:
		return key
	case core.Enqueued, core.Waiting:
		parts = append(parts, priorityName(prio))
	case core.Started:
		switch {
		case key != "":
			parts = append(parts, key)
		case slots:
			parts = append(parts, "slot "+strconv.Itoa(lane+1))
		}
	}
	if weight > 1 {
		parts = append(parts, "weight "+strconv.FormatInt(weight, 10))
	}
	if err != "" {
		if r := []rune(err); len(r) > 80 {
			err = string(r[:79]) + "…"
		}
		parts = append(parts, err)
	}
	return strings.Join(parts, " · ")
}

// priorityName names a priority.
func priorityName(p core.Priority) string {
	switch p {
	case core.High:
		return "High"
	case core.Normal:
		return "Normal"
	case core.Low:
		return "Low"
	}
	return "priority " + strconv.Itoa(int(p))
}
