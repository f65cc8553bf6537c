package trace

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
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
