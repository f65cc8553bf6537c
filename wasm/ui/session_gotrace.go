package ui

import (
	"strconv"
	"strings"
	"time"

	"sluice/core"
	"sluice/core/trace"
	"sluice/wasm/gotrace/golanes"
)

// NoteGoTrace completes what the view of a loaded trace says of it, for a
// Go execution trace read by the Go-trace worker: drawn (its span and its
// sluice tasks by queue) goes before the note on its times, omitted (what
// the timeline does not draw) before the trace's own omissions. It does
// nothing when no trace is shown.
func (s *Session) NoteGoTrace(drawn, omitted string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.replay
	if rp == nil {
		return
	}
	if drawn != "" {
		rp.times = drawn + " " + rp.times
	}
	var parts []string
	for _, p := range []string{omitted, rp.omitted} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	rp.omitted = strings.Join(parts, "; ")
}

// The IDs of the bars of goroutine and proc lanes, in the model's Task ID
// space beyond any trace's task numbers: runIDBase and the run's index,
// with runOther set for a run outside any sluice task.
const (
	runIDBase = 1 << 52
	runOther  = 1 << 51
)

// isRun reports whether a task of the model is a bar of a goroutine or
// proc lane (see Session.AddGoLanes), and whether it ran outside any
// sluice task.
func isRun(id uint64) (run, other bool) {
	return id&runIDBase != 0, id&runOther != 0
}

// AddGoLanes draws the goroutine and proc lanes of a Go execution trace
// (encoded by the Go-trace worker with golanes) below the lanes of the
// loaded trace's tasks: each run is a bar, named after its goroutine and
// the task it ran, coloured as that task (grey outside any task), on a
// lane of its own after the trace's lanes. The trace's counts, waits and
// counters are left as they are. pause, if not nil, is called between
// slices of the work, with the share done, without the session's lock
// held (see LoadTracePausing). It does nothing when no trace is shown,
// or another was loaded meanwhile, and returns an error, changing
// nothing, when data does not decode.
func (s *Session) AddGoLanes(data []byte, pause func(done float64)) error {
	if pause == nil {
		pause = func(float64) {}
	}
	l, err := golanes.DecodePausing(data, func() { pause(0) })
	if err != nil {
		return err
	}
	s.mu.Lock()
	rp := s.replay
	var was loaded
	if rp != nil && rp.loaded != nil {
		was = *rp.loaded
	}
	s.mu.Unlock()
	if rp == nil || len(l.Names) == 0 {
		return nil
	}
	// A new snapshot, not the one drawn already: what the timeline keeps
	// of a loaded trace's snapshot is found again. The loaded trace's
	// snapshot does not change: it is read without the lock.
	snap := *rp.snap
	first := 1 // 0 is no lane in loaded.runFrom
	for _, ln := range snap.Lanes {
		first = max(first, ln.ID+1)
	}
	snap.Lanes = append(make([]trace.Lane, 0, len(snap.Lanes)+len(l.Names)), snap.Lanes...)
	for i, name := range l.Names {
		snap.Lanes = append(snap.Lanes, trace.Lane{ID: first + i, Name: name, Key: name, Slot: -1})
	}
	byID := make(map[uint64]int, len(snap.Tasks))
	for i := range snap.Tasks {
		byID[snap.Tasks[i].ID] = i
		if i%4096 == 0 {
			pause(0)
		}
	}
	var procs []trace.Text // "on proc N", by N
	n := len(snap.Tasks)
	tasks := append(make([]trace.Task, 0, n+len(l.Runs)), snap.Tasks...)[:n+len(l.Runs)]
	for i := range l.Runs {
		if i%1024 == 0 {
			pause(float64(i) / float64(len(l.Runs)))
		}
		// Field by field, in place: a Task is large.
		r, x := &l.Runs[i], &tasks[n+i]
		x.ID, x.Lane, x.State, x.Weight = runIDBase|uint64(i), first+r.Lane, core.TaskSucceeded, 1
		x.Started, x.Ended = trace.StampOf(time.Unix(0, r.Start)), trace.StampOf(time.Unix(0, r.End))
		x.Enqueued = x.Started
		name := "G" + strconv.FormatUint(r.G, 10)
		if j, ok := byID[r.Task]; ok && r.Task != 0 {
			t := &snap.Tasks[j]
			x.Priority, x.Key = t.Priority, t.Key
			if t.Name.Len() > 0 {
				name += " · " + snap.Text(t.Name)
			} else {
				name += " · task " + strconv.FormatUint(t.ID, 10)
			}
		} else {
			x.ID |= runOther
		}
		x.Name = snap.AddText(name)
		if r.P >= 0 && r.P < 1<<16 {
			for int64(len(procs)) <= r.P {
				procs = append(procs, snap.AddText("on proc "+strconv.Itoa(len(procs))))
			}
			x.Err = procs[r.P]
		}
	}
	snap.Tasks = tasks
	pause(1)
	index := prebuildIndex(&snap, pause)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replay == rp {
		rp.snap = &snap
		// The runs, after the tasks, never wait: the trace's queue
		// is as it was.
		rp.loaded = &loaded{runFrom: first, index: index, settled: was.settled, pending: was.pending, noWaits: was.noWaits}
	}
	return nil
}
