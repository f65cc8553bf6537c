package sim

import (
	"bytes"
	"encoding/json"
)

// Memo keeps what was made of the latest scenario it was given (its link,
// its Go program) and makes it again only when the scenario changed: a
// page that renders many times a second asks for the same scenario's
// link and program far more often than the scenario changes. The
// scenario is compared by its JSON, which costs a small part of what
// [Scenario.Encode] (DEFLATE at its best compression) or
// [Scenario.GoCode] cost. The zero Memo is ready to use; it is not safe
// for concurrent use.
type Memo[T any] struct {
	js  []byte
	val T
	ok  bool
}

// Get returns make(s), made again only when s is not the scenario of the
// previous call.
func (m *Memo[T]) Get(s Scenario, make func(Scenario) T) T {
	js, err := json.Marshal(s)
	if err != nil || !m.ok || !bytes.Equal(js, m.js) {
		m.val, m.ok = make(s), err == nil
		m.js = js
	}
	return m.val
}
