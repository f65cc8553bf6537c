package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"sluice/core"
)

// The bounds of what ReadJSON reads.
const (
	// MaxJSONSize is the largest input ReadJSON reads, in bytes: twice
	// what WriteJSON writes of 200,000 tasks with names, keys and errors.
	MaxJSONSize = 128 << 20
	// MaxJSONEvents is the most trace events ReadJSON reads.
	MaxJSONEvents = 1 << 20
)

// errTooManyEvents is the error of a trace beyond MaxJSONEvents.
var errTooManyEvents = fmt.Errorf("trace: more than %d events", MaxJSONEvents)

// maxLaneID is the largest lane id read: 2^53-1, exact in any JSON reader.
const maxLaneID = 1<<53 - 1

// ReadJSON reads a trace in the Chrome Trace Event Format, either a JSON
// object with "traceEvents" or a bare JSON array of events (whose closing
// bracket may be missing), and returns a Recorder holding its model.
//
// A trace written by [Recorder.WriteJSON] gives back the model that was
// written, with the Config it was recorded with: its snapshots equal the
// original's, and writing it again gives the same bytes. Any other trace
// is read as tasks: each complete ("X") event, and each begin ("B") / end
// ("E") pair, becomes a task that ran on the lane of its thread (named by
// thread_name metadata), recorded as if observed into a Recorder with the
// default Config, except that it keeps every task and every counter
// sample the trace gives rise to; the counters are derived from the
// tasks; other events and phases are ignored.
//
// ReadJSON reads at most [MaxJSONSize] bytes and [MaxJSONEvents] events,
// and memory in proportion to what it read. It never panics: input that
// is not JSON, has fields of the wrong type or missing, negative durations
// or times beyond the years 1823 to 2116, returns an error prefixed
// "trace:" that says what and where. It blocks until r returns io.EOF or
// an error, or the bounds are reached.
func ReadJSON(r io.Reader) (*Recorder, error) {
	return readJSON(r, nil)
}

// ReadJSONPausing is [ReadJSON] that calls pause between slices of its
// work, every few hundred events or tasks, from the goroutine that
// called it, with the share of the work done, from 0 to 1 (reading r is
// not counted: a caller that reads a file in slices shows that itself);
// pause may block, for as long as it likes (a caller on a single thread,
// a browser's, sleeps there to let the page draw). It reads and returns
// what ReadJSON would.
func ReadJSONPausing(r io.Reader, pause func(done float64)) (*Recorder, error) {
	return readJSON(r, pause)
}

// pauseEvery is how many units of work (events or tasks) a reader does
// between calls of its pause function: a few hundred microseconds' worth
// in WebAssembly, where a unit takes up to a few microseconds.
const pauseEvery = 256

// ParseJSON is [ReadJSONPausing] of a trace already in memory: it reads
// data where it lies, without a copy; pause may be nil. A caller that
// keeps the file (to save it again as it came) holds it once, not twice.
// Data larger than MaxJSONSize is refused, unread.
func ParseJSON(data []byte, pause func(done float64)) (*Recorder, error) {
	if len(data) > MaxJSONSize {
		return nil, errTooLarge
	}
	return parseJSON(data, nil, pause)
}

// ReadAll reads a trace file from r for ParseJSON, as ReadJSON reads
// its input: to its end, into one buffer of the size r tells when it has
// a Len method (as bytes.Reader has), not one that grows by copies. It
// refuses more than MaxJSONSize bytes, unread when r tells its size, with
// an error prefixed "trace:", as it does a failed read.
func ReadAll(r io.Reader) ([]byte, error) {
	data, err := readAll(r)
	switch {
	case err == errTooLarge:
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("trace: reading: %v", err)
	case len(data) > MaxJSONSize:
		return nil, errTooLarge
	}
	return data, nil
}

func readJSON(r io.Reader, pause func(float64)) (*Recorder, error) {
	data, rerr := readAll(r)
	if rerr == errTooLarge {
		return nil, rerr
	}
	return parseJSON(data, rerr, pause)
}

// parseJSON reads data, which a read that failed with rerr returned (its
// error comes after the input's own, as the fast scanner finds it).
func parseJSON(data []byte, rerr error, pause func(float64)) (*Recorder, error) {
	// The fast scanner reads the usual traces; anything it does not take
	// on is read again by encoding/json, which words the errors.
	p := &parser{threads: make(map[threadKey]int32), pause: pause, size: len(data), stageSpan: parseShare}
	serr := p.scan(data)
	switch {
	case serr == errTooManyEvents:
		return nil, serr
	case len(data) > MaxJSONSize:
		return nil, errTooLarge
	case rerr != nil:
		return nil, fmt.Errorf("trace: reading: %v", rerr)
	}
	if serr != nil {
		p = &parser{dec: json.NewDecoder(bytes.NewReader(data)), threads: make(map[threadKey]int32), pause: pause, size: len(data), stageSpan: parseShare}
		if err := p.parse(); err != nil {
			return nil, err
		}
	}
	var rec *Recorder
	var err error
	if p.block != nil {
		rec, err = p.buildOwn()
		if err == nil {
			rec.origin = p.block.Origin
		}
	} else {
		rec, err = p.buildForeign()
		if err == nil {
			rec.origin = 0
		}
	}
	return rec, err
}

// idVal is a pid or tid: a number, or for other tools a string.
type idVal struct {
	n   int64
	s   string
	str bool
}

type threadKey struct{ pid, tid idVal }

// event is a kept trace event, in compact form.
type event struct {
	idx    int32 // position in traceEvents, for errors
	ph     byte
	cat    byte // catRun or catWait events: 'r' or 'w'; else 0
	thread int32
	ts     int64 // nanoseconds
	dur    int64
	name   string
	args   json.RawMessage // for task spans, thread names and lane instants
	span   *spanArgs       // a task span's args, if the scanner decoded them
}

type counterEvent struct {
	idx   int32
	track Track
	ts    int64
	value json.RawMessage
}

type parser struct {
	dec      *json.Decoder
	n        int // events read
	events   []event
	counters []counterEvent
	threads  map[threadKey]int32
	keys     []threadKey // by thread index
	block    *jsonBlock
	hasTrace bool
	// What another tool's trace holds that is not shown: events by
	// phase (0 for a phase of more than one ASCII byte), and counter
	// samples not of Sluice's tracks under 'C'.
	skipped   [128]int
	procNames map[idVal]string // process_name metadata, the first of each pid
	// The earliest and latest times of the trace's events, any phase.
	firstTs, lastTs int64
	seenTs          bool
	pause           func(float64) // called every pauseEvery units of work, if not nil
	work            int           // units of work done
	size            int           // the input's size, in bytes
	// The share of the work the current stage starts at, and its own.
	stageFrom, stageSpan float64
}

// seeTime widens the trace's span to ts.
func (p *parser) seeTime(ts int64) {
	if !p.seenTs {
		p.firstTs, p.lastTs, p.seenTs = ts, ts, true
		return
	}
	p.firstTs, p.lastTs = min(p.firstTs, ts), max(p.lastTs, ts)
}

// The shares of the work: parsing the input, then building the model.
const parseShare = 0.75

// stage starts a stage of the work, from share from, of share span.
func (p *parser) stage(from, span float64) { p.stageFrom, p.stageSpan = from, span }

// tick counts a unit of work, the i-th of the current stage's n, and
// calls p.pause after every pauseEvery.
func (p *parser) tick(i, n int) {
	if p.pause == nil {
		return
	}
	if p.work++; p.work%pauseEvery == 0 {
		p.pause(p.stageFrom + p.stageSpan*float64(i)/float64(max(n, 1)))
	}
}

// rawEvent is a trace event as decoded. Fields that need checking are
// kept raw.
type rawEvent struct {
	Ph   string          `json:"ph"`
	Name string          `json:"name"`
	Cat  string          `json:"cat"`
	Ts   json.RawMessage `json:"ts"`
	Dur  json.RawMessage `json:"dur"`
	Pid  json.RawMessage `json:"pid"`
	Tid  json.RawMessage `json:"tid"`
	Args json.RawMessage `json:"args"`
	span *spanArgs       // Args decoded, by the scanner
}

func (p *parser) parse() error {
	tok, err := p.dec.Token()
	if err != nil {
		return jsonErr("", err)
	}
	switch tok {
	case json.Delim('['):
		p.hasTrace = true
		if err := p.readEvents(true); err != nil {
			return err
		}
	case json.Delim('{'):
		if err := p.readObject(); err != nil {
			return err
		}
	default:
		return errors.New("trace: not a trace: want a JSON object or array")
	}
	if _, err := p.dec.Token(); err != io.EOF {
		return errors.New("trace: unexpected data after the trace")
	}
	return nil
}

func (p *parser) readObject() error {
	for p.dec.More() {
		tok, err := p.dec.Token()
		if err != nil {
			return jsonErr("", err)
		}
		switch tok {
		case "traceEvents":
			tok, err := p.dec.Token()
			if err != nil {
				return jsonErr("traceEvents: ", err)
			}
			if tok != json.Delim('[') {
				return errors.New("trace: traceEvents: want an array")
			}
			p.hasTrace = true
			if err := p.readEvents(false); err != nil {
				return err
			}
		case "metadata":
			var raw json.RawMessage
			if err := p.dec.Decode(&raw); err != nil {
				return jsonErr("metadata: ", err)
			}
			if err := p.metadata(raw); err != nil {
				return err
			}
		default:
			var skip json.RawMessage
			if err := p.dec.Decode(&skip); err != nil {
				return jsonErr("", err)
			}
		}
	}
	if _, err := p.dec.Token(); err != nil { // '}'
		return jsonErr("", err)
	}
	if !p.hasTrace {
		return errors.New("trace: not a trace: no traceEvents")
	}
	return nil
}

// metadata reads a trace's "metadata" value: sluice's block, if any.
func (p *parser) metadata(raw []byte) error {
	var meta struct {
		Sluice json.RawMessage `json:"sluice"`
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) { // other tools' metadata need not be an object
			return jsonErr("metadata: ", err)
		}
	}
	if len(meta.Sluice) > 0 && !bytes.Equal(meta.Sluice, []byte("null")) {
		b := new(jsonBlock)
		if err := json.Unmarshal(meta.Sluice, b); err != nil {
			return jsonErr("metadata: ", err)
		}
		p.block = b
	}
	return nil
}

// readEvents reads the events of the array whose '[' was read, and its
// ']'. A bare array may end without its ']'.
func (p *parser) readEvents(bare bool) error {
	var ev rawEvent
	for p.dec.More() {
		if p.n >= MaxJSONEvents {
			return errTooManyEvents
		}
		ev = rawEvent{}
		if err := p.dec.Decode(&ev); err != nil {
			if bare && (err == io.EOF || err == io.ErrUnexpectedEOF) {
				return nil
			}
			return jsonErr(fmt.Sprintf("event %d: ", p.n), err)
		}
		if err := p.keep(&ev); err != nil {
			return fmt.Errorf("trace: event %d: %w", p.n, err)
		}
		p.n++
		p.tick(int(p.dec.InputOffset()), p.size)
	}
	if _, err := p.dec.Token(); err != nil { // ']'
		if bare && (err == io.EOF || err == io.ErrUnexpectedEOF) {
			return nil
		}
		return jsonErr("", err)
	}
	return nil
}

// jsonErr describes an encoding/json error.
func jsonErr(where string, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("trace: %snot valid JSON at byte %d: %v", where, se.Offset, se)
	case errors.As(err, &te):
		if te.Field == "" {
			return fmt.Errorf("trace: %swant %s, got %s", where, kindName(te), te.Value)
		}
		return fmt.Errorf("trace: %s%s: want %s, got %s", where, te.Field, kindName(te), te.Value)
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return fmt.Errorf("trace: %sunexpected end of input", where)
	}
	return fmt.Errorf("trace: %s%v", where, err)
}

func kindName(te *json.UnmarshalTypeError) string {
	if te.Type == nil {
		return "another type"
	}
	switch te.Type.Kind().String() {
	case "struct", "map":
		return "an object"
	case "slice", "array":
		return "an array"
	case "string":
		return "a string"
	case "int", "int8", "int16", "int32", "int64":
		return "an integer in range"
	case "uint", "uint8", "uint16", "uint32", "uint64":
		return "a non-negative integer in range"
	}
	return te.Type.String()
}

// keep checks ev and keeps what the model may need of it.
func (p *parser) keep(ev *rawEvent) error {
	if ev.Ph == "" {
		return errors.New("missing ph")
	}
	var ph byte
	switch ev.Ph {
	case "X", "B", "E", "i", "I", "C", "M":
		ph = ev.Ph[0]
	default:
		// Other phases are not shown; another tool's trace says so, by
		// phase, and its end is its last event's, whatever the phase.
		if len(ev.Ph) == 1 && ev.Ph[0] < 128 {
			p.skipped[ev.Ph[0]]++
		} else {
			p.skipped[0]++
		}
		if ts, err := micros(ev.Ts); err == nil {
			p.seeTime(ts)
		}
		return nil
	}
	e := event{idx: int32(p.n), ph: ph}
	if ph != 'M' {
		if isNull(ev.Ts) {
			return errors.New("missing ts")
		}
		ts, err := micros(ev.Ts)
		if err != nil {
			return fmt.Errorf("ts: %w", err)
		}
		e.ts = ts
		p.seeTime(ts)
	}
	if ph == 'X' && !isNull(ev.Dur) {
		dur, err := micros(ev.Dur)
		if err != nil {
			return fmt.Errorf("dur: %w", err)
		}
		if dur < 0 {
			return fmt.Errorf("negative dur %s", ev.Dur)
		}
		e.dur = dur
	}
	var k threadKey
	var err error
	if k.pid, err = parseID(ev.Pid); err != nil {
		return fmt.Errorf("pid: %w", err)
	}
	if k.tid, err = parseID(ev.Tid); err != nil {
		return fmt.Errorf("tid: %w", err)
	}
	if ph == 'C' {
		kept := false
		for t, name := range trackNames {
			if name == ev.Name && k.pid == (idVal{n: pidLanes}) {
				p.counters = append(p.counters, counterEvent{idx: e.idx, track: Track(t), ts: e.ts, value: ev.Args})
				kept = true
			}
		}
		if !kept {
			p.skipped['C']++
		}
		return nil
	}
	if ph == 'M' && ev.Name == "process_name" {
		var a struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(ev.Args, &a) == nil && a.Name != "" {
			if p.procNames == nil {
				p.procNames = make(map[idVal]string)
			}
			if _, ok := p.procNames[k.pid]; !ok {
				p.procNames[k.pid] = a.Name
			}
		}
		return nil
	}
	th, ok := p.threads[k]
	if !ok {
		th = int32(len(p.keys))
		p.threads[k] = th
		p.keys = append(p.keys, k)
	}
	e.thread = th
	switch {
	case ph == 'M' && ev.Name != "thread_name":
		return nil
	case ph == 'X' && ev.Cat == catRun:
		e.cat = 'r'
	case ph == 'X' && ev.Cat == catWait:
		e.cat = 'w'
	}
	if ph == 'M' || ph == 'i' || ph == 'I' || e.cat != 0 {
		e.args = ev.Args
	}
	if e.cat != 0 {
		e.span = ev.span
	}
	if ph != 'M' {
		e.name = ev.Name
	}
	p.events = append(p.events, e)
	return nil
}

func isNull(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }

// micros parses a JSON number of microseconds into nanoseconds, exactly
// for decimals with up to three fraction digits and rounded otherwise. The
// result may be any int64; callers check the range of the times it makes.
func micros(raw json.RawMessage) (int64, error) {
	// The errors quote raw, not s, which then needs no copy on the heap.
	s := string(raw)
	if s == "" || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) {
		return 0, fmt.Errorf("want a number, got %.40s", raw)
	}
	// errRange returns the error of a number out of range, made only
	// when needed.
	errRange := func() error { return fmt.Errorf("%.40s out of range", raw) }
	if bytes.IndexByte(raw, 'e') >= 0 || bytes.IndexByte(raw, 'E') >= 0 {
		f, err := strconv.ParseFloat(s, 64)
		f = math.Round(f * 1000)
		if err != nil || math.IsNaN(f) || f >= math.MaxInt64 || f < math.MinInt64 {
			return 0, errRange()
		}
		return int64(f), nil
	}
	neg := s[0] == '-'
	whole, frac, _ := cut(strings.TrimPrefix(s, "-"), '.')
	// Accumulate the magnitude in a uint64: at most 2^63 fits an int64
	// once negated.
	const limit = 1 << 63
	var u uint64
	for i := 0; i < len(whole); i++ {
		if u > (limit-9)/10 {
			return 0, errRange()
		}
		u = u*10 + uint64(whole[i]-'0')
	}
	if u > limit/1000 {
		return 0, errRange()
	}
	u *= 1000
	for i, scale := 0, uint64(100); i < 3 && i < len(frac); i, scale = i+1, scale/10 {
		u += uint64(frac[i]-'0') * scale
	}
	if len(frac) > 3 && frac[3] >= '5' {
		u++
	}
	if neg {
		if u > limit {
			return 0, errRange()
		}
		return int64(-u), nil
	}
	if u >= limit {
		return 0, errRange()
	}
	return int64(u), nil
}

func cut(s string, sep byte) (before, after string, found bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == sep {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// parseID parses a pid or tid: absent, an integer, or a string.
func parseID(raw json.RawMessage) (idVal, error) {
	if isNull(raw) {
		return idVal{}, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return idVal{}, err
		}
		return idVal{s: s, str: true}, nil
	}
	s := string(raw)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return idVal{n: n}, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
		return idVal{n: int64(f)}, nil
	}
	return idVal{}, fmt.Errorf("want an integer or a string, got %.40s", raw)
}

// spanArgs are the args of a task span written by WriteJSON.
type spanArgs struct {
	Task     *uint64       `json:"task"`
	Seq      *uint64       `json:"seq"`
	Lane     *int64        `json:"lane"` // when not the tid: a key's later lane
	Name     string        `json:"name"`
	Priority core.Priority `json:"priority"`
	Weight   int64         `json:"weight"`
	Key      string        `json:"key"`
	State    *string       `json:"state"`
	Error    string        `json:"error"`
}

// taskBuilder gathers a task's spans.
type taskBuilder struct {
	x               rec
	hasRun          bool
	hasWait         bool
	runEnd, waitEnd int64
	waitStart       int64
}

var stateNames = map[string]core.TaskState{
	"pending": core.TaskPending, "running": core.TaskRunning, "succeeded": core.TaskSucceeded,
	"failed": core.TaskFailed, "canceled": core.TaskCanceled, "panicked": core.TaskPanicked,
}

// abs converts a time relative to origin, checking its range.
func abs(origin, rel int64) (int64, error) {
	if (rel > 0 && origin > math.MaxInt64-rel) || (rel < 0 && origin < math.MinInt64-rel) {
		return 0, errors.New("time out of range")
	}
	t := origin + rel
	if t < -maxNano || t >= maxNano {
		return 0, errors.New("time out of range")
	}
	return t, nil
}

// buildOwn rebuilds the model of a trace written by WriteJSON.
func (p *parser) buildOwn() (*Recorder, error) {
	b := p.block
	if b.Version != formatVersion {
		return nil, fmt.Errorf("trace: metadata: unsupported sluice trace version %d", b.Version)
	}
	if b.Origin < -maxNano || b.Origin >= maxNano {
		return nil, errors.New("trace: metadata: origin out of range")
	}
	c := b.Config
	d := &dump{
		cfg: Config{
			Name: c.Name, SlotName: c.SlotName, MaxFinished: c.MaxFinished, MaxOpen: c.MaxOpen, MaxSamples: c.MaxSamples,
			MaxLanes: c.MaxLanes, MaxLog: c.MaxLog, WaitSamples: c.WaitSamples,
			ThroughputWindow: time.Duration(c.ThroughputWindow),
		}.normalized(),
		last: noTime,
		tot: totals{
			submitted: b.Totals.Submitted, succeeded: b.Totals.Succeeded, failed: b.Totals.Failed,
			canceled: b.Totals.Canceled, panicked: b.Totals.Panicked, dropped: b.Totals.Dropped,
			maxRunning: b.Totals.MaxRunning, maxInUse: b.Totals.MaxInUse,
		},
	}
	if b.End != nil {
		t, err := abs(b.Origin, *b.End)
		if err != nil {
			return nil, fmt.Errorf("trace: metadata: end: %w", err)
		}
		d.last = t
	}

	var tasks []*taskBuilder
	var builders []taskBuilder             // tasks' storage, a chunk at a time
	bySeq := make(map[uint64]*taskBuilder) // by args.seq
	lanes := make(map[int64]*laneRec)
	var laneOrder []int64
	lane := func(tid int64) *laneRec {
		l, ok := lanes[tid]
		if !ok {
			l = &laneRec{id: int(tid), created: noTime, evicted: noTime}
			lanes[tid] = l
			laneOrder = append(laneOrder, tid)
		}
		return l
	}
	p.stage(parseShare, (1-parseShare)*0.6)
	for i := range p.events {
		p.tick(i, len(p.events))
		e := &p.events[i]
		k := p.keys[e.thread]
		fail := func(format string, a ...any) error {
			return fmt.Errorf("trace: event %d: "+format, append([]any{e.idx}, a...)...)
		}
		switch {
		case e.cat != 0:
			if isNull(e.args) {
				return nil, fail("missing args")
			}
			var a spanArgs
			if err := p.spanArgs(e, &a); err != nil {
				return nil, jsonErr(fmt.Sprintf("event %d: args: ", e.idx), err)
			}
			if a.Task == nil || *a.Task == 0 {
				return nil, fail("args: missing task")
			}
			if a.Seq == nil {
				return nil, fail("args: missing seq")
			}
			if a.State == nil {
				return nil, fail("args: missing state")
			}
			state, ok := stateNames[*a.State]
			if !ok {
				return nil, fail("args: unknown state %.40q", *a.State)
			}
			start, err := abs(b.Origin, e.ts)
			if err != nil {
				return nil, fail("ts: %v", err)
			}
			end, err := abs(start, e.dur)
			if err != nil {
				return nil, fail("dur: %v", err)
			}
			tb := bySeq[*a.Seq]
			if tb == nil {
				if len(builders) == cap(builders) {
					builders = make([]taskBuilder, 0, 4096)
				}
				builders = append(builders, taskBuilder{x: rec{id: *a.Task, lane: -1, enq: noTime, start: noTime, end: noTime}})
				tb = &builders[len(builders)-1]
				bySeq[*a.Seq] = tb
				tasks = append(tasks, tb)
			}
			if tb.x.id != *a.Task {
				return nil, fail("seq %d is task %d and task %d", *a.Seq, tb.x.id, *a.Task)
			}
			if e.cat == 'r' {
				if k.tid.str || k.tid.n < -1 || k.tid.n > maxLaneID {
					return nil, fail("tid: want a lane number")
				}
				id := int(k.tid.n)
				if a.Lane != nil {
					if *a.Lane < 0 || *a.Lane > maxLaneID {
						return nil, fail("args: lane: want a lane number")
					}
					id = int(*a.Lane)
				}
				switch {
				case !tb.hasRun:
					tb.hasRun = true
					tb.x.start, tb.runEnd, tb.x.lane = start, end, id
				case start == tb.x.start && end == tb.runEnd && id >= 0 && tb.x.lane >= 0 && !slices.Contains(tb.x.lanes, id) && id != tb.x.lane:
					// A holder of several tokens: one run on each.
					if tb.x.lanes == nil {
						tb.x.lanes = []int{tb.x.lane}
					}
					tb.x.lanes = append(tb.x.lanes, id)
				default:
					return nil, fail("task %d runs twice", *a.Task)
				}
			} else {
				if tb.hasWait {
					return nil, fail("task %d waits twice", *a.Task)
				}
				tb.hasWait = true
				tb.waitStart, tb.waitEnd = start, end
			}
			if e.cat == 'r' || !tb.hasRun {
				tb.x.name, tb.x.prio, tb.x.weight, tb.x.key = a.Name, a.Priority, a.Weight, a.Key
				tb.x.state, tb.x.err = state, a.Error
			}
		case e.ph == 'M':
			if k.pid != (idVal{n: pidLanes}) {
				continue
			}
			if k.tid.str || k.tid.n < 0 || k.tid.n > maxLaneID {
				return nil, fail("tid: want a lane number")
			}
			var a struct {
				Name  string  `json:"name"`
				Key   string  `json:"key"`
				Slot  *int    `json:"slot"`
				Lanes []int64 `json:"lanes"` // every lane of a key on this track
			}
			if isNull(e.args) {
				return nil, fail("missing args")
			}
			if err := json.Unmarshal(e.args, &a); err != nil {
				return nil, jsonErr(fmt.Sprintf("event %d: args: ", e.idx), err)
			}
			slot := 0
			if a.Slot != nil {
				slot = *a.Slot
			} else if a.Key != "" {
				slot = -1
			}
			if slot >= 0 && a.Key == "" && a.Name == "slot "+strconv.Itoa(slot) {
				// Written before slots were named from 1, as the page does.
				a.Name = "slot " + strconv.Itoa(slot+1)
			}
			if len(a.Lanes) == 0 {
				a.Lanes = []int64{k.tid.n}
			}
			for _, id := range a.Lanes {
				if id < 0 || id > maxLaneID {
					return nil, fail("args: lanes: want lane numbers")
				}
				l := lane(id)
				l.name, l.key, l.slot = a.Name, a.Key, slot
			}
		case (e.ph == 'i' || e.ph == 'I') && (e.name == nameCreated || e.name == nameEvicted):
			if k.pid != (idVal{n: pidLanes}) {
				continue
			}
			if k.tid.str || k.tid.n < 0 || k.tid.n > maxLaneID {
				return nil, fail("tid: want a lane number")
			}
			t, err := abs(b.Origin, e.ts)
			if err != nil {
				return nil, fail("ts: %v", err)
			}
			var a spanArgs // its lane, when not the tid: a key's later lane
			if !isNull(e.args) && json.Unmarshal(e.args, &a) == nil && a.Lane != nil && *a.Lane >= 0 && *a.Lane <= maxLaneID {
				k.tid.n = *a.Lane
			}
			l := lane(k.tid.n)
			if e.name == nameCreated && l.created == noTime {
				l.created = t
			} else if e.name == nameEvicted && l.evicted == noTime {
				l.evicted = t
			}
		}
	}

	d.fin = make([]rec, 0, len(tasks))
	p.stage(parseShare+(1-parseShare)*0.6, (1-parseShare)*0.3)
	for i, tb := range tasks {
		p.tick(i, len(tasks))
		x := tb.x
		switch {
		case tb.hasRun:
			if x.state == core.TaskPending {
				return nil, fmt.Errorf("trace: task %d: pending, but it ran", x.id)
			}
			x.enq = x.start
			if tb.hasWait {
				if tb.waitStart > x.start {
					return nil, fmt.Errorf("trace: task %d: waits after it starts", x.id)
				}
				x.enq = tb.waitStart
			}
			if x.state.Terminal() {
				x.end = tb.runEnd
			}
		default:
			if x.state != core.TaskPending && x.state != core.TaskCanceled {
				return nil, fmt.Errorf("trace: task %d: %v, but it never ran", x.id, x.state)
			}
			x.enq = tb.waitStart
			if x.state.Terminal() {
				x.end = tb.waitEnd
			}
		}
		if x.state.Terminal() {
			d.fin = append(d.fin, x)
		} else {
			d.open = append(d.open, x)
		}
	}
	slices.Sort(laneOrder)
	for _, id := range laneOrder {
		l := lanes[id]
		if l.evicted != noTime && l.created != noTime && l.evicted < l.created {
			return nil, fmt.Errorf("trace: lane %d: evicted before it was created", id)
		}
		d.lanes = append(d.lanes, *l)
	}
	p.stage(parseShare+(1-parseShare)*0.9, (1-parseShare)*0.05)
	for i, c := range p.counters {
		p.tick(i, len(p.counters))
		var a struct {
			Value *int64 `json:"value"`
		}
		if isNull(c.value) {
			return nil, fmt.Errorf("trace: event %d: missing args", c.idx)
		}
		if err := counterValueOf(c.value, &a.Value); err != nil {
			return nil, jsonErr(fmt.Sprintf("event %d: args: ", c.idx), err)
		}
		if a.Value == nil {
			return nil, fmt.Errorf("trace: event %d: args: missing value", c.idx)
		}
		t, err := abs(b.Origin, c.ts)
		if err != nil {
			return nil, fmt.Errorf("trace: event %d: ts: %v", c.idx, err)
		}
		d.tracks[c.track] = append(d.tracks[c.track], sample{t, *a.Value})
	}
	for i, l := range b.Log {
		t, err := abs(b.Origin, l.T)
		if err != nil {
			return nil, fmt.Errorf("trace: metadata: log %d: %v", i, err)
		}
		d.log = append(d.log, logRec{
			kind: core.EventKind(l.Kind), t: t, task: l.Task, name: l.Name, prio: l.Priority,
			weight: l.Weight, key: l.Key, lane: l.Lane, err: l.Err,
		})
	}
	for _, w := range b.Waits {
		for _, v := range w.Waits {
			if v < 0 || v >= maxNano {
				return nil, fmt.Errorf("trace: metadata: wait %d out of range", v)
			}
		}
		d.waits = append(d.waits, waitDump{prio: w.Priority, waits: w.Waits})
	}
	for _, bk := range b.Throughput {
		if bk[0] < -maxNano || bk[0] >= maxNano || bk[1] < 0 {
			return nil, fmt.Errorf("trace: metadata: throughput %v out of range", bk)
		}
		d.buckets = append(d.buckets, bucket{idx: bk[0], n: uint64(bk[1])})
	}
	p.stage(parseShare+(1-parseShare)*0.95, (1-parseShare)*0.05)
	return restore(d, p.tick), nil
}
