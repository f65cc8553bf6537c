package trace

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"sluice/core"
)

// The layout of a trace written by WriteJSON.
const (
	formatVersion = 1
	pidLanes      = 1 // threads: lanes; also the counters and lane instants
	pidQueue      = 2 // threads: rows of waiting spans
	catRun        = "task"
	catWait       = "wait"
	nameCreated   = "lane created"
	nameEvicted   = "lane evicted"
)

// WriteJSON writes the recorded model to w as a Chrome Trace Event Format
// JSON object, which Perfetto and chrome://tracing open and [ReadJSON]
// reads back into an equal model:
//
//   - process 1 has one thread per lane (tid = Lane.ID, named by a
//     thread_name metadata event as the page names it: "slot 1", "token
//     2", the key) with a complete ("X") event of category "task" for each
//     run, from Started to Ended (a Semaphore holder of several tokens has
//     one on each token's thread); instant ("i") events "lane created" and
//     "lane evicted"; and counter ("C") events named after the tracks
//     ("running", "waiting", "in use", "lanes", "limit"). A key whose lane
//     was evicted and made again keeps one thread, its first lane's: the
//     later lanes' ids are listed in the thread_name's args ("lanes") and
//     given as args.lane on their runs and instants.
//   - process 2 has rows "queue 0", "queue 1", ... with a complete event
//     of category "wait" for each task's wait, from Enqueued to Started
//     (or Ended, or the trace's end if it still waits); a task that
//     started at once has none.
//   - each task event's args hold the task's id, name, priority, weight,
//     key, state and error, and a sequence number pairing the wait and
//     the run of one task; open tasks' events last until the latest event
//     time.
//   - "metadata": {"sluice": {...}} holds what the events do not: the
//     Config, the totals, the log, the wait samples and the throughput
//     counts.
//
// Timestamps are microseconds, with nanosecond fractions, after the
// earliest time in the model, which the metadata records.
//
// WriteJSON copies the model under the Recorder's mutex, then writes
// without holding it; it returns the first error from w. The output is
// deterministic: equal models give equal bytes.
func (r *Recorder) WriteJSON(w io.Writer) error {
	d := r.dump()
	bw := bufio.NewWriterSize(w, 64<<10)
	jw := jsonWriter{w: bw, origin: d.origin()}
	jw.write(d)
	if jw.err != nil {
		return jw.err
	}
	return bw.Flush()
}

// origin returns the earliest time in d, or 0 if it holds none.
func (d *dump) origin() int64 {
	o := d.last
	see := func(t int64) {
		if t != noTime && (o == noTime || t < o) {
			o = t
		}
	}
	for _, xs := range [][]rec{d.fin, d.open} {
		for i := range xs {
			see(xs[i].enq)
		}
	}
	for _, l := range d.lanes {
		see(l.created)
		see(l.evicted)
	}
	for _, tr := range d.tracks {
		if len(tr) > 0 {
			see(tr[0].t)
		}
	}
	for _, l := range d.log {
		see(l.t)
	}
	if o == noTime {
		return 0
	}
	return o
}

type jsonWriter struct {
	w      *bufio.Writer
	buf    []byte
	origin int64
	first  bool
	err    error
}

// event starts a trace event: ph, ts, pid and tid come first, which
// streaming readers that look for ts early prefer.
func (jw *jsonWriter) event(ph string, ts int64, pid, tid int) {
	b := jw.buf[:0]
	if !jw.first {
		b = append(b, ",\n"...)
	}
	jw.first = false
	b = append(b, `{"ph":"`...)
	b = append(b, ph...)
	b = append(b, `","ts":`...)
	b = appendMicros(b, ts)
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(tid), 10)
	jw.buf = b
}

// key appends a member's key, after a comma unless it is the object's
// first member.
func (jw *jsonWriter) key(k string) {
	if jw.buf[len(jw.buf)-1] != '{' {
		jw.buf = append(jw.buf, ',')
	}
	jw.buf = append(jw.buf, '"')
	jw.buf = append(jw.buf, k...)
	jw.buf = append(jw.buf, '"', ':')
}

func (jw *jsonWriter) str(k, v string) {
	jw.key(k)
	jw.buf = appendString(jw.buf, v)
}

func (jw *jsonWriter) int(k string, v int64) {
	jw.key(k)
	jw.buf = strconv.AppendInt(jw.buf, v, 10)
}

// args opens the event's args object; end closes it and the event.
func (jw *jsonWriter) args() { jw.buf = append(jw.buf, `,"args":{`...) }

// end finishes the event and writes it.
func (jw *jsonWriter) end() {
	jw.buf = append(jw.buf, '}', '}')
	if jw.err == nil {
		_, jw.err = jw.w.Write(jw.buf)
	}
}

func (jw *jsonWriter) rel(t int64) int64 { return t - jw.origin }

// meta writes a metadata event whose args are {"name": s}, or
// {"sort_index": n} for the *_sort_index events; more args may follow
// before end.
func (jw *jsonWriter) meta(pid, tid int, name, s string, n int64) {
	jw.event("M", 0, pid, tid)
	jw.str("name", name)
	jw.args()
	if name == "process_name" || name == "thread_name" {
		jw.str("name", s)
	} else {
		jw.int("sort_index", n)
	}
}

func (jw *jsonWriter) write(d *dump) {
	jw.first = true
	if jw.err == nil {
		_, jw.err = jw.w.WriteString("{\"traceEvents\":[\n")
	}
	jw.meta(pidLanes, 0, "process_name", d.cfg.Name, 0)
	jw.end()
	jw.meta(pidLanes, 0, "process_sort_index", "", 0)
	jw.end()
	jw.meta(pidQueue, 0, "process_name", d.cfg.Name+" queue", 0)
	jw.end()
	jw.meta(pidQueue, 0, "process_sort_index", "", 1)
	jw.end()
	tids, later := laneTids(d)
	for _, l := range d.lanes {
		if tids[l.id] != l.id {
			continue // a later lane of a key: on its first lane's track
		}
		jw.meta(pidLanes, l.id, "thread_name", l.name, 0)
		jw.str("key", l.key)
		jw.int("slot", int64(l.slot))
		// Every lane of a key made again, so that a reader makes them too.
		if ids := later[l.id]; len(ids) > 0 {
			jw.key("lanes")
			jw.buf = strconv.AppendInt(append(jw.buf, '['), int64(l.id), 10)
			for _, id := range ids {
				jw.buf = strconv.AppendInt(append(jw.buf, ','), int64(id), 10)
			}
			jw.buf = append(jw.buf, ']')
		}
		jw.end()
		jw.meta(pidLanes, l.id, "thread_sort_index", "", int64(l.id))
		jw.end()
	}

	rows := waitRows(d)
	for row := range rows.n {
		jw.meta(pidQueue, row, "thread_name", "queue "+strconv.Itoa(row), 0)
		jw.end()
		jw.meta(pidQueue, row, "thread_sort_index", "", int64(row))
		jw.end()
	}
	k, seq := 0, uint64(0)
	for _, xs := range [][]rec{d.fin, d.open} {
		for i := range xs {
			x := &xs[i]
			seq++
			end := x.end
			if end == noTime {
				end = d.last
			}
			if x.start == noTime || x.start > x.enq {
				waitEnd := x.start
				if waitEnd == noTime {
					waitEnd = end
				}
				jw.span(x, seq, catWait, pidQueue, rows.row[k], rows.row[k], x.enq, waitEnd)
				k++
			}
			switch {
			case x.start == noTime:
			case x.lanes != nil:
				// A holder of several tokens: a slice on each token's track.
				for _, id := range x.lanes {
					jw.span(x, seq, catRun, pidLanes, tids.of(id), id, x.start, end)
				}
			case x.lane >= 0:
				jw.span(x, seq, catRun, pidLanes, tids.of(x.lane), x.lane, x.start, end)
			default:
				jw.span(x, seq, catRun, pidLanes, -1, -1, x.start, end)
			}
		}
	}
	for _, l := range d.lanes {
		for _, in := range []struct {
			t    int64
			name string
		}{{l.created, nameCreated}, {l.evicted, nameEvicted}} {
			if in.t == noTime {
				continue
			}
			jw.event("i", jw.rel(in.t), pidLanes, tids[l.id])
			jw.str("name", in.name)
			jw.str("s", "t")
			jw.args()
			jw.str("key", l.key)
			if tids[l.id] != l.id {
				jw.int("lane", int64(l.id))
			}
			jw.end()
		}
	}
	for k, tr := range d.tracks {
		for _, s := range tr {
			jw.event("C", jw.rel(s.t), pidLanes, 0)
			jw.str("name", Track(k).String())
			jw.args()
			jw.int("value", s.v)
			jw.end()
		}
	}
	if jw.err != nil {
		return
	}
	var meta bytes.Buffer
	enc := json.NewEncoder(&meta)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(jw.block(d)); err != nil {
		jw.err = err
		return
	}
	_, jw.err = jw.w.WriteString("\n],\n\"metadata\":{\"sluice\":")
	if jw.err == nil {
		_, jw.err = jw.w.Write(bytes.TrimSpace(meta.Bytes()))
	}
	if jw.err == nil {
		_, jw.err = jw.w.WriteString("}}\n")
	}
}

// laneTids returns the thread id of each lane: its own id, but for the
// later lanes of a key (made again after an eviction), which go on the
// track of the key's first lane, so that a key is one track. later lists
// those later lanes, in order, by the first lane's id.
func laneTids(d *dump) (tids tidMap, later map[int][]int) {
	tids = make(tidMap, len(d.lanes))
	later = make(map[int][]int)
	first := make(map[string]int)
	for _, l := range d.lanes {
		tids[l.id] = l.id
		if l.slot == -1 && l.name == l.key { // as recorded: lanes alike but for their times
			if id, ok := first[l.key]; ok {
				tids[l.id] = id
				later[id] = append(later[id], l.id)
			} else {
				first[l.key] = l.id
			}
		}
	}
	return tids, later
}

// tidMap maps lane ids to thread ids.
type tidMap map[int]int

// of returns lane id's thread id; a lane not in the map has its own.
func (m tidMap) of(id int) int {
	if tid, ok := m[id]; ok {
		return tid
	}
	return id
}

// span writes a complete event for x from start to end on thread tid, for
// its lane lane (an arg when it is not tid). seq numbers the tasks of the
// trace from 1, pairing a task's wait and run: task ids need not be unique.
func (jw *jsonWriter) span(x *rec, seq uint64, cat string, pid, tid, lane int, start, end int64) {
	jw.event("X", jw.rel(start), pid, tid)
	jw.buf = append(jw.buf, `,"dur":`...)
	jw.buf = appendMicros(jw.buf, end-start)
	if x.name != "" {
		jw.str("name", x.name)
	} else {
		jw.key("name")
		jw.buf = append(jw.buf, `"task `...)
		jw.buf = strconv.AppendUint(jw.buf, x.id, 10)
		jw.buf = append(jw.buf, '"')
	}
	jw.str("cat", cat)
	jw.args()
	jw.key("task")
	jw.buf = strconv.AppendUint(jw.buf, x.id, 10)
	jw.key("seq")
	jw.buf = strconv.AppendUint(jw.buf, seq, 10)
	if lane != tid {
		jw.int("lane", int64(lane))
	}
	if x.name != "" {
		jw.str("name", x.name)
	}
	jw.int("priority", int64(x.prio))
	jw.int("weight", x.weight)
	if x.key != "" {
		jw.str("key", x.key)
	}
	jw.str("state", x.state.String())
	if x.err != "" {
		jw.str("error", x.err)
	}
	jw.end()
}

// rowAssignment places the waiting spans on rows so that no two on a row
// overlap: row[k] is the row of the k-th waiting span in writing order.
type rowAssignment struct {
	row []int
	n   int
}

// waitRows assigns each waiting span, in order of start, the lowest row
// free at its start.
func waitRows(d *dump) rowAssignment {
	type span struct{ start, end int64 }
	var spans []span
	for _, xs := range [][]rec{d.fin, d.open} {
		for i := range xs {
			x := &xs[i]
			if x.start != noTime && x.start <= x.enq {
				continue
			}
			end := x.start
			if end == noTime {
				end = x.end
			}
			if end == noTime {
				end = d.last
			}
			spans = append(spans, span{x.enq, end})
		}
	}
	order := make([]int, len(spans))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmpInt(spans[a].start, spans[b].start) })
	ra := rowAssignment{row: make([]int, len(spans))}
	var busy busyHeap // rows in use, by end
	var free intHeap  // rows free, lowest first
	for _, i := range order {
		s := spans[i]
		for len(busy) > 0 && busy[0].end <= s.start {
			heap.Push(&free, heap.Pop(&busy).(busyRow).row)
		}
		row := ra.n
		if len(free) > 0 {
			row = heap.Pop(&free).(int)
		} else {
			ra.n++
		}
		ra.row[i] = row
		heap.Push(&busy, busyRow{s.end, row})
	}
	return ra
}

type busyRow struct {
	end int64
	row int
}

type busyHeap []busyRow

func (h busyHeap) Len() int { return len(h) }
func (h busyHeap) Less(i, j int) bool {
	return h[i].end < h[j].end || h[i].end == h[j].end && h[i].row < h[j].row
}
func (h busyHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *busyHeap) Push(x any)   { *h = append(*h, x.(busyRow)) }
func (h *busyHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// appendMicros appends ns nanoseconds as a JSON number of microseconds,
// exactly: an integer, or a decimal with up to three fraction digits.
func appendMicros(b []byte, ns int64) []byte {
	u := uint64(ns)
	if ns < 0 {
		b = append(b, '-')
		u = -u
	}
	b = strconv.AppendUint(b, u/1000, 10)
	if f := u % 1000; f != 0 {
		b = append(b, '.', byte('0'+f/100), byte('0'+f/10%10), byte('0'+f%10))
		for b[len(b)-1] == '0' {
			b = b[:len(b)-1]
		}
	}
	return b
}

// appendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD,
// as encoding/json reads it, so that what is read back writes the same.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = utf8.AppendRune(b, utf8.RuneError)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// jsonBlock is the "sluice" metadata of a trace: the part of the model the
// trace events do not carry. Times are nanoseconds after Origin.
type jsonBlock struct {
	Version    int         `json:"version"`
	Origin     int64       `json:"origin"` // Unix nanoseconds of ts 0
	End        *int64      `json:"end,omitempty"`
	Config     jsonConfig  `json:"config"`
	Totals     jsonTotals  `json:"totals"`
	Waits      []jsonWaits `json:"waits,omitempty"`
	Throughput [][2]int64  `json:"throughput,omitempty"` // [step index, count]
	Log        []jsonEntry `json:"log,omitempty"`
}

type jsonConfig struct {
	Name             string `json:"name"`
	SlotName         string `json:"slotName,omitempty"` // omitted when "slot"
	MaxFinished      int    `json:"maxFinished"`
	MaxOpen          int    `json:"maxOpen"`
	MaxSamples       int    `json:"maxSamples"`
	MaxLanes         int    `json:"maxLanes"`
	MaxLog           int    `json:"maxLog"`
	WaitSamples      int    `json:"waitSamples"`
	ThroughputWindow int64  `json:"throughputWindow"` // nanoseconds
}

type jsonTotals struct {
	Submitted  uint64 `json:"submitted"`
	Succeeded  uint64 `json:"succeeded"`
	Failed     uint64 `json:"failed"`
	Canceled   uint64 `json:"canceled"`
	Panicked   uint64 `json:"panicked"`
	Dropped    uint64 `json:"dropped"`
	MaxRunning int    `json:"maxRunning"`
	MaxInUse   int64  `json:"maxInUse"`
}

type jsonWaits struct {
	Priority core.Priority `json:"priority"`
	Waits    []int64       `json:"waits"` // nanoseconds, oldest first
}

type jsonEntry struct {
	Kind     uint8         `json:"kind"` // core.EventKind
	T        int64         `json:"t"`
	Task     uint64        `json:"task,omitempty"`
	Name     string        `json:"name,omitempty"`
	Priority core.Priority `json:"priority,omitempty"`
	Weight   int64         `json:"weight,omitempty"`
	Key      string        `json:"key,omitempty"`
	Lane     int           `json:"lane,omitempty"`
	Err      string        `json:"err,omitempty"`
}

func (jw *jsonWriter) block(d *dump) *jsonBlock {
	// encoding/json writes invalid UTF-8 as the escape \ufffd but a valid
	// U+FFFD as itself: make them one, as appendString does.
	valid := func(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
	c := d.cfg
	c.Name = valid(c.Name)
	slotName := valid(c.SlotName)
	if slotName == "slot" {
		slotName = ""
	}
	b := &jsonBlock{
		Version: formatVersion,
		Origin:  jw.origin,
		Config: jsonConfig{
			Name: c.Name, SlotName: slotName, MaxFinished: c.MaxFinished, MaxOpen: c.MaxOpen, MaxSamples: c.MaxSamples,
			MaxLanes: c.MaxLanes, MaxLog: c.MaxLog, WaitSamples: c.WaitSamples,
			ThroughputWindow: int64(c.ThroughputWindow),
		},
		Totals: jsonTotals{
			Submitted: d.tot.submitted, Succeeded: d.tot.succeeded, Failed: d.tot.failed,
			Canceled: d.tot.canceled, Panicked: d.tot.panicked, Dropped: d.tot.dropped,
			MaxRunning: d.tot.maxRunning, MaxInUse: d.tot.maxInUse,
		},
	}
	if d.last != noTime {
		end := jw.rel(d.last)
		b.End = &end
	}
	for _, w := range d.waits {
		b.Waits = append(b.Waits, jsonWaits{Priority: w.prio, Waits: w.waits})
	}
	for _, bk := range d.buckets {
		b.Throughput = append(b.Throughput, [2]int64{bk.idx, int64(bk.n)})
	}
	for _, l := range d.log {
		b.Log = append(b.Log, jsonEntry{
			Kind: uint8(l.kind), T: jw.rel(l.t), Task: l.task, Name: valid(l.name), Priority: l.prio,
			Weight: l.weight, Key: valid(l.key), Lane: l.lane, Err: valid(l.err),
		})
	}
	return b
}
