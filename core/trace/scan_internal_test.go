package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"sluice/core"
)

// The fast scanner reads what it takes on exactly as encoding/json does.
func TestScanMatchesDecoder(t *testing.T) {
	inputs := []string{
		`{"traceEvents":[{"name":"a","ph":"X","ts":1,"dur":2.5,"pid":1,"tid":2}]}`,
		`[{"ph":"B","ts":0,"pid":"p","tid":"t","name":"x"},{"ph":"E","ts":3,"pid":"p","tid":"t"}]`,
		`{"metadata":{"x":1},"other":[1,{"a":null}],"traceEvents":[{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"w\u00e9 \"1\""}},
		  {"ph":"X","name":"caf\u00e9","ts":1e3,"dur":0,"pid":1,"tid":1,"cat":"c","args":{"k":[true,false,-0.5e-2]}},
		  {"ph":"C","name":"running","ts":4,"pid":1,"tid":0,"args":{"value":2}}]}`,
		`{"traceEvents":[{"ph":"X","name":"é·ü","ts":1,"dur":1,"pid":1,"tid":1,"extra":"\t"}]}`,
		`{"traceEvents":[{"PH":"X","ts":1}]}`,
		`{"traceEvents":[{"ph":"X","ts":1,"dur":1,"pid":1,"tid":1,"name":null}]}`,
		`{"traceEvents":[{"ph":"X","ts":01}]}`,
		`{"traceEvents":[]} x`,
	}
	for _, in := range inputs {
		fast := &parser{threads: make(map[threadKey]int32)}
		ferr := fast.scan([]byte(in))
		slow := &parser{dec: json.NewDecoder(bytes.NewReader([]byte(in))), threads: make(map[threadKey]int32)}
		serr := slow.parse()
		if ferr != nil {
			continue // left to encoding/json
		}
		if serr != nil {
			t.Errorf("%s: the scanner took it, encoding/json says %v", in, serr)
			continue
		}
		if !reflect.DeepEqual(fast.events, slow.events) || !reflect.DeepEqual(fast.counters, slow.counters) ||
			!reflect.DeepEqual(fast.keys, slow.keys) || fast.n != slow.n {
			t.Errorf("%s:\nscanner  %+v %+v\ndecoder %+v %+v", in, fast.events, fast.counters, slow.events, slow.counters)
		}
	}
}

// readWith reads input as ReadJSON does, through the scanner (fast) or
// encoding/json; taken is false if the scanner left input to encoding/json.
func readWith(input []byte, fast bool) (rec *Recorder, taken bool, err error) {
	p := &parser{threads: make(map[threadKey]int32)}
	if fast {
		if err := p.scan(input); err != nil {
			return nil, false, err
		}
	} else {
		p.dec = json.NewDecoder(bytes.NewReader(input))
		if err := p.parse(); err != nil {
			return nil, true, err
		}
		// The task spans' args as encoding/json reads them; buildOwn
		// decodes those it rejects, and reports its error.
		for i := range p.events {
			var a spanArgs
			if e := &p.events[i]; e.cat != 0 && json.Unmarshal(e.args, &a) == nil {
				e.span = &a
			}
		}
	}
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
	return rec, true, err
}

// checkScanMatches checks that the scanner, when it takes input on, reads
// the same model as encoding/json, or the same error.
func checkScanMatches(t *testing.T, input []byte) (taken bool) {
	t.Helper()
	fast, taken, ferr := readWith(input, true)
	if !taken {
		return false
	}
	slow, _, serr := readWith(input, false)
	switch {
	case (ferr == nil) != (serr == nil) || ferr != nil && ferr.Error() != serr.Error():
		t.Fatalf("%.200s:\nthe scanner's read: %v\nencoding/json's:    %v", input, ferr, serr)
	case ferr != nil:
		return true
	}
	var fb, sb bytes.Buffer
	if err := fast.WriteJSON(&fb); err != nil {
		t.Fatal(err)
	}
	if err := slow.WriteJSON(&sb); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fb.Bytes(), sb.Bytes()) {
		t.Fatalf("%.200s:\nthe scanner's model writes\n%.2000s\nencoding/json's\n%.2000s", input, fb.Bytes(), sb.Bytes())
	}
	if fs, ss := fast.Snapshot(time.Time{}), slow.Snapshot(time.Time{}); !reflect.DeepEqual(fs, ss) {
		t.Fatalf("%.200s: the snapshots differ", input)
	}
	return true
}

// ownTrace records n tasks of every kind of life, with names, keys and
// errors that need escapes, and returns the trace WriteJSON writes.
func ownTrace(t testing.TB, n int) []byte {
	t.Helper()
	rec := NewRecorder(Config{MaxFinished: n, MaxLog: 20})
	t0 := time.Unix(1_700_000_000, 0)
	names := []string{"", "plain", "quote \" and \\ back", "tab\tnew\nline", "é ü 漢字", "\u2028sep", "ctl \x01", "bad \xff utf8", "emoji 😀"}
	for i := range n {
		at := t0.Add(time.Duration(i) * 7 * time.Microsecond)
		e := core.Event{Task: uint64(i + 1), Name: names[i%len(names)], Priority: core.Priority(i%5 - 2), Weight: int64(1 + i%3)}
		if i%4 == 1 {
			e.Key = names[(i/4)%len(names)] + "k"
		}
		e.Kind, e.Time = core.Enqueued, at
		rec.Observe(e)
		start := at
		if i%3 == 0 {
			e.Kind = core.Waiting
			rec.Observe(e)
			if i%9 == 0 {
				e.Kind, e.Time, e.Err = core.Canceled, at.Add(5*time.Microsecond), errors.New("context canceled")
				rec.Observe(e)
				continue
			}
			start = at.Add(3 * time.Microsecond)
		}
		if i%17 == 5 {
			continue // still waiting, or enqueued
		}
		e.Kind, e.Time, e.Lane = core.Started, start, i%4
		rec.Observe(e)
		if i%13 == 7 {
			continue // still running
		}
		e.Kind, e.Time = core.Finished, start.Add(time.Duration(1+i%11)*time.Microsecond)
		switch i % 10 {
		case 3:
			e.Kind, e.Err = core.Failed, fmt.Errorf("failed: %q\n\tat line %d", names[i%len(names)], i)
		case 6:
			e.Kind, e.Err = core.Panicked, &core.PanicError{Value: "boom \u00e9"}
		}
		rec.Observe(e)
	}
	var b bytes.Buffer
	if err := rec.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The scanner reads traces in Sluice's own format, and their task spans'
// args, exactly as encoding/json does: the same model, or the same error.
func TestScanMatchesDecoderOwn(t *testing.T) {
	own := ownTrace(t, 300)
	if !checkScanMatches(t, own) {
		t.Fatalf("the scanner left a trace WriteJSON wrote to encoding/json")
	}
	// Every task span of it is read by the fast path for WriteJSON's
	// layout, args and all.
	p := &parser{threads: make(map[threadKey]int32)}
	if err := p.scan(own); err != nil {
		t.Fatal(err)
	}
	for _, e := range p.events {
		if e.cat != 0 && e.span == nil {
			t.Fatalf("event %d, a task span WriteJSON wrote, was read by the general path: args %s", e.idx, e.args)
		}
	}
	// Each task span's args, rewritten: the scanner decodes them or
	// leaves them to encoding/json, which then reads them as usual.
	args := []string{
		`{"task":1,"seq":1,"state":"succeeded"}`,
		` { "task" : 1 , "seq" : 1 , "name" : "a\u00e9\n\"\/" , "state" : "failed" , "error" : "\b\f\r\t\\" } `,
		`{"seq":1,"task":1,"state":"running","priority":-9223372036854775808,"weight":9223372036854775807}`,
		`{"task":18446744073709551615,"seq":1,"state":"succeeded"}`,
		`{"task":1,"seq":1,"state":"succeeded","other":{"x":[1,"\ud83d\ude00",null,true,{}]},"more":-0.5e-3}`,
		`{"task":1,"seq":1,"state":"succeeded","name":"\ud83d\ude00 pair"}`,
		`{"task":1,"seq":1,"state":"succeeded","name":"\udc00 lone"}`,
		`{"task":1,"seq":1,"state":"succeeded","name":"\u0000 nul"}`,
		`{"Task":1,"seq":1,"state":"succeeded"}`,
		`{"TASK":1,"task":2,"seq":1,"state":"succeeded"}`,
		`{"ta\u0073k":1,"seq":1,"state":"succeeded"}`,
		`{"tasK":1,"seq":1,"ſtate":"succeeded","state":"failed"}`,
		`{"task":1,"task":3,"seq":1,"state":"succeeded","state":"failed","name":"a","name":"b"}`,
		`{"task":1.0,"seq":1,"state":"succeeded"}`,
		`{"task":1e2,"seq":1,"state":"succeeded"}`,
		`{"task":-1,"seq":1,"state":"succeeded"}`,
		`{"task":-0,"seq":1,"state":"succeeded","priority":-0}`,
		`{"task":18446744073709551616,"seq":1,"state":"succeeded"}`,
		`{"task":1,"seq":1,"state":"succeeded","weight":9223372036854775808}`,
		`{"task":1,"seq":1,"state":"succeeded","priority":1.5}`,
		`{"task":null,"seq":1,"state":"succeeded"}`,
		`{"task":1,"seq":1,"state":null}`,
		`{"task":1,"seq":1,"state":"succeeded","name":null,"error":null}`,
		`{"task":"1","seq":1,"state":"succeeded"}`,
		`{"task":1,"seq":1,"state":7}`,
		`{"task":1,"seq":1,"state":"sleeping"}`,
		`{"task":1,"seq":1,"state":"succeeded","name":"bad \xff"}`,
		`{"task":1,"seq":1,"state":"succeeded","name":"ctl ` + "\x01" + `"}`,
		`{"task":1,"seq":1,"state":"succeeded","name":"\x"}`,
		`{"task":01,"seq":1,"state":"succeeded"}`,
		`{"task":1,"seq":1,"state":"succeeded",}`,
		`{"task":1,"seq":1,"state":"succeeded"`,
		`[1]`,
		`"task"`,
		`null`,
		`{}`,
	}
	for _, a := range args {
		for _, cat := range []string{"task", "wait"} {
			pid := map[string]int{"task": 1, "wait": 2}[cat]
			in := fmt.Sprintf(`{"traceEvents":[{"ph":"X","ts":1,"pid":%d,"tid":0,"dur":2,"name":"x","cat":%q,"args":%s},`+
				`{"ph":"C","ts":1,"pid":1,"tid":0,"name":"running","args":%s}],"metadata":{"sluice":{"version":1,"end":5}}}`,
				pid, cat, a, strings.NewReplacer("task", "value", "Task", "Value").Replace(a))
			checkScanMatches(t, []byte(in))
		}
		checkArgsMatch(t, []byte(a))
	}
}

// checkArgsMatch checks that the scanner, when it takes raw on as a task
// span's or a counter's args, reads what encoding/json does.
func checkArgsMatch(t *testing.T, raw []byte) {
	t.Helper()
	var fast, slow spanArgs
	s := scanner{b: raw}
	if s.writtenArgs(&fast, nil, "") && s.end() == nil {
		if err := json.Unmarshal(raw, &slow); err != nil || !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%.200s: the scanner reads %+v; encoding/json %+v, %v", raw, fast, slow, err)
		}
	}
	var v *int64
	var c struct {
		Value *int64 `json:"value"`
	}
	s = scanner{b: raw}
	if s.counterValue(&v) && s.end() == nil {
		if err := json.Unmarshal(raw, &c); err != nil || !reflect.DeepEqual(v, c.Value) {
			t.Fatalf("%.200s: the scanner reads the value %v; encoding/json %v, %v", raw, v, c.Value, err)
		}
	}
}

// FuzzScanMatchesDecoder checks that whatever the scanner reads, it reads
// as encoding/json does.
func FuzzScanMatchesDecoder(f *testing.F) {
	f.Add([]byte(`{"traceEvents":[{"ph":"X","ts":1,"pid":2,"tid":0,"dur":2,"name":"x","cat":"wait","args":{"task":1,"seq":1,"name":"n\u00e9","state":"failed","error":"e\"\n"}},` +
		`{"ph":"X","ts":3,"pid":1,"tid":0,"dur":4.5,"name":"x","cat":"task","args":{"task":1,"seq":1,"priority":-1,"weight":2,"key":"k","state":"failed","error":"e\"\n"}},` +
		`{"ph":"C","ts":3,"pid":1,"tid":0,"name":"running","args":{"value":1}}],"metadata":{"sluice":{"version":1,"origin":7,"end":9}}}`))
	f.Add([]byte(`[{"ph":"X","pid":1,"tid":1,"ts":0,"dur":10,"name":"a","cat":"task","args":{"task":"t"}},{"ph":"B","pid":1,"tid":"t","ts":2.5,"name":"b"},{"ph":"E","pid":1,"tid":"t","ts":4}]`))
	f.Add(ownTrace(f, 3))
	f.Add([]byte(`{"task":1,"seq":2,"name":"a\u00e9\n","priority":-1,"weight":2,"key":"k","state":"failed","error":"e","value":-3}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkScanMatches(t, data)
		checkArgsMatch(t, data)
	})
}

// plain never skips a byte that needs a look: a quote, a backslash, a
// control character or one outside ASCII, wherever it is.
func TestPlain(t *testing.T) {
	for _, c := range []byte{'"', '\\', 0, 0x1f, 0x80, 0xff} {
		for at := range 24 {
			b := []byte(strings.Repeat("a ~!#[]{}", 3))
			b[at] = c
			if got := plain(b, 0); got > at {
				t.Errorf("plain(%q, 0) = %d, past the %#x at %d", b, got, c, at)
			}
		}
	}
	if got := plain([]byte(strings.Repeat("x", 20)), 0); got != 16 {
		t.Errorf("plain(20 plain bytes) = %d, want 16: whole words only", got)
	}
}
