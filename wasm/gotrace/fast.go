package gotrace

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The fast reader: a decoder of the Go 1.22+ execution trace format that
// reads only what the timeline needs, in the order of the file.
//
// A trace is a header ("go 1.NN trace\x00\x00\x00") and batches: each
// begins with a batch event (its generation, thread, base timestamp and
// size) and holds either timed events of one thread (a type byte, then a
// timestamp delta and arguments, all unsigned varints, their count fixed
// by the type), or a generation's strings, stacks, CPU samples or clock
// frequency. Events name strings by their id in their generation's string
// table, which the runtime writes at the generation's end: the reader
// indexes every batch first, then decodes the event batches.
//
// golang.org/x/exp/trace also orders the events of all threads into one
// stream and checks every state transition, which is most of its cost; the
// timeline needs neither: tasks are put in time order afterwards, and a
// task's fields come from its own events. A trace this reader cannot
// decode, for any reason, is read again by x/exp/trace, so that a damaged
// file gets its words.

// The event types of the format (golang.org/x/exp/trace's tracev2).
const (
	evEventBatch        = 1
	evStacks            = 2
	evStrings           = 4
	evString            = 5
	evCPUSamples        = 6
	evFrequency         = 8
	evProcStart         = 10
	evProcStop          = 11
	evProcStatus        = 13
	evGoCreateSyscall   = 15
	evGoStart           = 16
	evGoDestroy         = 17
	evGoDestroySyscall  = 18
	evGoStop            = 19
	evGoBlock           = 20
	evGoSyscallBegin    = 22
	evGoSyscallEnd      = 23
	evGoSyscallEndBlock = 24
	evGoStatus          = 25
	evUserTaskBegin     = 40
	evUserTaskEnd       = 41
	evUserRegionBegin   = 42
	evUserRegionEnd     = 43
	evUserLog           = 44
	evGoSwitch          = 45
	evGoSwitchDestroy   = 46
	evGoStatusStack     = 48
	evExperimentalBatch = 49
	evSync              = 50
	evEndOfGeneration   = 52
)

// timedArgs is the count of varints after the type byte of each timed
// event (its timestamp delta included), by type; 0 for a type that is not
// a timed event.
var timedArgs = [...]uint8{
	9: 3, 10: 3, 11: 1, 12: 4, 13: 3, // ProcsChange, ProcStart, ProcStop, ProcSteal, ProcStatus
	14: 4, 15: 2, 16: 3, 17: 1, 18: 1, // GoCreate, GoCreateSyscall, GoStart, GoDestroy, GoDestroySyscall
	19: 3, 20: 3, 21: 4, 22: 3, 23: 1, 24: 1, 25: 4, // GoStop, GoBlock, GoUnblock, GoSyscallBegin, GoSyscallEnd, GoSyscallEndBlocked, GoStatus
	26: 3, 27: 1, // STWBegin, STWEnd
	28: 2, 29: 3, 30: 2, 31: 2, 32: 2, 33: 3, 34: 2, 35: 2, 36: 1, 37: 2, 38: 2, // GC
	39: 2, 40: 5, 41: 3, 42: 4, 43: 4, 44: 5, // GoLabel, UserTaskBegin, UserTaskEnd, UserRegionBegin, UserRegionEnd, UserLog
	45: 3, 46: 3, 47: 4, 48: 5, // Go 1.23: GoSwitch, GoSwitchDestroy, GoCreateBlocked, GoStatusStack
}

// Goroutine and proc statuses of GoStatus and ProcStatus events.
const (
	goRunning   = 2
	goSyscall   = 3
	procRunning = 1
	procSyscall = 3
)

var errFast = errors.New("not a trace the fast reader decodes")

// fastBatch is a batch of timed events, indexed.
type fastBatch struct {
	gen  int    // index into the generations
	m    uint64 // the thread whose events it holds
	ts   uint64
	data []byte
}

// thread is what the fast reader follows of one thread (an M): the proc
// it holds and the goroutine it runs, across its batches.
type thread struct {
	p       int64  // -1 while it holds none
	g       uint64 // the goroutine on it, running or in a system call; 0 if none
	running bool   // g runs (is not in a system call) since start
	start   int64
}

// stop ends the run of the thread's goroutine, if it runs, at ts.
func (m *thread) stop(rd *reading, ts int64) {
	if m.running {
		rd.runs = append(rd.runs, goRun{g: m.g, p: m.p, start: m.start, end: ts})
		m.running = false
	}
}

// run makes g the thread's running goroutine from ts, unless it runs
// already.
func (m *thread) run(rd *reading, g uint64, ts int64) {
	if m.running && m.g == g {
		return
	}
	m.stop(rd, ts)
	m.g, m.running, m.start = g, true, ts
}

// fastGen is one generation's string table and clock.
type fastGen struct {
	strings [][]byte // by id
	freq    float64  // nanoseconds per timestamp unit
	minTs   uint64   // the earliest batch's timestamp: the trace's time as the generation begins
}

// readFast reads a Go 1.22+ trace in data; any error means "read it with
// x/exp/trace instead".
func readFast(data []byte, progress func(events int)) (*reading, error) {
	ver, ok := headerVersion(data)
	if !ok {
		return nil, errFast
	}
	maxType := 44
	if ver >= 23 {
		maxType = 48
	}
	rest := data[16:]
	var batches []fastBatch
	var gens []*fastGen
	gen, genNum, ended := (*fastGen)(nil), uint64(0), true
	for len(rest) > 0 {
		typ := rest[0]
		rest = rest[1:]
		if typ == evEndOfGeneration && ver >= 26 {
			gen, ended = nil, true
			continue
		}
		if typ == evExperimentalBatch && ver >= 23 {
			if len(rest) == 0 {
				return nil, errFast
			}
			rest = rest[1:] // the experiment
		} else if typ != evEventBatch {
			return nil, errFast
		}
		var hdr [4]uint64 // generation, thread, timestamp, size
		for i := range hdr {
			v, n := binary.Uvarint(rest)
			if n <= 0 {
				return nil, errFast
			}
			hdr[i], rest = v, rest[n:]
		}
		if hdr[3] > uint64(len(rest)) || hdr[0] == 0 {
			return nil, errFast
		}
		body := rest[:hdr[3]]
		rest = rest[hdr[3]:]
		if gen == nil || hdr[0] != genNum {
			if gen != nil && ver >= 26 {
				return nil, errFast // generations interleaved
			}
			gen, genNum, ended = &fastGen{}, hdr[0], ver < 26
			gens = append(gens, gen)
		}
		if gen.minTs == 0 || hdr[2] < gen.minTs {
			gen.minTs = hdr[2]
		}
		if typ == evExperimentalBatch || len(body) == 0 {
			continue
		}
		switch {
		case body[0] == evStrings:
			if err := gen.addStrings(body[1:]); err != nil {
				return nil, err
			}
		case body[0] == evStacks || body[0] == evCPUSamples:
		case ver < 25 && body[0] == evFrequency, ver >= 25 && body[0] == evSync:
			if err := gen.setFreq(body, ver); err != nil {
				return nil, err
			}
		default:
			batches = append(batches, fastBatch{gen: len(gens) - 1, m: hdr[1], ts: hdr[2], data: body})
		}
	}
	if !ended {
		return nil, errFast // the last generation is cut short
	}
	for _, g := range gens {
		if g.freq == 0 {
			return nil, errFast
		}
	}

	rd := &reading{tasks: map[uint64]*task{}}
	interned := map[string]string{}
	intern := func(b []byte) string {
		if s, ok := interned[string(b)]; ok {
			return s
		}
		s := string(b)
		interned[s] = s
		return s
	}
	threads := map[uint64]*thread{}
	n := 0
	first, last := int64(0), int64(0)
	for _, b := range batches {
		m := threads[b.m]
		if m == nil {
			m = &thread{p: -1}
			threads[b.m] = m
		}
		g := gens[b.gen]
		str := func(id uint64) ([]byte, error) {
			if id >= uint64(len(g.strings)) || g.strings[id] == nil {
				if id == 0 {
					return nil, nil
				}
				return nil, errFast
			}
			return g.strings[id], nil
		}
		ts := int64(float64(b.ts) * g.freq)
		p := b.data
		for len(p) > 0 {
			typ := int(p[0])
			if typ > maxType || timedArgs[typ] == 0 {
				return nil, errFast
			}
			p = p[1:]
			var args [5]uint64
			for i := range int(timedArgs[typ]) {
				v, k := binary.Uvarint(p)
				if k <= 0 {
					return nil, errFast
				}
				args[i], p = v, p[k:]
			}
			ts += int64(float64(args[0]) * g.freq)
			if n == 0 || ts < first {
				first = ts
			}
			if n == 0 || ts > last {
				last = ts
			}
			n++
			if progress != nil && n%65536 == 0 {
				progress(n)
			}
			switch typ {
			case evGoStart, evGoSwitch, evGoSwitchDestroy:
				m.run(rd, args[1], ts)
			case evGoCreateSyscall:
				m.stop(rd, ts)
				m.g = args[1] // in a system call: not running Go code yet
			case evGoStop, evGoBlock, evGoDestroy, evGoDestroySyscall, evGoSyscallEndBlock:
				m.stop(rd, ts)
				m.g = 0
			case evGoSyscallBegin:
				m.stop(rd, ts)
			case evGoSyscallEnd:
				if m.g != 0 {
					m.run(rd, m.g, ts)
				}
			case evGoStatus, evGoStatusStack:
				if args[2] == b.m {
					switch args[3] {
					case goRunning:
						m.run(rd, args[1], ts)
					case goSyscall:
						m.stop(rd, ts)
						m.g = args[1]
					}
				}
			case evProcStart:
				m.p = int64(args[1])
			case evProcStop:
				m.stop(rd, ts)
				m.p = -1
			case evProcStatus:
				if args[2] == procRunning || args[2] == procSyscall {
					m.p = int64(args[1])
				}
			case evUserTaskBegin:
				name, err := str(args[3])
				if err != nil {
					return nil, err
				}
				t := rd.task(args[1])
				t.typ, t.begin, t.beganBefore = intern(name), ts, false
			case evUserTaskEnd:
				t := rd.task(args[1])
				t.end, t.ended = ts, true
			case evUserRegionBegin:
				name, err := str(args[2])
				if err != nil {
					return nil, err
				}
				rd.region(args[1], name, ts, m.g)
			case evUserRegionEnd:
				name, err := str(args[2])
				if err != nil {
					return nil, err
				}
				rd.regionEnd(args[1], name, ts)
			case evUserLog:
				cat, err := str(args[2])
				if err != nil {
					return nil, err
				}
				if len(cat) < 7 || string(cat[:7]) != "sluice." {
					continue
				}
				msg, err := str(args[3])
				if err != nil {
					return nil, err
				}
				rd.log(args[1], cat, msg, intern)
			}
		}
	}
	// The trace's time begins with its first generation's (x/exp/trace
	// reports it as a sync event), which may come before its first event.
	if n > 0 {
		g := gens[0]
		first = min(first, int64(float64(g.minTs)*g.freq))
	}
	for _, m := range threads {
		m.stop(rd, last)
	}
	sortRuns(rd.runs)
	rd.events, rd.first, rd.last = n, first, last
	rd.countRan()
	return rd, nil
}

// headerVersion returns NN of a "go 1.NN trace\x00\x00\x00" header, if it
// is a version this reader decodes.
func headerVersion(data []byte) (int, bool) {
	if len(data) < 16 || string(data[:5]) != "go 1." || string(data[7:16]) != " trace\x00\x00\x00" {
		return 0, false
	}
	v := int(data[5]-'0')*10 + int(data[6]-'0')
	switch v {
	case 22, 23, 25, 26:
		return v, true
	}
	return 0, false
}

// addStrings indexes a strings batch's entries (after its EvStrings
// byte): the strings stay in the file's bytes.
func (g *fastGen) addStrings(p []byte) error {
	for len(p) > 0 {
		if p[0] != evString {
			return errFast
		}
		p = p[1:]
		id, k := binary.Uvarint(p)
		if k <= 0 || id > 1<<26 {
			return errFast
		}
		p = p[k:]
		size, k := binary.Uvarint(p)
		if k <= 0 || size > uint64(len(p)-k) {
			return errFast
		}
		p = p[k:]
		for uint64(len(g.strings)) <= id {
			g.strings = append(g.strings, nil)
		}
		if g.strings[id] != nil {
			return fmt.Errorf("%w: string %d twice", errFast, id)
		}
		g.strings[id] = p[:size:size]
		p = p[size:]
	}
	return nil
}

// setFreq reads the frequency of a sync batch (Go 1.25+: EvSync, then
// EvFrequency and EvClockSnapshot events) or of a lone frequency batch.
func (g *fastGen) setFreq(p []byte, ver int) error {
	if ver >= 25 {
		p = p[1:] // EvSync
	}
	for len(p) > 0 {
		typ := p[0]
		p = p[1:]
		args := 1
		switch {
		case typ == evFrequency:
		case typ == 51 && ver >= 25: // EvClockSnapshot: dt, mono, sec, nsec
			args = 4
		default:
			return errFast
		}
		for i := range args {
			v, k := binary.Uvarint(p)
			if k <= 0 {
				return errFast
			}
			p = p[k:]
			if typ == evFrequency && i == 0 {
				if v == 0 || g.freq != 0 {
					return errFast
				}
				g.freq = 1.0 / (float64(v) / 1e9)
			}
		}
	}
	return nil
}
