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
	"sluice/wasm/gotrace/golanes"
)

// Result is a converted trace.
type Result struct {
	JSON    []byte // the timeline model as Chrome Trace Event JSON (trace.ReadJSON reads it)
	Summary string // what the timeline draws: the trace's span and its sluice tasks by queue
	Omitted string // what the trace holds that the timeline does not draw; "" if nothing
	Tasks   int    // sluice tasks on the timeline
	Events  int    // events read from the trace
	// Lanes are the goroutines that ran the timeline's tasks and the
	// procs they ran on, drawn below the tasks' lanes.
	Lanes golanes.Lanes
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
	begin, run, end             int64 // nanoseconds, the trace's clock
	started, ended, beganBefore bool
	queue, name, key, outcome   string
	prio                        int
	weight                      int64
	lane                        int
	waits                       int
	g                           uint64 // the goroutine its run region began on; 0 if none was seen
	runEnd                      int64  // when its run region ended; 0 if no end was seen
}

// goRun is a stretch of time a goroutine ran on a proc: from a start (or
// a return from a system call) to a stop, block, system call or exit.
type goRun struct {
	g          uint64
	p          int64 // -1 if the proc is not known
	start, end int64
}

// reading is what a reader of the trace gathers for the timeline.
type reading struct {
	tasks       map[uint64]*task
	goroutines  int   // goroutines that ran (in runs)
	procs       int   // procs they ran on
	regions     int   // regions that are not sluice's
	first, last int64 // the times of the first and last events
	events      int   // events read
	runs        []goRun
	// Of the goroutine and proc lanes: the goroutines that ran the tasks
	// drawn, and the runs left out beyond MaxRuns.
	laneGoroutines, runsCut int
}

func (rd *reading) task(id uint64) *task {
	t := rd.tasks[id]
	if t == nil {
		t = &task{weight: 1, beganBefore: true}
		rd.tasks[id] = t
	}
	return t
}

// log records a sluice log of task id.
func (rd *reading) log(id uint64, category, message []byte, intern func([]byte) string) {
	t := rd.task(id)
	switch string(category) {
	case "sluice.queue":
		t.queue = intern(message)
	case "sluice.name":
		t.name = intern(message)
	case "sluice.key":
		t.key = intern(message)
	case "sluice.priority":
		t.prio = atoi(message)
	case "sluice.weight":
		t.weight = int64(atoi(message))
	case "sluice.lane":
		t.lane = atoi(message)
	case "sluice.outcome":
		t.outcome = intern(message)
	}
}

// region records the beginning of a region of type typ in task id at ts,
// on goroutine g.
func (rd *reading) region(id uint64, typ []byte, ts int64, g uint64) {
	switch string(typ) {
	case "sluice.run":
		// A task runs once: its first run region is its start.
		if t := rd.task(id); !t.started || ts < t.run {
			t.run, t.started, t.g = ts, true, g
		}
	case "sluice.wait":
		rd.task(id).waits++
	default:
		rd.regions++
	}
}

// regionEnd records the end of a region of type typ in task id at ts.
func (rd *reading) regionEnd(id uint64, typ []byte, ts int64) {
	if string(typ) == "sluice.run" {
		if t := rd.task(id); t.runEnd == 0 {
			t.runEnd = ts
		}
	}
}

// countRan counts the goroutines and procs of the runs read: the
// goroutines that ran and the procs they ran on.
func (rd *reading) countRan() {
	gs := make(map[uint64]struct{})
	var ps []int64
	for _, r := range rd.runs {
		gs[r.g] = struct{}{}
		if r.p >= 0 && !slices.Contains(ps, r.p) {
			ps = append(ps, r.p)
		}
	}
	rd.goroutines, rd.procs = len(gs), len(ps)
}

// sortRuns puts runs in order of start, then goroutine.
func sortRuns(runs []goRun) {
	slices.SortFunc(runs, func(a, b goRun) int {
		if c := cmp.Compare(a.start, b.start); c != 0 {
			return c
		}
		return cmp.Compare(a.g, b.g)
	})
}

// atoi parses a decimal integer, with an optional sign; 0 if b is not one.
func atoi(b []byte) int {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		return -n
	}
	return n
}

// Convert reads the execution trace from r and converts it. progress, if
// not nil, is called now and then with the number of events read so far.
// A file that is not a Go execution trace, is cut short or damaged, or
// comes from a Go version the reader does not know gets an error that
// says so.
//
// A trace of Go 1.22 or later is read by a reader of this package that
// decodes only the events the timeline needs (about ten times faster than
// golang.org/x/exp/trace, which orders and checks every event); a trace
// it does not take on (an older format, a version it does not know, a
// batch it cannot decode) is read again with golang.org/x/exp/trace,
// which also words the errors.
func Convert(r io.Reader, progress func(events int)) (*Result, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return ConvertBytes(data, progress)
}

// ConvertBytes is [Convert] of a trace held in data, which it does not
// change or keep.
func ConvertBytes(data []byte, progress func(events int)) (*Result, error) {
	rd, err := readFast(data, progress)
	if err != nil {
		rd, err = readExact(bytes.NewReader(data), progress)
		if err != nil {
			return nil, err
		}
	}
	if rd.events == 0 {
		return nil, errors.New("the file holds a Go execution trace header and no events")
	}
	if progress != nil {
		progress(rd.events)
	}
	res, err := build(rd)
	if err != nil {
		return nil, err
	}
	res.Events = rd.events
	res.Summary, res.Omitted = summary(rd, res.Lanes, time.Duration(rd.last-rd.first))
	return res, nil
}

// readExact reads a trace with golang.org/x/exp/trace.
func readExact(r io.Reader, progress func(events int)) (*reading, error) {
	tr, err := xtrace.NewReader(r)
	if err != nil {
		return nil, explain(err)
	}
	rd := &reading{tasks: map[uint64]*task{}}
	// The goroutines running now: when each began to, and on which proc.
	type running struct {
		p     int64
		start int64
	}
	runningNow := map[xtrace.GoID]running{}
	intern := func(b []byte) string { return string(b) }
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
			rd.first = int64(ev.Time())
		}
		rd.last = int64(ev.Time())
		switch ev.Kind() {
		case xtrace.EventTaskBegin:
			k := ev.Task()
			t := rd.task(uint64(k.ID))
			t.typ, t.begin, t.beganBefore = k.Type, int64(ev.Time()), false
		case xtrace.EventTaskEnd:
			t := rd.task(uint64(ev.Task().ID))
			t.end, t.ended = int64(ev.Time()), true
			if t.typ == "" {
				t.typ = ev.Task().Type
			}
		case xtrace.EventLog:
			l := ev.Log()
			if strings.HasPrefix(l.Category, "sluice.") {
				rd.log(uint64(l.Task), []byte(l.Category), []byte(l.Message), intern)
			}
		case xtrace.EventRegionBegin:
			g := ev.Region()
			rd.region(uint64(g.Task), []byte(g.Type), int64(ev.Time()), uint64(max(ev.Goroutine(), 0)))
		case xtrace.EventRegionEnd:
			g := ev.Region()
			rd.regionEnd(uint64(g.Task), []byte(g.Type), int64(ev.Time()))
		case xtrace.EventStateTransition:
			st := ev.StateTransition()
			if st.Resource.Kind != xtrace.ResourceGoroutine {
				break
			}
			g := st.Resource.Goroutine()
			_, to := st.Goroutine()
			r, ok := runningNow[g]
			if ok && to != xtrace.GoRunning {
				rd.runs = append(rd.runs, goRun{g: uint64(g), p: r.p, start: r.start, end: int64(ev.Time())})
				delete(runningNow, g)
			}
			if !ok && to == xtrace.GoRunning {
				p := int64(ev.Proc())
				if ev.Proc() == xtrace.NoProc {
					p = -1
				}
				runningNow[g] = running{p: p, start: int64(ev.Time())}
			}
		}
	}
	for g, r := range runningNow {
		rd.runs = append(rd.runs, goRun{g: uint64(g), p: r.p, start: r.start, end: rd.last})
	}
	sortRuns(rd.runs)
	rd.events = n
	rd.countRan()
	return rd, nil
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
func build(rd *reading) (*Result, error) {
	tasks := rd.tasks
	// A step is one event of a task's life: its time, then its task's
	// number (from 1, in the order of the trace's task ids) shifted left
	// by two over its order at one time (ends before starts before
	// enqueues), so that the sort compares two integers.
	type step struct {
		at  int64
		key uint64
	}
	const (
		ordEnd = iota
		ordStart
		ordEnqueue
	)
	var ids []uint64
	for id, t := range tasks {
		if t.sluiceTask() {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	byNum := make([]*task, len(ids)+1)
	steps := make([]step, 0, 3*len(ids))
	for i, id := range ids {
		t := tasks[id]
		n := uint64(i + 1)
		byNum[n] = t
		steps = append(steps, step{t.begin, n<<2 | ordEnqueue})
		if t.started {
			steps = append(steps, step{t.run, n<<2 | ordStart})
		}
		if t.ended {
			steps = append(steps, step{t.end, n<<2 | ordEnd})
		}
	}
	slices.SortFunc(steps, func(a, b step) int {
		if a.at != b.at {
			return cmp.Compare(a.at, b.at)
		}
		if oa, ob := a.key&3, b.key&3; oa != ob {
			return cmp.Compare(oa, ob)
		}
		return cmp.Compare(a.key, b.key)
	})
	rec := trace.NewRecorder(trace.Config{Name: "Go execution trace", MaxFinished: MaxTasks, MaxLanes: 1 << 16})
	holders := map[string][]bool{} // a Semaphore's holder numbers in use
	holderOf := map[uint64]int{}
	// Lane names, made once each: most tasks share a few lanes.
	type laneID struct {
		queue, key, what string
		n                int
	}
	names := map[laneID]string{}
	name := func(queue, key, what string, n int) string {
		id := laneID{queue, key, what, n}
		s, ok := names[id]
		if !ok {
			if key != "" {
				s = queue + " · " + key
			} else {
				s = queue + " · " + what + " " + strconv.Itoa(n)
			}
			names[id] = s
		}
		return s
	}
	for _, st := range steps {
		num := st.key >> 2
		t := byNum[num]
		var kind core.EventKind
		switch st.key & 3 {
		case ordEnqueue:
			kind = core.Enqueued
		case ordStart:
			kind = core.Started
		default:
			kind = outcomeKind(t.outcome)
		}
		e := core.Event{Kind: kind, Time: time.Unix(0, st.at), Task: num, Name: t.name, Priority: core.Priority(t.prio), Weight: t.weight}
		if t.key != "" {
			e.Key = name(t.queue, t.key, "", 0)
		}
		switch kind {
		case core.Enqueued:
		case core.Started:
			e.Key = name(t.queue, t.key, "slot", t.lane+1)
			if strings.HasPrefix(t.queue, "Semaphore ") {
				used := holders[t.queue]
				h := slices.Index(used, false)
				if h < 0 {
					h = len(used)
					used = append(used, false)
				}
				used[h] = true
				holders[t.queue] = used
				holderOf[num] = h
				e.Key = name(t.queue, "", "holder", h+1)
			}
			e.Lane = t.lane
		default:
			if h, ok := holderOf[num]; ok {
				holders[t.queue][h] = false
				delete(holderOf, num)
			}
			if t.outcome == "failed" || t.outcome == "panicked" {
				e.Err = errors.New(t.outcome)
			}
		}
		rec.Observe(e)
	}
	// About 470 bytes a task: grown once, not by copies of 20 MB.
	var buf bytes.Buffer
	buf.Grow(min(len(ids), MaxTasks)*480 + 64<<10)
	if err := rec.WriteJSON(&buf); err != nil {
		return nil, err
	}
	// The tasks the recorder kept: the latest MaxTasks to end, and the
	// open ones.
	drawn := slices.Clone(byNum)
	var ended []uint64
	for n, t := range byNum {
		if t != nil && t.ended {
			ended = append(ended, uint64(n))
		}
	}
	if len(ended) > MaxTasks {
		slices.SortStableFunc(ended, func(a, b uint64) int { return cmp.Compare(byNum[a].end, byNum[b].end) })
		for _, n := range ended[:len(ended)-MaxTasks] {
			drawn[n] = nil
		}
	}
	res := &Result{JSON: buf.Bytes(), Tasks: len(ids)}
	res.Lanes, rd.laneGoroutines, rd.runsCut = goLanes(rd.runs, drawn, rd.last)
	return res, nil
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
func summary(rd *reading, lanes golanes.Lanes, span time.Duration) (drawn, omitted string) {
	tasks, goroutines, procs, regions := rd.tasks, rd.goroutines, rd.procs, rd.regions
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
	laneProcs := 0
	for _, n := range lanes.Names {
		if strings.HasPrefix(n, "proc ") {
			laneProcs++
		}
	}
	g := rd.laneGoroutines
	if g > 0 {
		rows := len(lanes.Names) - laneProcs
		drawn += fmt.Sprintf(" Below the queues, the %d %s that ran them", g, plural(g, "goroutine", "goroutines"))
		if rows != g {
			drawn += fmt.Sprintf(" (on %d %s, each keeping one from its first sluice task to its last)", rows, plural(rows, "row", "rows"))
		}
		drawn += fmt.Sprintf(" and the %d %s they ran on: a bar per run, in its task's colour, grey outside any task.", laneProcs, plural(laneProcs, "proc", "procs"))
	}
	var parts []string
	if before > 0 {
		parts = append(parts, fmt.Sprintf("%d sluice %s that began before the trace did", before, plural(before, "task", "tasks")))
	}
	if other := goroutines - g; g > 0 && other > 0 {
		parts = append(parts, fmt.Sprintf("lanes for the %d %s that ran no sluice task (%s runs are on the procs' lanes)", other, plural(other, "goroutine", "goroutines"), plural(other, "its", "their")))
	} else if g == 0 {
		parts = append(parts, fmt.Sprintf("the %d %s and %d %s the work ran on", goroutines, plural(goroutines, "goroutine", "goroutines"), procs, plural(procs, "proc", "procs")))
	}
	if rd.runsCut > 0 {
		parts = append(parts, fmt.Sprintf("the earliest %d runs of goroutines (their lanes keep the latest %d)", rd.runsCut, MaxRuns))
	}
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
