package sim

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"sync"
)

// Limits on what Decode reads, so that a hostile link cannot make the page
// do much work: a link's text, and the JSON it unpacks to.
const (
	MaxLinkLen = 32 << 10 // characters of base64url text: room for MaxKeyBytes of key names that do not compress
	MaxJSONLen = 64 << 10 // bytes of JSON once inflated
)

// LinkPrefix is what precedes an encoded scenario in a playground URL's
// hash.
const LinkPrefix = "#s="

// Encode returns the scenario as compact text for a link's hash (after
// [LinkPrefix]): its JSON, compressed with raw DEFLATE, in base64url
// without padding. It does not validate the scenario; a NaN or infinite
// Speed is written as 0. It does not fail.
func (s Scenario) Encode() string {
	if math.IsNaN(s.Speed) || math.IsInf(s.Speed, 0) {
		s.Speed = 0
	}
	js, err := json.Marshal(s)
	if err != nil {
		panic("sim: Scenario.Encode: " + err.Error()) // unreachable: every field encodes
	}
	return pack(js)
}

// packs keeps the texts pack wrote last, and its compressor: the
// playground writes its link at each panel update, and its scenarios
// change far less often; a new DEFLATE compressor at best compression
// allocates about a megabyte.
var packs struct {
	sync.Mutex
	js, text [4]string
	next     int
	zw       *flate.Writer
	buf      bytes.Buffer
}

// pack returns js compressed with raw DEFLATE, in base64url without
// padding: the text of a link. It blocks only on other packs.
func pack(js []byte) string {
	packs.Lock()
	defer packs.Unlock()
	for i, in := range packs.js {
		if in == string(js) && in != "" {
			return packs.text[i]
		}
	}
	packs.buf.Reset()
	if packs.zw == nil {
		packs.zw, _ = flate.NewWriter(&packs.buf, flate.BestCompression) // the level is valid
	} else {
		packs.zw.Reset(&packs.buf)
	}
	packs.zw.Write(js) // a bytes.Buffer does not fail
	packs.zw.Close()
	text := base64.RawURLEncoding.EncodeToString(packs.buf.Bytes())
	packs.js[packs.next], packs.text[packs.next] = string(js), text
	packs.next = (packs.next + 1) % len(packs.js)
	return text
}

// Decode reads a scenario written by [Scenario.Encode], with or without
// [LinkPrefix] in front, migrating it from an older format version. It
// returns an error a person can read when the text is too long, is not
// base64url, does not inflate, inflates to more than MaxJSONLen bytes, is
// not a scenario's JSON, comes from a newer version of the playground, or
// describes a scenario that [Scenario.Validate] refuses (the error then
// wraps the *InvalidError). It does not block.
func Decode(text string) (Scenario, error) {
	js, err := unpack(strings.TrimPrefix(text, LinkPrefix), "scenario", "s", MaxJSONLen, "any scenario needs")
	if err != nil {
		return Scenario{}, err
	}
	return decodeJSON(js)
}

// unpack reads the JSON of a link's text, what it carries ("scenario"),
// after #<key>=: base64url, deflated, at most limit bytes once inflated
// (more than what needs).
func unpack(text, what, key string, limit int, needs string) ([]byte, error) {
	if len(text) > MaxLinkLen {
		return nil, fmt.Errorf("the link is too long: its %s has %s characters, and a playground link has at most %s", what, num(len(text)), num(MaxLinkLen))
	}
	if text == "" {
		return nil, fmt.Errorf("the link carries no %s: nothing follows #%s=", what, key)
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(text, "="))
	if err != nil {
		return nil, fmt.Errorf("the link is damaged: its %s is not base64url text (%v); was it cut short when copied?", what, err)
	}
	js, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(raw)), int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("the link is damaged: its %s does not unpack (%v); was it cut short when copied?", what, err)
	}
	if len(js) > limit {
		return nil, fmt.Errorf("the link's %s unpacks to more than %d KiB, far more than %s; it was not made by the playground", what, limit>>10, needs)
	}
	return js, nil
}

// decodeJSON reads a scenario's JSON as Decode does once the link's text
// is unpacked: it checks the version, migrates, decodes and validates.
func decodeJSON(js []byte) (Scenario, error) {
	var head struct {
		V *int `json:"v"`
	}
	// Unmarshal also refuses anything after the JSON value.
	if err := json.Unmarshal(js, &head); err != nil {
		return Scenario{}, fmt.Errorf("the link's scenario is not a scenario's JSON: %s", jsonProblem(err))
	}
	switch {
	case head.V == nil:
		return Scenario{}, errors.New("the link's scenario has no format version (v); it was not made by the playground")
	case *head.V > Version:
		return Scenario{}, fmt.Errorf("the link was made by a newer playground (scenario version %d); this one reads versions up to %d: reload the page to update it", *head.V, Version)
	case *head.V < 1:
		return Scenario{}, fmt.Errorf("the link's scenario has format version %d, which no playground ever wrote", *head.V)
	}
	js, err := migrate(js, *head.V)
	if err != nil {
		return Scenario{}, err
	}
	var s Scenario
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Scenario{}, fmt.Errorf("the link's scenario does not fit this playground's format: %s", jsonProblem(err))
	}
	s.normalize()
	if err := s.Validate(); err != nil {
		return Scenario{}, fmt.Errorf("the link's scenario cannot run: %w", err)
	}
	return s, nil
}

// migrations turns the JSON of version v (the index) into that of version
// v+1, so that old links replay as they did.
var migrations = map[int]func(js []byte) ([]byte, error){
	// Version 1 kept a person's bursts and actions in Bursts and Actions,
	// scheduled at the start of the run: bursts (by time) before actions
	// at the same instant, both before the events of tasks. Version 2
	// keeps that meaning for Bursts and Actions and adds the log, so a
	// version-1 scenario is a version-2 one with an empty log.
	1: func(js []byte) ([]byte, error) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(js, &m); err != nil {
			return nil, err
		}
		if _, ok := m["log"]; ok {
			return nil, errors.New("a version-1 scenario has no log")
		}
		m["v"] = json.RawMessage("2")
		return json.Marshal(m)
	},
}

// migrate brings js, of format version v, to Version.
func migrate(js []byte, v int) ([]byte, error) {
	for ; v < Version; v++ {
		m := migrations[v]
		if m == nil {
			return nil, fmt.Errorf("the link's scenario has format version %d, which this playground cannot read", v)
		}
		var err error
		if js, err = m(js); err != nil {
			return nil, fmt.Errorf("the link's scenario (version %d) could not be brought up to date: %v", v, err)
		}
	}
	return js, nil
}

// normalize makes empty lists nil, so that a decoded scenario equals the
// one it was encoded from.
func (s *Scenario) normalize() {
	if len(s.Consumers) == 0 {
		s.Consumers = nil
	}
	if len(s.Bursts) == 0 {
		s.Bursts = nil
	}
	if len(s.Actions) == 0 {
		s.Actions = nil
	}
	if len(s.Log) == 0 {
		s.Log = nil
	}
	fix := func(b *Burst) {
		if len(b.Levels) == 0 {
			b.Levels = nil
		}
		if len(b.KeyNames) == 0 {
			b.KeyNames = nil
		}
	}
	for i := range s.Bursts {
		fix(&s.Bursts[i])
	}
	for _, st := range s.Log {
		if st.Burst != nil {
			fix(st.Burst)
		}
	}
}

// jsonProblem says what is wrong with a scenario's JSON in words a person
// reads, without Go's type names: "the field bursts.count holds the
// number -5, where a whole number from 0 up belongs".
func jsonProblem(err error) string {
	var typ *json.UnmarshalTypeError
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &typ):
		want := "a value of another kind"
		switch typ.Type.Kind() {
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			want = "a whole number from 0 up"
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			want = "a whole number"
		case reflect.Float32, reflect.Float64:
			want = "a number"
		case reflect.String:
			want = "text"
		case reflect.Bool:
			want = "true or false"
		case reflect.Slice, reflect.Array:
			want = "a list"
		case reflect.Struct, reflect.Map, reflect.Pointer:
			want = "an object"
		}
		what := typ.Value
		if what == "number" {
			what = "a number out of range or with a fraction"
		}
		if typ.Field == "" {
			return fmt.Sprintf("it holds %s where %s belongs", what, want)
		}
		return fmt.Sprintf("the field %s holds %s, where %s belongs", typ.Field, article(what), want)
	case errors.As(err, &syn):
		return fmt.Sprintf("it is not valid JSON at byte %d (%v)", syn.Offset, syn)
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return "it has a field " + name + " that this playground does not know"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// article puts "a" or "an" before what json names a value's kind
// ("number -5", "string", "object").
func article(what string) string {
	switch {
	case strings.HasPrefix(what, "a "), strings.HasPrefix(what, "an "):
		return what
	case strings.HasPrefix(what, "number "):
		return "the " + what
	case strings.HasPrefix(what, "o"), strings.HasPrefix(what, "a"):
		return "an " + what
	}
	return "a " + what
}
