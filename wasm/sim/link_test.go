package sim_test

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"sluice/wasm/sim"
)

func TestEncodeDecodeRoundTrip(t *testing.T) {
	for _, p := range sim.Presets() {
		t.Run(p.ID, func(t *testing.T) {
			text := p.Scenario.Encode()
			if len(text) > 600 {
				t.Errorf("Encode gave %d characters; a link should stay short", len(text))
			}
			if strings.ContainsAny(text, "+/=") {
				t.Errorf("Encode = %q, want base64url without padding", text)
			}
			for _, in := range []string{text, sim.LinkPrefix + text} {
				got, err := sim.Decode(in)
				if err != nil {
					t.Fatalf("Decode = %v", err)
				}
				if !reflect.DeepEqual(got, p.Scenario) {
					t.Errorf("Decode(Encode(s)) = %+v, want %+v", got, p.Scenario)
				}
			}
		})
	}
}

// pack deflates and encodes js as a link would carry it.
func pack(js string) string {
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.BestCompression)
	w.Write([]byte(js))
	w.Close()
	return base64.RawURLEncoding.EncodeToString(buf.Bytes())
}

func TestDecodeMalformed(t *testing.T) {
	valid := `{"v":1,"primitive":"semaphore","seed":1,"limit":2,"bursts":[{"count":2,"minMs":5,"maxMs":9}]}`
	if _, err := sim.Decode(pack(valid)); err != nil {
		t.Fatalf("Decode of a valid scenario = %v", err)
	}
	for _, tc := range []struct {
		name, text, want string
	}{
		{"empty", "", "the link carries no scenario"},
		{"prefix only", "#s=", "the link carries no scenario"},
		{"bad base64", "not base64!!", "the link is damaged: its scenario is not base64url text"},
		{"bad deflate", base64.RawURLEncoding.EncodeToString([]byte("this is not deflate data at all")), "the link is damaged: its scenario does not unpack"},
		{"cut short", pack(valid)[:20], "the link is damaged"},
		{"too long", strings.Repeat("A", sim.MaxLinkLen+1), "the link is too long"},
		{"zip bomb", pack(`{"v":1,"primitive":"` + strings.Repeat("x", 10<<20) + `"}`), "unpacks to more than 64 KiB"},
		{"bad JSON", pack(`{"v":1,`), "is not a scenario's JSON"},
		{"not an object", pack(`[1,2,3]`), "is not a scenario's JSON"},
		{"no version", pack(`{"primitive":"semaphore","limit":2}`), "has no format version (v)"},
		{"future version", pack(`{"v":99,"primitive":"semaphore","limit":2}`), "made by a newer playground (scenario version 99); this one reads versions up to 2"},
		{"zero version", pack(`{"v":0,"primitive":"semaphore","limit":2}`), "format version 0, which no playground ever wrote"},
		{"unknown field", pack(`{"v":1,"primitive":"semaphore","limit":2,"turbo":true}`), `does not fit this playground's format: it has a field "turbo" that this playground does not know`},
		{"wrong type", pack(`{"v":1,"primitive":"semaphore","limit":"two"}`), "does not fit this playground's format"},
		{"trailing data", pack(valid + `{}`), "is not a scenario's JSON: it is not valid JSON at byte 94 (invalid character '{' after top-level value)"},
		{"invalid values", pack(`{"v":1,"primitive":"semaphore","seed":1,"limit":50000}`), "cannot run: limit must be between 1 and 10,000; it is 50,000"},
		{"bad levels", pack(`{"v":1,"primitive":"workqueue","seed":1,"limit":2,"bursts":[{"count":2,"minMs":5,"maxMs":9,"levels":[1,1]}]}`), "cannot run: burst 1: priority level 1 is listed twice"},
		{"levels not ints", pack(`{"v":1,"primitive":"workqueue","seed":1,"limit":2,"bursts":[{"count":2,"minMs":5,"maxMs":9,"levels":["high"]}]}`), "does not fit this playground's format"},
		{"bad key names", pack(`{"v":1,"primitive":"keyed","seed":1,"limit":2,"bursts":[{"count":2,"minMs":5,"maxMs":9,"keyNames":["a",""]}]}`), "cannot run: burst 1: key 2 is empty"},
		{"huge burst", pack(`{"v":1,"primitive":"semaphore","limit":2,"bursts":[{"count":50000,"minMs":1,"maxMs":2}]}`), "a burst can hold at most 10,000 tasks; this one asks for 50,000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := sim.Decode(tc.text)
			if err == nil {
				t.Fatalf("Decode = %+v, nil; want an error", s)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Decode error = %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestDecodeInvalidWrapsInvalidError(t *testing.T) {
	_, err := sim.Decode(pack(`{"v":1,"primitive":"semaphore","seed":1,"limit":0,"speed":40}`))
	var inv *sim.InvalidError
	if !errors.As(err, &inv) || len(inv.Problems) != 2 {
		t.Errorf("Decode = %v, want it to wrap an *InvalidError with 2 problems", err)
	}
}

func TestEncodeSanitizesSpeed(t *testing.T) {
	s := base(sim.Semaphore)
	s.Speed = posInf()
	got, err := sim.Decode(s.Encode())
	if err != nil {
		t.Fatalf("Decode = %v", err)
	}
	if got.Speed != 0 {
		t.Errorf("Speed = %v after an infinite speed was encoded, want 0", got.Speed)
	}
}

func posInf() float64 { var z float64; return 1 / z }

func TestEncodeDecodeNewFields(t *testing.T) {
	s := sim.Scenario{V: sim.Version, Primitive: sim.Keyed, Seed: 9, Limit: 500,
		Bursts: []sim.Burst{
			{Count: 40, MinMS: 10, MaxMS: 90, Levels: []int{5, -3, 100}, KeyNames: []string{"eu-west", "us-east", "東京"}},
			{AtMS: 50, Count: 5, MinMS: 10, MaxMS: 20, Keys: 3},
		}}
	text := s.Encode()
	got, err := sim.Decode(text)
	if err != nil {
		t.Fatalf("Decode = %v", err)
	}
	if !reflect.DeepEqual(got, s) {
		t.Errorf("Decode(Encode(s)) = %+v, want %+v", got, s)
	}
	// Empty lists, as a hand-written link may carry, decode as no list.
	got, err = sim.Decode(pack(`{"v":1,"primitive":"keyed","seed":9,"limit":0,"bursts":[{"count":1,"minMs":1,"maxMs":1,"keys":2,"levels":[],"keyNames":[]}]}`))
	if err != nil {
		t.Fatalf("Decode = %v", err)
	}
	if b := got.Bursts[0]; b.Levels != nil || b.KeyNames != nil {
		t.Errorf("Decode gave levels %#v and key names %#v, want nil and nil", b.Levels, b.KeyNames)
	}
}

func TestOldLinksDecodeAsBefore(t *testing.T) {
	// A link written before bursts could list levels and key names, and
	// before limits above 64, decodes to the scenario it always did.
	old := pack(`{"v":1,"primitive":"keyed","seed":4,"limit":0,"idleMs":1000,"colorBy":"key","speed":1,` +
		`"bursts":[{"count":12,"minMs":200,"maxMs":500,"priority":{"normal":1,"high":1},"keys":4}]}`)
	got, err := sim.Decode(old)
	if err != nil {
		t.Fatalf("Decode = %v", err)
	}
	want := sim.Scenario{V: sim.Version, Primitive: sim.Keyed, Seed: 4, IdleMS: 1000, ColorBy: "key", Speed: 1,
		Bursts: []sim.Burst{{Count: 12, MinMS: 200, MaxMS: 500, Priority: sim.PriorityMix{Normal: 1, High: 1}, Keys: 4}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Decode = %+v, want %+v", got, want)
	}
}

func TestOldConsumeLinksDecodeAsBefore(t *testing.T) {
	// A consume link written before work queues could share a semaphore
	// decodes to the scenario it always did.
	old := pack(`{"v":2,"primitive":"consume","seed":5,"limit":4,"consumers":[{"concurrency":3,"priority":1},{"concurrency":2}],` +
		`"bursts":[{"count":18,"minMs":300,"maxMs":900,"consumer":2}]}`)
	got, err := sim.Decode(old)
	if err != nil {
		t.Fatalf("Decode = %v", err)
	}
	want := sim.Scenario{V: sim.Version, Primitive: sim.Consume, Seed: 5, Limit: 4,
		Consumers: []sim.Consumer{{Concurrency: 3, Priority: 1}, {Concurrency: 2}},
		Bursts:    []sim.Burst{{Count: 18, MinMS: 300, MaxMS: 900, Consumer: 2}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Decode = %+v, want %+v", got, want)
	}
}

func TestSharedLinkRoundTrip(t *testing.T) {
	s := sim.Scenario{V: sim.Version, Primitive: sim.Shared, Seed: 9, Limit: 3, Capacity: 5,
		Consumers: []sim.Consumer{{Concurrency: 3}, {Concurrency: 2, Priority: 1}, {Concurrency: 1, Priority: -4}},
		Bursts:    []sim.Burst{{Count: 4, MinMS: 10, MaxMS: 20, Consumer: 3}, {AtMS: 5, Count: 2, MinMS: 1, MaxMS: 2}},
		Actions:   []sim.Action{{AtMS: 30, Do: sim.ActionLimit, N: 1}, {AtMS: 40, Do: sim.ActionDrain}},
		Log: []sim.Step{{Seq: 1, AtMS: 7, Do: sim.StepBurst, Burst: &sim.Burst{Count: 1, MinMS: 3, MaxMS: 3, Consumer: 2}},
			{Seq: 2, AtMS: 8, Do: sim.ActionLimit, N: 4}}}
	got, err := sim.Decode(s.Encode())
	if err != nil {
		t.Fatalf("Decode = %v", err)
	}
	if !reflect.DeepEqual(got, s) {
		t.Errorf("Decode(Encode(s)) = %+v, want %+v", got, s)
	}
	s.Log[0].Burst.Consumer = 4
	if _, err := sim.Decode(s.Encode()); err == nil || !strings.Contains(err.Error(), "log entry 1: it is sent to queue 4, but there are only 3") {
		t.Errorf("Decode of a log burst sent to a missing queue = %v, want it to say so", err)
	}
}

// TestDecodeFriendlyJSONErrors opens links whose JSON has values of the
// wrong kind: the problem names the field and what belongs there, in
// words, without Go's type names or "json:".
func TestDecodeFriendlyJSONErrors(t *testing.T) {
	for _, tc := range []struct{ js, want string }{
		{`{"v":2,"primitive":"workqueue","seed":-5,"limit":1}`, "the field seed holds the number -5, where a whole number from 0 up belongs"},
		{`{"v":2,"primitive":"workqueue","limit":"three"}`, "the field limit holds a string, where a whole number belongs"},
		{`{"v":2,"primitive":"workqueue","limit":1,"bursts":[{"count":1.5,"minMs":1,"maxMs":1}]}`, "the field bursts.count holds the number 1.5, where a whole number belongs"},
		{`{"v":2,"primitive":"workqueue","limit":1,"color":"red"}`, `it has a field "color" that this playground does not know`},
	} {
		_, err := sim.Decode(pack(tc.js))
		if err == nil {
			t.Errorf("Decode(%s) accepted it", tc.js)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, tc.want) || strings.Contains(msg, "json:") || strings.Contains(msg, "uint64") || strings.Contains(msg, "Go struct") {
			t.Errorf("Decode(%s) = %q, want it to say %q, without Go's words", tc.js, msg, tc.want)
		}
	}
}

// TestEncodeAllocatesLittle encodes a comparison's two scenarios and the
// comparison itself again and again, as the page does at each panel
// update: the text already written is not compressed again, and a new
// one reuses the compressor (a new DEFLATE compressor allocates about a
// megabyte, which the page's garbage collector then pays for in its
// frames).
func TestEncodeAllocatesLittle(t *testing.T) {
	ps := sim.ComparePresets()[0]
	c, err := sim.Compare(ps.Scenario, *ps.Compare)
	if err != nil {
		t.Fatal(err)
	}
	want := [3]string{c.A.Encode(), c.B.Encode(), c.Encode()}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const n = 50
	for i := range n {
		c.A.Seed = uint64(i % 2) // a new scenario every other time
		got := [3]string{c.A.Encode(), c.B.Encode(), c.Encode()}
		if i%2 == 1 && got[1] != want[1] {
			t.Fatalf("Encode wrote %q, then %q", want[1], got[1])
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / (3 * n); per > 64<<10 {
		t.Errorf("an Encode allocates %d KB, want under 64 KB", per>>10)
	}
	c.A.Seed = ps.Scenario.Seed
	if got := c.A.Encode(); got != want[0] {
		t.Errorf("Encode wrote %q, then %q", want[0], got)
	}
}
