package sim_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"sluice/wasm/sim"
)

// FuzzDecode checks that Decode never panics on any text, and that what
// it accepts is valid and survives another trip through Encode and Decode
// unchanged.
func FuzzDecode(f *testing.F) {
	for _, p := range sim.Presets() {
		f.Add(p.Scenario.Encode())
		f.Add(sim.LinkPrefix + p.Scenario.Encode())
	}
	for _, s := range []string{
		"", "#s=", "AAAA", "not base64!!", "q1YqU7IyNDDQUcpMUbIyMjQwMNBRys_JSc1LUbIyNDA0MjUGAA",
		pack(`{"v":1,"primitive":"keyed","seed":9,"limit":0,"idleMs":5,"bursts":[{"count":3,"minMs":1,"maxMs":2,"keys":2}]}`),
		pack(`{"v":1,"primitive":"consume","seed":1,"limit":1,"consumers":[{"concurrency":2,"priority":-1}],"bursts":[],"actions":[]}`),
		pack(`{"v":1,"primitive":"workqueue","limit":1,"speed":-0}`),
		pack(`{"v":2}`), pack(`{"v":1,"V":1}`), pack(`null`), pack(`{"v":1e400}`),
		pack(strings.Repeat(" ", 70<<10)),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := sim.Decode(text)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("Decode(%q) returned an error with no text", text)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("Decode(%q) accepted an invalid scenario: %v", text, err)
		}
		again, err := sim.Decode(s.Encode())
		if err != nil {
			t.Fatalf("Decode(Encode(%+v)) = %v", s, err)
		}
		if !reflect.DeepEqual(again, s) {
			t.Fatalf("round trip changed the scenario:\n got %+v\nwant %+v", again, s)
		}
	})
}

// FuzzDecodeJSON is FuzzDecode one layer down: it fuzzes the scenario's
// JSON, which random base64 text almost never reaches.
func FuzzDecodeJSON(f *testing.F) {
	for _, p := range sim.Presets() {
		js, _ := json.Marshal(p.Scenario)
		f.Add(string(js))
	}
	f.Add(`{"v":1,"primitive":"keyed","seed":18446744073709551615,"limit":0,"bursts":[{"count":1,"minMs":1,"maxMs":1,"keys":1}]}`)
	f.Add(`{"v":1,"primitive":"semaphore","limit":1,"speed":0.1,"actions":[{"do":"limit","n":64}]}`)
	f.Fuzz(func(t *testing.T, js string) {
		s, err := sim.Decode(pack(js))
		if err != nil {
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("Decode accepted an invalid scenario: %v", err)
		}
		again, err := sim.Decode(s.Encode())
		if err != nil {
			t.Fatalf("Decode(Encode(%+v)) = %v", s, err)
		}
		if !reflect.DeepEqual(again, s) {
			t.Fatalf("round trip changed the scenario:\n got %+v\nwant %+v", again, s)
		}
	})
}
