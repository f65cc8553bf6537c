package ui

import (
	"strings"

	"sluice/core/trace"
)

// appendRunRows appends the rows of a Go execution trace's goroutine and
// proc lanes (Session.AddGoLanes), at most n: when there are more, the
// goroutines' rows that do not fit give way to one "+N more lanes" row
// before the procs' rows, which stay.
func appendRunRows(rows []laneRow, lanes []*trace.Lane, n int) []laneRow {
	if len(lanes) == 0 || n <= 0 {
		return rows
	}
	var gs, ps []*trace.Lane
	for _, l := range lanes {
		if strings.HasPrefix(l.Name, "proc ") {
			ps = append(ps, l)
		} else {
			gs = append(gs, l)
		}
	}
	more := 0
	if len(lanes) > n {
		keepG := n - 1 - len(ps)
		if keepG < 0 {
			keepG, ps = 0, ps[:n-1]
		}
		more = len(lanes) - keepG - len(ps)
		gs = gs[:keepG]
	}
	for _, l := range gs {
		rows = append(rows, laneRow{label: l.Name, lanes: []*trace.Lane{l}})
	}
	if more > 0 {
		rows = append(rows, laneRow{label: "+" + formatCount(more) + " more lanes", summary: true})
	}
	for _, l := range ps {
		rows = append(rows, laneRow{label: l.Name, lanes: []*trace.Lane{l}})
	}
	return rows
}

// runLines describes a goroutine's run for its tooltip and details: the
// goroutine and the task it ran, the task's priority and key, the proc,
// and when and how long it ran.
func runLines(x *trace.Task, f Frame, other bool) []string {
	snap := f.Snap
	lines := []string{snap.Text(x.Name)}
	var facts []string
	if other {
		facts = append(facts, "outside any sluice task")
	} else {
		facts = append(facts, priorityName(x.Priority))
		if x.Key.Len() > 0 {
			facts = append(facts, "key "+snap.Text(x.Key))
		}
	}
	if x.Err.Len() > 0 {
		facts = append(facts, snap.Text(x.Err)) // "on proc N"
	}
	lines = append(lines, strings.Join(facts, " · "))
	lines = append(lines, "ran "+formatSpan(x.Ended.Sub(x.Started))+" from "+formatAt(x.Started.Time().Sub(f.Origin)))
	return lines
}
