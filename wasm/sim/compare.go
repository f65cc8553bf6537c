package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"sluice/core"
)

// Comparison is two runs of the same work: run A, a scenario, and run B,
// the same scenario with one or more of its settings changed (the limit
// or parallelism, aging, capacity, the groups' sizes and priorities, the
// shared limit, the primitive itself). The same work means the same seed,
// the same bursts, the same scripted actions and the same log of a
// person's actions, at the same virtual times: B draws the same tasks as
// A, and [Comparison.Validate] refuses a B that would not.
//
// A comparison is what a comparison link carries (see
// [Comparison.Encode]); the playground runs A and B side by side on one
// virtual clock.
type Comparison struct {
	A Scenario `json:"a"`
	B Scenario `json:"b"`
}

// Change is the settings run B changes in run A's scenario; a nil field
// (or an empty one) keeps A's.
type Change struct {
	Primitive string     `json:"primitive,omitempty"` // another primitive that fits the work
	Limit     *int       `json:"limit,omitempty"`     // limit, parallelism or shared limit (Scenario.Limit)
	AgingMS   *int       `json:"agingMs,omitempty"`   // the semaphore's aging step; 0: off
	Capacity  *int       `json:"capacity,omitempty"`  // pending tasks held; 0: unbounded
	Groups    []Consumer `json:"groups,omitempty"`    // each consumer's or queue's size and priority
}

// Int returns a pointer to n, for a Change's fields.
func Int(n int) *int { return &n }

// Compare returns the comparison of a with a's scenario changed by ch,
// and the comparison's problems (see [Comparison.Validate]) when B cannot
// run the same work or changes nothing.
func Compare(a Scenario, ch Change) (Comparison, error) {
	b := a.clone()
	b.Consumers = slices.Clone(a.Consumers)
	if ch.Primitive != "" {
		b.Primitive = ch.Primitive
	}
	if ch.Limit != nil {
		b.Limit = *ch.Limit
	}
	if ch.AgingMS != nil {
		b.AgingMS = *ch.AgingMS
	}
	if ch.Capacity != nil {
		b.Capacity = *ch.Capacity
	}
	if ch.Groups != nil {
		b.Consumers = slices.Clone(ch.Groups)
	}
	c := Comparison{A: a.clone(), B: b}
	c.A.Consumers = slices.Clone(a.Consumers)
	return c, c.Validate()
}

// Validate reports whether the comparison can run: both scenarios run on
// their own, B runs the same work as A (same seed, bursts, actions and
// log; log entries may differ in Fired, the count of each run's own
// events before them, and each run has its own pause and step marks and
// its own cancels of single tasks, a what-if of that run), B's primitive
// takes the same work (the same kind of tasks: keyed or not, sent to
// groups or not, with weights only where B reads them, and as many
// groups), and B changes at least one setting.
// It returns an *InvalidError whose problems name the run they are
// about: "run B: ...". It does not change the comparison.
func (c Comparison) Validate() error {
	var v validator
	for _, r := range []struct {
		name string
		sc   Scenario
	}{{"run A", c.A}, {"run B", c.B}} {
		if err := r.sc.Validate(); err != nil {
			var inv *InvalidError
			if errors.As(err, &inv) {
				for _, p := range inv.Problems {
					v.addf("%s: %s", r.name, p)
				}
			} else {
				v.addf("%s: %v", r.name, err)
			}
		}
	}
	ka, kb := KindOf(c.A.Primitive), KindOf(c.B.Primitive)
	if ka != nil && kb != nil {
		for _, p := range fitProblems(ka, kb, c.A) {
			v.addf("run B: %s", p)
		}
		if ka.HasGroups() && kb.HasGroups() && len(c.A.Consumers) != len(c.B.Consumers) {
			v.addf("run B: it has %d %ss and run A %d; the same work is sent to the same groups, so keep their number and change their sizes or priorities",
				len(c.B.Consumers), kb.groupNoun(), len(c.A.Consumers))
		}
	}
	if c.A.Seed != c.B.Seed {
		v.addf("run B: its seed is %d and run A's %d; the same seed draws the same tasks", c.B.Seed, c.A.Seed)
	}
	if !sameJSON(c.A.Bursts, c.B.Bursts) {
		v.addf("run B: its bursts differ from run A's; a comparison runs the same work")
	}
	if !sameJSON(c.A.Actions, c.B.Actions) {
		v.addf("run B: its scripted actions differ from run A's; a comparison runs the same work")
	}
	if !sameLog(c.A.Log, c.B.Log) {
		v.addf("run B: its log of added work and clicks differs from run A's; a comparison runs the same work")
	}
	if len(v.problems) == 0 && len(c.Changes()) == 0 {
		v.addf("run B is the same as run A: change at least one setting (the limit or parallelism, aging, capacity, the groups' sizes or priorities, or the primitive)")
	}
	return v.err()
}

// fitProblems says why the work of a, a scenario of primitive ka, does not
// fit primitive kb, as the primitives' descriptors tell: the same kind of
// tasks (keyed or not, sent to groups or not) and no weights that kb does
// not read. Nothing when ka is kb.
func fitProblems(ka, kb *Kind, a Scenario) []string {
	if ka == kb {
		return nil
	}
	var ps []string
	switch {
	case ka.Keys != kb.Keys:
		ps = append(ps, fmt.Sprintf("the work of a %s does not fit a %s: one gives each task a key and the other does not, so they would draw different tasks", ka.Noun, kb.Noun))
	case ka.HasGroups() != kb.HasGroups():
		ps = append(ps, fmt.Sprintf("the work of a %s does not fit a %s: one sends each task to a group (a consumer or a queue) and the other does not", ka.Noun, kb.Noun))
	}
	if ka.Weights && !kb.Weights {
		for _, b := range a.AllBursts() {
			if b.Weight > 1 {
				ps = append(ps, fmt.Sprintf("run A's tasks hold up to %d tokens each, and a %s has no weights: the work would not be the same", b.Weight, kb.Noun))
				break
			}
		}
	}
	return ps
}

// Fits reports whether primitive b can run the same work as scenario a.
func Fits(a Scenario, b string) bool {
	ka, kb := KindOf(a.Primitive), KindOf(b)
	return ka != nil && kb != nil && len(fitProblems(ka, kb, a)) == 0
}

// sameJSON reports whether a and b write the same JSON.
func sameJSON(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// sameLog reports whether two logs hold the same entries, each run's own
// entries aside (StepPause and StepStep, which change nothing in a run,
// and which each run records at its own events; StepCancel, one task
// canceled in one run, a what-if of that run alone) and each entry's
// Seq and Fired (its number in its own log, and the count of its own
// run's events before it).
func sameLog(a, b []Step) bool {
	acts := func(log []Step) []Step {
		var out []Step
		for _, st := range log {
			if st.Do != StepPause && st.Do != StepStep && st.Do != StepCancel {
				st.Seq, st.Fired = 0, 0
				out = append(out, st)
			}
		}
		return out
	}
	return sameJSON(acts(a), acts(b))
}

// Changes lists the settings B changes, as a person reads them:
// "Parallelism: 2 → 4", "Aging: off → 1s".
func (c Comparison) Changes() []string {
	a, b := c.A, c.B
	ka, kb := KindOf(a.Primitive), KindOf(b.Primitive)
	var out []string
	add := func(what, from, to string) { out = changed(out, what, from, to) }
	add("Primitive", title(ka, a.Primitive), title(kb, b.Primitive))
	label := "Limit"
	if kb != nil {
		label = kb.LimitLabel
	}
	add(label, num(a.Limit), num(b.Limit))
	add("Aging", offOr(a.AgingMS), offOr(b.AgingMS))
	add("Capacity", unbounded(a.Capacity), unbounded(b.Capacity))
	add("Idle timeout", clockText(a.IdleMS), clockText(b.IdleMS))
	if kb != nil && kb.HasGroups() {
		for i := range max(len(a.Consumers), len(b.Consumers)) {
			var x, y Consumer
			if i < len(a.Consumers) {
				x = a.Consumers[i]
			}
			if i < len(b.Consumers) {
				y = b.Consumers[i]
			}
			name := kb.GroupName(i)
			add(name+" "+kb.groupSize(), num(x.Concurrency), num(y.Concurrency))
			add(name+" priority", priorityName(core.Priority(x.Priority)), priorityName(core.Priority(y.Priority)))
		}
	}
	return out
}

// changed appends "what: from → to" to out when from and to differ.
//
//go:noinline
func changed(out []string, what, from, to string) []string {
	if from == to {
		return out
	}
	return append(out, what+": "+from+" → "+to)
}

func title(k *Kind, id string) string {
	if k == nil {
		return id
	}
	return k.Title
}

func offOr(n int) string {
	if n == 0 {
		return "off"
	}
	return clockText(n)
}

func unbounded(n int) string {
	if n == 0 {
		return "unbounded"
	}
	return num(n)
}

// ComparePrefix is what precedes an encoded comparison in a playground
// URL's hash, where a single scenario has [LinkPrefix].
const ComparePrefix = "#c="

// Encode returns the comparison as compact text for a link's hash (after
// [ComparePrefix]): {"v":Version,"a":A,"b":B} compressed and written as
// [Scenario.Encode] writes one scenario. B repeats most of A, which the
// compression takes nearly for free.
func (c Comparison) Encode() string {
	js, err := json.Marshal(struct {
		V int `json:"v"`
		Comparison
	}{Version, c})
	if err != nil {
		panic("sim: Comparison.Encode: " + err.Error()) // unreachable
	}
	return pack(js)
}

// DecodeComparison reads a comparison written by [Comparison.Encode], with
// or without [ComparePrefix] in front. Each run's scenario is read as
// [Decode] reads one, older format versions migrated, and the comparison
// is validated; the error names the run it is about. It does not block.
func DecodeComparison(text string) (Comparison, error) {
	text = strings.TrimPrefix(text, ComparePrefix)
	if i := strings.IndexByte(text, '&'); i >= 0 {
		text = text[:i] // more parameters may follow in the hash
	}
	js, err := unpack(text, "comparison", "c", 2*MaxJSONLen, "two scenarios need")
	if err != nil {
		return Comparison{}, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(js, &m); err != nil {
		return Comparison{}, fmt.Errorf("the link's comparison is not a comparison's JSON: %s", jsonProblem(err))
	}
	for k := range m {
		if k != "v" && k != "a" && k != "b" {
			return Comparison{}, fmt.Errorf("the link's comparison has a field %q that this playground does not know", truncateUTF8(k, 20))
		}
	}
	var v *int
	if err := json.Unmarshal(m["v"], &v); m["v"] == nil || err != nil || v == nil {
		return Comparison{}, errors.New("the link's comparison has no format version (v); it was not made by the playground")
	}
	if *v > Version {
		return Comparison{}, fmt.Errorf("the link was made by a newer playground (scenario version %d); this one reads versions up to %d: reload the page to update it", *v, Version)
	}
	var c Comparison
	for _, r := range []struct {
		name string
		js   json.RawMessage
		to   *Scenario
	}{{"run A", m["a"], &c.A}, {"run B", m["b"], &c.B}} {
		if len(r.js) == 0 {
			return Comparison{}, fmt.Errorf("the link's comparison has no %s", r.name)
		}
		s, err := decodeJSON(r.js)
		if err != nil {
			return Comparison{}, fmt.Errorf("%s: %w", r.name, err)
		}
		*r.to = s
	}
	if err := c.Validate(); err != nil {
		return Comparison{}, fmt.Errorf("the link's comparison cannot run: %w", err)
	}
	return c, nil
}

// NextEvent returns the virtual time of the run's next event: its clock's
// next timer, or the next entry of its log to replay, whichever comes
// first; false when nothing is pending. A comparison steps its two runs to
// the earlier of their next events, so that they stay on one clock.
func (r *Runner) NextEvent() (time.Duration, bool) {
	next, ok := r.clock.Next()
	at := next.Sub(Epoch)
	if st, logged := r.nextStep(); logged && (!ok || ms(st.AtMS) < at) {
		return ms(st.AtMS), true
	}
	return at, ok
}
