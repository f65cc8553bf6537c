package trace

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"sluice/core"
)

// errSlow makes the scanner give up: the input is read again by
// encoding/json, which decides what it means and words any error.
var errSlow = errors.New("trace: not for the fast scanner")

// scanner reads the common shape of a trace, a JSON object with
// "traceEvents" (or an array of events) whose events are flat objects,
// without reflection: the events of a trace of 200,000 tasks in a fraction
// of the time encoding/json takes. It accepts only valid JSON that it
// reads exactly as encoding/json would; on anything else (a syntax error,
// a field of an unexpected type, a key outside ASCII or that differs from
// a field's name only in case, invalid UTF-8 or an escaped UTF-16
// surrogate in a string) it returns errSlow, and ReadJSON reads the input
// again with encoding/json.
//
// The task spans of Sluice's own format, most of its traces, are read
// literal by literal in the layout WriteJSON writes (written), args and
// all, so that buildOwn does not decode them again; a span in any other
// layout is read as any event, and its args decoded by buildOwn.
type scanner struct {
	b     []byte
	i     int
	spans []spanArgs // room for task spans' args, a chunk at a time
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next byte after white space, or 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i >= len(s.b) {
		return 0
	}
	return s.b[s.i]
}

func (s *scanner) expect(c byte) error {
	if s.peek() != c {
		return errSlow
	}
	s.i++
	return nil
}

// str reads a string and returns its contents, escapes decoded. A string
// with invalid UTF-8 or an escaped UTF-16 surrogate is left to
// encoding/json, which replaces them with U+FFFD.
func (s *scanner) str() (string, error) {
	if s.peek() != '"' {
		return "", errSlow
	}
	start := s.i + 1
	ascii := true
	for j := plain(s.b, start); j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			if !ascii && !utf8.Valid(s.b[start:j]) {
				return "", errSlow // encoding/json replaces invalid bytes
			}
			s.i = j + 1
			return intern(s.b[start:j]), nil
		case c == '\\':
			return s.unquote(start, j)
		case c < 0x20:
			return "", errSlow
		case c >= 0x80:
			ascii = false
		}
	}
	return "", errSlow
}

// interned are the keys and the short values that recur in every event
// of a trace, which str returns without a copy, by length: a map would
// take longer to hash them than to copy them.
var interned = func() (byLen [12][]string) {
	for _, list := range [][]string{eventFields, spanFields, counterFields, stateStrings[:],
		{catWait, "thread_name", "traceEvents", "metadata", "sluice", "s", "slot"}} {
		for _, k := range list {
			if !slices.Contains(byLen[len(k)], k) {
				byLen[len(k)] = append(byLen[len(k)], k)
			}
		}
	}
	return byLen
}()

// intern returns b as a string, one of interned's if it is one.
func intern(b []byte) string {
	if len(b) < len(interned) {
		for _, k := range interned[len(b)] {
			if string(b) == k {
				return k
			}
		}
	}
	return string(b)
}

// stateStrings are the states a span's args name.
var stateStrings = [...]string{"pending", "running", "succeeded", "failed", "canceled", "panicked"}

// plain returns the index of the first byte from j on that is a quote, a
// backslash, a control character or not ASCII, or one before it, looking
// at 8 bytes at a time: the bytes of a string that need no look one by one.
func plain(b []byte, j int) int {
	const ones, high = 0x0101010101010101, 0x8080808080808080
	for j+8 <= len(b) {
		x := binary.LittleEndian.Uint64(b[j:])
		q, bs := x^('"'*ones), x^('\\'*ones)
		// A byte of q or bs is 0, of x below 0x20 or from 0x80 on.
		if ((q-ones)&^q|(bs-ones)&^bs|(x-0x20*ones)&^x|x)&high != 0 {
			break
		}
		j += 8
	}
	return j
}

// unquote reads the rest of the string whose contents start at start and
// whose first escape is at j.
func (s *scanner) unquote(start, j int) (string, error) {
	buf := append(make([]byte, 0, j-start+16), s.b[start:j]...)
	for j < len(s.b) {
		c := s.b[j]
		switch {
		case c == '"':
			// Escapes add only whole, valid sequences: buf is valid if
			// the raw bytes are.
			if !utf8.Valid(buf) {
				return "", errSlow
			}
			s.i = j + 1
			return string(buf), nil
		case c < 0x20:
			return "", errSlow
		case c != '\\':
			buf = append(buf, c)
			j++
			continue
		}
		if j+1 >= len(s.b) {
			return "", errSlow
		}
		switch e := s.b[j+1]; e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			if j+6 > len(s.b) {
				return "", errSlow
			}
			var r rune
			for _, h := range s.b[j+2 : j+6] {
				switch {
				case h >= '0' && h <= '9':
					h -= '0'
				case h >= 'a' && h <= 'f':
					h -= 'a' - 10
				case h >= 'A' && h <= 'F':
					h -= 'A' - 10
				default:
					return "", errSlow
				}
				r = r<<4 | rune(h)
			}
			if utf16.IsSurrogate(r) {
				return "", errSlow // pairs and lone halves: encoding/json's rules
			}
			buf = utf8.AppendRune(buf, r)
			j += 6
			continue
		default:
			return "", errSlow
		}
		j += 2
	}
	return "", errSlow
}

// key reads an object member's key and its colon. Keys outside ASCII are
// left to encoding/json, whose matching of names without case is its own.
func (s *scanner) key() (string, error) {
	k, err := s.str()
	if err != nil {
		return "", err
	}
	for i := 0; i < len(k); i++ {
		if k[i] >= utf8.RuneSelf {
			return "", errSlow
		}
	}
	return k, s.expect(':')
}

// integer reads a JSON number that is a 64-bit integer, as encoding/json
// reads one into an int64 (signed) or a uint64 field; null, a fraction, an
// exponent or a number out of range gives errSlow.
func (s *scanner) integer(signed bool) (int64, uint64, error) {
	s.ws()
	b, i := s.b, s.i
	neg := i < len(b) && b[i] == '-'
	if neg {
		if !signed {
			return 0, 0, errSlow
		}
		i++
	}
	start := i
	var u uint64
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if u > (math.MaxUint64-9)/10 {
			return 0, 0, errSlow
		}
		u = u*10 + uint64(b[i]-'0')
	}
	switch {
	case i == start || b[start] == '0' && i-start > 1:
		return 0, 0, errSlow // not JSON
	case i < len(b) && (b[i] == '.' || b[i] == 'e' || b[i] == 'E'):
		return 0, 0, errSlow // not an integer to encoding/json
	}
	s.i = i
	switch {
	case !signed:
		return 0, u, nil
	case neg && u <= 1<<63:
		return int64(-u), 0, nil
	case !neg && u < 1<<63:
		return int64(u), 0, nil
	}
	return 0, 0, errSlow
}

// end checks that nothing but white space follows (peek's 0 may be a
// NUL byte).
func (s *scanner) end() error {
	if s.ws(); s.i < len(s.b) {
		return errSlow
	}
	return nil
}

// spanFields are spanArgs' JSON names.
var spanFields = []string{"task", "seq", "name", "priority", "weight", "key", "state", "error"}

// spanArgsOf decodes a task span's args into a as json.Unmarshal does,
// through the scanner when they are in the layout WriteJSON writes.
func spanArgsOf(raw []byte, a *spanArgs) error {
	s := scanner{b: raw}
	if s.writtenArgs(a, nil, "") && s.end() == nil {
		return nil
	}
	var slow spanArgs // on the heap only here
	err := json.Unmarshal(raw, &slow)
	*a = slow
	return err
}

// spanArgs returns the args of e, a task span: as the scanner decoded them
// with the event, or decoded now.
func (p *parser) spanArgs(e *event, a *spanArgs) error {
	if e.span != nil {
		*a = *e.span
		return nil
	}
	return spanArgsOf(e.args, a)
}

// stateString returns a pointer to st, to one of stateStrings if it is one.
func stateString(st string) *string {
	for i := range stateStrings {
		if stateStrings[i] == st {
			return &stateStrings[i]
		}
	}
	p := new(string)
	*p = st
	return p
}

// counterFields are a counter event's args' JSON names.
var counterFields = []string{"value"}

// counterValueOf decodes a counter event's args, {"value": n}, into v as
// json.Unmarshal does into a struct with a *int64 field Value.
func counterValueOf(raw []byte, v **int64) error {
	s := scanner{b: raw}
	if s.counterValue(v) && s.end() == nil {
		return nil
	}
	var a struct {
		Value *int64 `json:"value"`
	}
	err := json.Unmarshal(raw, &a)
	*v = a.Value
	return err
}

// counterValue reads a counter event's args in the layout WriteJSON
// writes into v, as json.Unmarshal would.
func (s *scanner) counterValue(v **int64) bool {
	if !s.lit(`{"value":`) {
		return false
	}
	n, _, err := s.integer(true)
	*v = &n
	return err == nil && s.lit("}")
}

// value skips a JSON value, checking it, and returns its bytes.
func (s *scanner) value(depth int) ([]byte, error) {
	if depth > 64 {
		return nil, errSlow
	}
	c := s.peek()
	start := s.i
	switch {
	case c == '"':
		// Any string: escapes are checked, not decoded.
		j := plain(s.b, s.i+1)
		for ; j < len(s.b); j++ {
			c := s.b[j]
			if c == '"' {
				break
			}
			if c < 0x20 {
				return nil, errSlow
			}
			if c == '\\' {
				j++
				if j >= len(s.b) {
					return nil, errSlow
				}
				switch s.b[j] {
				case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				case 'u':
					if j+4 >= len(s.b) {
						return nil, errSlow
					}
					for _, h := range s.b[j+1 : j+5] {
						if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
							return nil, errSlow
						}
					}
					j += 4
				default:
					return nil, errSlow
				}
			}
		}
		if j >= len(s.b) {
			return nil, errSlow
		}
		s.i = j + 1
	case c == '{':
		s.i++
		if s.peek() == '}' {
			s.i++
			break
		}
		for {
			if _, err := s.value(depth + 1); err != nil || s.b[s.i-1] != '"' {
				return nil, errSlow // keys are strings
			}
			if err := s.expect(':'); err != nil {
				return nil, err
			}
			if _, err := s.value(depth + 1); err != nil {
				return nil, err
			}
			if s.peek() == ',' {
				s.i++
				continue
			}
			if err := s.expect('}'); err != nil {
				return nil, err
			}
			break
		}
	case c == '[':
		s.i++
		if s.peek() == ']' {
			s.i++
			break
		}
		for {
			if _, err := s.value(depth + 1); err != nil {
				return nil, err
			}
			if s.peek() == ',' {
				s.i++
				continue
			}
			if err := s.expect(']'); err != nil {
				return nil, err
			}
			break
		}
	case c == '-' || c >= '0' && c <= '9':
		if err := s.number(); err != nil {
			return nil, err
		}
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
				s.i += len(lit)
				return s.b[start:s.i], nil
			}
		}
		return nil, errSlow
	default:
		return nil, errSlow
	}
	return s.b[start:s.i], nil
}

// number skips a JSON number, checking its grammar.
func (s *scanner) number() error {
	digits := func() int {
		n := 0
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	if s.b[s.i] == '-' {
		s.i++
	}
	if s.i < len(s.b) && s.b[s.i] == '0' {
		s.i++
	} else if digits() == 0 {
		return errSlow
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if digits() == 0 {
			return errSlow
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return errSlow
		}
	}
	return nil
}

// eventFields are rawEvent's JSON names.
var eventFields = []string{"ph", "name", "cat", "ts", "dur", "pid", "tid", "args"}

// lit reads l, if it comes next. (Not inlined: its callers are many, and
// the playground is downloaded.)
//
//go:noinline
func (s *scanner) lit(l string) bool {
	if len(s.b)-s.i >= len(l) && string(s.b[s.i:s.i+len(l)]) == l {
		s.i += len(l)
		return true
	}
	return false
}

// raw reads a number into *dst.
func (s *scanner) raw(dst *json.RawMessage) bool {
	start := s.i
	if s.i >= len(s.b) || s.number() != nil {
		return false
	}
	*dst = s.b[start:s.i]
	return true
}

// written reads a task span in the layout WriteJSON writes, without white
// space, which is most of a trace of Sluice's own format, into ev, as event
// would, but with few calls and no lookups. On anything else it reads
// nothing and returns false.
func (s *scanner) written(ev *rawEvent) bool {
	s.ws()
	start := s.i
	ok := s.lit(`{"ph":"X","ts":`) && s.raw(&ev.Ts) && s.lit(`,"pid":`) && s.raw(&ev.Pid) &&
		s.lit(`,"tid":`) && s.raw(&ev.Tid) && s.lit(`,"dur":`) && s.raw(&ev.Dur) && s.lit(`,"name":`)
	var name []byte // as written
	if ok {
		var err error
		at := s.i
		ev.Name, err = s.str()
		name = s.b[at:s.i]
		ok = err == nil && s.lit(`,"cat":"`)
	}
	switch {
	case ok && s.lit(`task","args":`):
		ev.Cat = catRun
	case ok && s.lit(`wait","args":`):
		ev.Cat = catWait
	default:
		ok = false
	}
	if ok {
		if len(s.spans) == cap(s.spans) {
			s.spans = make([]spanArgs, 0, 4096)
		}
		s.spans = s.spans[:len(s.spans)+1]
		a, args := &s.spans[len(s.spans)-1], s.i
		if ok = s.writtenArgs(a, name, ev.Name) && s.lit("}"); ok {
			ev.Ph, ev.Args, ev.span = "X", s.b[args:s.i-1], a
			return true
		}
		*a = spanArgs{}
	}
	*ev, s.i = rawEvent{}, start
	return false
}

// writtenArgs reads a task span's args in the layout WriteJSON writes, as
// json.Unmarshal would; a name written as raw is name, without a copy.
func (s *scanner) writtenArgs(a *spanArgs, raw []byte, name string) bool {
	ids := new([2]uint64) // task and seq, in one allocation
	a.Task, a.Seq = &ids[0], &ids[1]
	var err error
	ok := s.lit(`{"task":`)
	if ok {
		_, ids[0], err = s.integer(false)
		ok = err == nil && s.lit(`,"seq":`)
	}
	if ok {
		_, ids[1], err = s.integer(false)
		ok = err == nil
	}
	if ok && s.lit(`,"name":`) {
		if n := len(raw); n > 0 && len(s.b)-s.i >= n && string(s.b[s.i:s.i+n]) == string(raw) {
			a.Name, s.i = name, s.i+n
		} else {
			a.Name, err = s.str()
			ok = err == nil
		}
	}
	if ok = ok && s.lit(`,"priority":`); ok {
		var n int64
		n, _, err = s.integer(true)
		a.Priority = core.Priority(n)
		ok = err == nil && s.lit(`,"weight":`)
	}
	if ok {
		a.Weight, _, err = s.integer(true)
		ok = err == nil
	}
	if ok && s.lit(`,"key":`) {
		a.Key, err = s.str()
		ok = err == nil
	}
	if ok = ok && s.lit(`,"state":`); ok {
		var st string
		st, err = s.str()
		a.State = stateString(st)
		ok = err == nil
	}
	if ok && s.lit(`,"error":`) {
		a.Error, err = s.str()
		ok = err == nil
	}
	return ok && s.lit("}")
}

// event reads one event object into ev, as encoding/json would.
func (s *scanner) event(ev *rawEvent) error {
	if err := s.expect('{'); err != nil {
		return err
	}
	if s.peek() == '}' {
		s.i++
		return nil
	}
	for {
		key, err := s.key()
		if err != nil {
			return err
		}
		var dst *string
		var raw *json.RawMessage
		switch key {
		case "ph":
			dst = &ev.Ph
		case "name":
			dst = &ev.Name
		case "cat":
			dst = &ev.Cat
		case "ts":
			raw = &ev.Ts
		case "dur":
			raw = &ev.Dur
		case "pid":
			raw = &ev.Pid
		case "tid":
			raw = &ev.Tid
		case "args":
			raw = &ev.Args
		default:
			for _, f := range eventFields {
				if strings.EqualFold(f, key) {
					return errSlow // encoding/json matches names without case
				}
			}
		}
		switch {
		case dst != nil:
			v, err := s.str()
			if err != nil {
				return err
			}
			*dst = v
		default:
			v, err := s.value(0)
			if err != nil {
				return err
			}
			if raw != nil {
				*raw = v
			}
		}
		if s.peek() == ',' {
			s.i++
			continue
		}
		return s.expect('}')
	}
}

// scan reads the events of input as parse does, through p.keep.
func (p *parser) scan(input []byte) error {
	s := &scanner{b: input}
	events := func() error {
		if err := s.expect('['); err != nil {
			return err
		}
		p.hasTrace = true
		if s.peek() == ']' {
			s.i++
			return nil
		}
		for {
			if p.n >= MaxJSONEvents {
				return errTooManyEvents
			}
			if len(p.events) == cap(p.events) {
				// Room for as many events again as the input's rest
				// holds at the rate so far, rather than growing by
				// doublings, each a copy: counting them first would
				// take a pass over the input.
				more := 1024 + int64(len(p.events))*int64(len(s.b)-s.i)/int64(max(s.i, 1))
				p.events = slices.Grow(p.events, int(min(more, MaxJSONEvents)))
			}
			var ev rawEvent
			if !s.written(&ev) {
				if err := s.event(&ev); err != nil {
					return err
				}
			}
			if err := p.keep(&ev); err != nil {
				return errSlow // let the slow path word it, in its order
			}
			p.n++
			p.tick(s.i, len(s.b))
			if s.peek() == ',' {
				s.i++
				continue
			}
			return s.expect(']')
		}
	}
	switch s.peek() {
	case '[':
		if err := events(); err != nil {
			return err
		}
	case '{':
		s.i++
		if s.peek() != '}' {
			for {
				key, err := s.str()
				if err != nil {
					return err
				}
				if err := s.expect(':'); err != nil {
					return err
				}
				switch key {
				case "traceEvents":
					if err := events(); err != nil {
						return err
					}
				case "metadata":
					v, err := s.value(0)
					if err != nil {
						return err
					}
					if err := p.metadata(v); err != nil {
						return errSlow
					}
				default:
					if strings.EqualFold(key, "traceEvents") || strings.EqualFold(key, "metadata") {
						return errSlow
					}
					if _, err := s.value(0); err != nil {
						return err
					}
				}
				if s.peek() == ',' {
					s.i++
					continue
				}
				break
			}
		}
		if err := s.expect('}'); err != nil {
			return err
		}
		if !p.hasTrace {
			return errSlow
		}
	default:
		return errSlow
	}
	return s.end()
}

// errTooLarge is the error of an input beyond MaxJSONSize.
var errTooLarge = fmt.Errorf("trace: input larger than %d bytes", MaxJSONSize)

// readAll reads r to its end, or to MaxJSONSize+1 bytes, as io.ReadAll
// would; a reader that tells how much is left (a Len method, as
// bytes.Reader has) is read into one buffer of that size, not into one
// that grows by copies, which for a trace of 100 MiB would hold it twice,
// and is refused with errTooLarge, unread, if that is too much.
func readAll(r io.Reader) ([]byte, error) {
	lr := io.LimitReader(r, MaxJSONSize+1)
	l, ok := r.(interface{ Len() int })
	if !ok {
		return io.ReadAll(lr)
	}
	if l.Len() > MaxJSONSize {
		return nil, errTooLarge
	}
	b := make([]byte, 0, max(l.Len(), 0)+1)
	for {
		n, err := lr.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}
