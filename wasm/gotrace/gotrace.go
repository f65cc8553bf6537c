// Package gotrace reads a Go execution trace (runtime/trace.Start, go test
// -trace, a trace.FlightRecorder snapshot) with golang.org/x/exp/trace and
// turns the sluice tasks in it into the playground's timeline model
// (sluice/core/trace), written as the Chrome Trace Event JSON the
// playground loads.
//
// It reads the annotations that sluice/core writes while tracing is on
// (see core's rtrace.go): each trace task of a "sluice." type is a task,
// enqueued when the trace task begins, started when its "sluice.run"
// region begins, ended with its "sluice.outcome" when the trace task ends.
// Each task runs on a lane of its own queue: "KeyedQueue 1 · alice" (a
// key), "WorkQueue 2 · slot 3" (a worker slot, from 1), "Consume 1 · slot
// 1", "Semaphore 1 · holder 2" (a holder of Semaphore.Do, numbered as the
// playground numbers holders). What the timeline does not draw is counted
// in [Result.Omitted]: the goroutines and procs, the tasks that are not
// sluice's (by type), and the sluice tasks that began before the trace did.
//
// The package imports golang.org/x/exp/trace; the playground runs it in a
// Web Worker of its own (worker/), so that app.wasm stays small and the
// page responsive while a trace is read.
package gotrace

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	xtrace "golang.org/x/exp/trace"

	"sluice/core"
	"sluice/core/trace"
)

// Result is a converted trace.
type Result struct {
	JSON    []byte // the timeline model as Chrome Trace Event JSON (trace.ReadJSON reads it)
	Summary string // what the timeline draws: the trace's span and its sluice tasks by queue
	Omitted string // what the trace holds that the timeline does not draw; "" if nothing
	Tasks   int    // sluice tasks on the timeline
	Events  int    // events read from the trace
}

// MaxTasks is how many finished tasks the timeline keeps, the latest: the
// earlier ones are counted, not drawn (the page says so), so that the
// timeline's JSON stays well within what the playground loads.
const MaxTasks = 50_000

// IsGoTrace reports whether head, the first bytes of a file, begin a Go
// execution trace ("go 1.NN trace").
func IsGoTrace(head []byte) bool { return bytes.HasPrefix(head, []byte("go 1.")) }

// task is one trace task while reading.
type task struct {
	typ                         string
	begin, run, end             xtrace.Time
	started, ended, beganBefore bool
	queue, name, key, outcome   string
	prio                        int
	weight                      int64
	lane                        int
	waits                       int
}

// Convert reads the execution trace from r and converts it. progress, if
// not nil, is called now and then with the number of events read so far.
// A file that is not a Go execution trace, is cut short or damaged, or
// comes from a Go version the reader does not know gets an error that
// says so.
func Convert(r io.Reader, progress func(events int)) (*Result, error) {
	tr, err := xtrace.NewReader(r)
	if err != nil {
		return nil, explain(err)
	}
	tasks := map[xtrace.TaskID]*task{}
	get := func(id xtrace.TaskID) *task {
		t := tasks[id]
		if t == nil {
			t = &task{weight: 1, beganBefore: true}
			tasks[id] = t
		}
		return t
	}
	goroutines := map[xtrace.GoID]bool{}
	procs := map[xtrace.ProcID]bool{}
	lastG, lastP := xtrace.NoGoroutine, xtrace.NoProc
	regions := 0
	var first, last xtrace.Time
	n := 0
	for {
		ev, err := tr.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, explain(err)
		}
		n++
		if progress != nil && n%65536 == 0 {
			progress(n)
		}
		if n == 1 {
			first = ev.Time()
		}
		last = ev.Time()
		// Runs of events on one goroutine and proc are the rule: a map
		// write only when either changes.
		if g := ev.Goroutine(); g != lastG && g != xtrace.NoGoroutine {
			goroutines[g] = true
			lastG = g
		}
		if p := ev.Proc(); p != lastP && p != xtrace.NoProc {
			procs[p] = true
			lastP = p
		}
		switch ev.Kind() {
		case xtrace.EventTaskBegin:
			k := ev.Task()
			t := get(k.ID)
			t.typ, t.begin, t.beganBefore = k.Type, ev.Time(), false
		case xtrace.EventTaskEnd:
			t := get(ev.Task().ID)
			t.end, t.ended = ev.Time(), true
			if t.typ == "" {
				t.typ = ev.Task().Type
			}
		case xtrace.EventLog:
			l := ev.Log()
			if !strings.HasPrefix(l.Category, "sluice.") {
				continue
			}
			t := get(l.Task)
			switch l.Category {
			case "sluice.queue":
				t.queue = l.Message
			case "sluice.name":
				t.name = l.Message
			case "sluice.key":
				t.key = l.Message
			case "sluice.priority":
				t.prio, _ = strconv.Atoi(l.Message)
			case "sluice.weight":
				t.weight, _ = strconv.ParseInt(l.Message, 10, 64)
			case "sluice.lane":
				t.lane, _ = strconv.Atoi(l.Message)
			case "sluice.outcome":
				t.outcome = l.Message
			}
		case xtrace.EventRegionBegin:
			g := ev.Region()
			switch g.Type {
			case "sluice.run":
				t := get(g.Task)
				if !t.started {
					t.run, t.started = ev.Time(), true
				}
			case "sluice.wait":
				get(g.Task).waits++
			default:
				regions++
			}
		}
	}
	if n == 0 {
		return nil, errors.New("the file holds a Go execution trace header and no events")
	}
	if progress != nil {
		progress(n)
	}
	res, err := build(tasks, last)
	if err != nil {
		return nil, err
	}
	res.Events = n
	res.Summary, res.Omitted = summary(tasks, len(goroutines), len(procs), regions, last.Sub(first))
	return res, nil
}

// explain turns a reader's error into a sentence about the file.
func explain(err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "unsupported") && strings.Contains(msg, "version"):
		return fmt.Errorf("it is a Go execution trace from a Go version the playground cannot read (%s); it reads traces of Go 1.11 to 1.26", msg)
	case errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(msg, "EOF") || strings.Contains(msg, "failed to read full"):
		return fmt.Errorf("the Go execution trace is cut short (%s): was it copied whole?", msg)
	case strings.Contains(msg, "bad file format") || strings.Contains(msg, "header"):
		return fmt.Errorf("it is not a Go execution trace (%s)", msg)
	}
	return fmt.Errorf("the Go execution trace is damaged: %s", msg)
}

// sluiceTask reports whether t is a sluice task the timeline can draw.
func (t *task) sluiceTask() bool {
	return strings.HasPrefix(t.typ, "sluice.") && t.queue != "" && !t.beganBefore
}

// build feeds the sluice tasks' lives, in time order, to a recorder.
func build(tasks map[xtrace.TaskID]*task, last xtrace.Time) (*Result, error) {
	type step struct {
		at   xtrace.Time
		ord  int // ends before starts before enqueues at one time
		id   uint64
		t    *task
		kind core.EventKind
	}
	var ids []xtrace.TaskID
	for id, t := range tasks {
		if t.sluiceTask() {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	var steps []step
	for i, id := range ids {
		t := tasks[id]
		n := uint64(i + 1)
		steps = append(steps, step{t.begin, 2, n, t, core.Enqueued})
		if t.started {
			steps = append(steps, step{t.run, 1, n, t, core.Started})
		}
		if t.ended {
			steps = append(steps, step{t.end, 0, n, t, outcomeKind(t.outcome)})
		}
	}
	slices.SortStableFunc(steps, func(a, b step) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		return cmp.Compare(a.ord, b.ord)
	})
	rec := trace.NewRecorder(trace.Config{Name: "Go execution trace", MaxFinished: MaxTasks, MaxLanes: 1 << 16})
	holders := map[string][]bool{} // a Semaphore's holder numbers in use
	holderOf := map[uint64]int{}
	for _, s := range steps {
		t := s.t
		e := core.Event{Kind: s.kind, Time: time.Unix(0, int64(s.at)), Task: s.id, Name: t.name, Priority: core.Priority(t.prio), Weight: t.weight}
		if t.key != "" {
			e.Key = t.queue + " · " + t.key
		}
		switch s.kind {
		case core.Enqueued:
		case core.Started:
			e.Key = laneKey(t)
			if strings.HasPrefix(t.queue, "Semaphore ") {
				used := holders[t.queue]
				h := slices.Index(used, false)
				if h < 0 {
					h = len(used)
					used = append(used, false)
				}
				used[h] = true
				holders[t.queue] = used
				holderOf[s.id] = h
				e.Key = fmt.Sprintf("%s · holder %d", t.queue, h+1)
			}
			e.Lane = t.lane
		default:
			if h, ok := holderOf[s.id]; ok {
				holders[t.queue][h] = false
				delete(holderOf, s.id)
			}
			if t.outcome == "failed" || t.outcome == "panicked" {
				e.Err = errors.New(t.outcome)
			}
		}
		rec.Observe(e)
	}
	var buf bytes.Buffer
	if err := rec.WriteJSON(&buf); err != nil {
		return nil, err
	}
	return &Result{JSON: buf.Bytes(), Tasks: len(ids)}, nil
}

// laneKey names the lane a task runs on.
func laneKey(t *task) string {
	if t.key != "" {
		return t.queue + " · " + t.key
	}
	return fmt.Sprintf("%s · slot %d", t.queue, t.lane+1)
}

func outcomeKind(s string) core.EventKind {
	switch s {
	case "failed":
		return core.Failed
	case "canceled":
		return core.Canceled
	case "panicked":
		return core.Panicked
	}
	return core.Finished
}

// summary says what the timeline draws of the trace, and what it does not.
func summary(tasks map[xtrace.TaskID]*task, goroutines, procs, regions int, span time.Duration) (drawn, omitted string) {
	queues := map[string]int{}
	others := map[string]int{}
	before, open := 0, 0
	for _, t := range tasks {
		switch {
		case t.sluiceTask():
			queues[t.queue]++
			if !t.ended {
				open++
			}
		case strings.HasPrefix(t.typ, "sluice.") || t.queue != "":
			before++
		case t.typ != "" || !t.beganBefore:
			others[cmp.Or(t.typ, "(untyped)")]++
		default:
			others["(begun before the trace)"]++
		}
	}
	drawn = fmt.Sprintf("A Go execution trace of %v: sluice tasks by queue: %s", span.Round(time.Millisecond), counted(queues))
	if open > 0 {
		drawn += fmt.Sprintf("; %d still open at its end", open)
	}
	drawn += "."
	var parts []string
	if before > 0 {
		parts = append(parts, fmt.Sprintf("%d sluice %s that began before the trace did", before, plural(before, "task", "tasks")))
	}
	parts = append(parts, fmt.Sprintf("the %d %s and %d %s the work ran on", goroutines, plural(goroutines, "goroutine", "goroutines"), procs, plural(procs, "proc", "procs")))
	if len(others) > 0 {
		parts = append(parts, "tasks that are not sluice's: "+counted(others))
	}
	if regions > 0 {
		parts = append(parts, fmt.Sprintf("%d other %s", regions, plural(regions, "region", "regions")))
	}
	return drawn, strings.Join(parts, "; ")
}

// counted lists counts by name, largest first: "a ×3, b ×1", at most 8.
func counted(m map[string]int) string {
	if len(m) == 0 {
		return "(none)"
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.SortFunc(names, func(a, b string) int {
		if c := cmp.Compare(m[b], m[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	var out []string
	for i, k := range names {
		if i == 8 {
			out = append(out, fmt.Sprintf("%d more", len(names)-8))
			break
		}
		out = append(out, fmt.Sprintf("%s ×%d", k, m[k]))
	}
	return strings.Join(out, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
