package sim

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Version is the scenario format this package writes. [Decode] reads it and
// every older version, and refuses newer ones.
//
// Version 2 added [Scenario.Log], the ordered log of what a person did.
// Version 1 had no log: a person's bursts and actions were put in Bursts
// and Actions, which keep their meaning in version 2, so that a version-1
// link replays as it always did.
const Version = 2

// The primitives a scenario can run.
const (
	Semaphore = "semaphore" // core.Semaphore; tasks run in Semaphore.Do
	WorkQueue = "workqueue" // core.WorkQueue
	Processor = "processor" // core.Processor
	Keyed     = "keyed"     // core.KeyedQueue, one lane per key
	Consume   = "consume"   // core.Consume: consumers sharing one core.Semaphore
	Shared    = "shared"    // core.WorkQueues sharing one core.Semaphore (WithSemaphore)
)

// Primitives lists the primitive names in the order the playground offers
// them.
var Primitives = []string{Semaphore, WorkQueue, Processor, Keyed, Consume, Shared}

// What the bursts' outcome mix picks from.
const (
	OutcomeOK    Outcome = "ok"    // the task sleeps its duration and returns nil
	OutcomeFail  Outcome = "fail"  // it sleeps, then returns an error
	OutcomePanic Outcome = "panic" // it sleeps, then panics
	OutcomeSlow  Outcome = "slow"  // it sleeps five times its duration, then returns nil
)

// Outcome is what a task does once it has slept its duration.
type Outcome string

// SlowFactor is how many times longer a slow task sleeps.
const SlowFactor = 5

// Bounds that keep a browser tab responsive. [Scenario.Validate] enforces
// them, and [Runner.Submit] enforces MaxTasks over a whole run.
const (
	MaxLimit       = MaxTasks  // limit, parallelism, shared semaphore tokens, task weight: a run never has more tasks to run at once
	MaxTasks       = 10_000    // tasks in a burst, in a scenario and in a run
	MaxBursts      = 100       // bursts in a scenario
	MaxActions     = 100       // scripted actions in a scenario
	MaxLog         = 500       // entries of a scenario's log
	MaxConsumers   = 8         // consumers sharing the semaphore
	MaxConcurrency = MaxTasks  // one consumer's concurrency, for the same reason as MaxLimit
	MaxKeys        = 1_000     // keys in a burst's key set, counted or named
	MaxKeyLen      = 64        // bytes of one key name
	MaxKeyBytes    = 16 << 10  // bytes of every key name of a scenario's bursts together, so that a link can carry them
	MaxLevels      = 16        // priority levels in a burst's list
	MaxCapacity    = 10_000    // pending tasks a work queue or processor holds, or a keyed queue per key
	MaxMix         = 1_000     // one weight of a priority or outcome mix
	MaxDurationMS  = 600_000   // a task's longest duration, 10 minutes
	MaxOffsetMS    = 3_600_000 // latest burst or action, and longest cancel-after: 1 hour
	MaxAgingMS     = 600_000   // semaphore aging step
	MaxIdleMS      = 600_000   // keyed queue idle timeout
)

// Scenario is the whole state of a playground view: which primitive, how it
// is configured, and the work to run through it. It is what a link carries
// (see [Scenario.Encode]). Durations and offsets are in milliseconds of
// virtual time. Fields that the chosen primitive does not read are kept but
// ignored, so that switching primitive keeps the rest of the view.
type Scenario struct {
	V         int    `json:"v"`         // format version; Version when made by this package
	Primitive string `json:"primitive"` // one of Primitives
	// Seed makes the run reproducible: every random choice (priorities,
	// durations, outcomes, keys) is drawn from math/rand/v2 seeded with it.
	Seed uint64 `json:"seed"`
	// Limit is the semaphore's tokens, the work queue's or processor's
	// parallelism (1..10,000), the keyed queue's parallelism across keys
	// (0..10,000, 0: no limit), or the tokens of the semaphore consumers
	// or work queues share (1..10,000). A run holds at most MaxTasks tasks, so a larger
	// limit would behave like MaxLimit.
	Limit     int        `json:"limit"`
	AgingMS   int        `json:"agingMs,omitempty"`   // semaphore: WithAging step; 0: no aging
	Capacity  int        `json:"capacity,omitempty"`  // work queue, processor, keyed (per key), shared (per queue): WithCapacity; 0: unbounded
	IdleMS    int        `json:"idleMs,omitempty"`    // keyed: WithIdleTimeout; 0: core's default (30 s)
	Consumers []Consumer `json:"consumers,omitempty"` // consume: 1..8 consumers; shared: 1..8 work queues
	ColorBy   string     `json:"colorBy,omitempty"`   // "priority" (the default) or "key"
	Speed     float64    `json:"speed,omitempty"`     // playback speed, 0.1..10; 0: 1
	Bursts    []Burst    `json:"bursts,omitempty"`    // work, in any order of At
	Actions   []Action   `json:"actions,omitempty"`   // scripted changes, in any order of At
	// Log is what a person did to the run, in the order they did it (see
	// [Step]): it replays after the scripted Bursts and Actions are set,
	// each entry at the very point of the run it was taken at.
	Log []Step `json:"log,omitempty"`
}

// Consumer is one of the consumers that share a semaphore in a "consume"
// scenario, or one of the work queues that share a semaphore in a
// "shared" scenario. Its name is "consumer-N" or "queue-N" (see
// [LaneGroupName]), N counting from 1 in list order.
type Consumer struct {
	// Concurrency is the consumer's core.WithConcurrency, or the work
	// queue's parallelism (core.NewWorkQueue's first argument): 1..10,000.
	Concurrency int `json:"concurrency"`
	// Priority is its requests' priority on the shared semaphore, and for
	// a work queue its tasks' priority too: any int (-1 Low, 0 Normal, 1 High).
	Priority int `json:"priority,omitempty"`
}

// Burst is a batch of tasks submitted together at virtual offset At. Each
// task's priority, duration, outcome and key are drawn from the scenario's
// seeded random source.
type Burst struct {
	AtMS  int `json:"at,omitempty"` // when, since the run started
	Count int `json:"count"`        // 1..10,000 tasks
	// Each task sleeps a duration drawn uniformly from MinMS..MaxMS
	// (1 ms..10 min), SlowFactor times that if its outcome is slow.
	MinMS int `json:"minMs"`
	MaxMS int `json:"maxMs"`
	// Priority orders the semaphore's waiters and the work queue's and
	// processor's pending tasks; the keyed queue runs each key in
	// submission order whatever the priority, and a consumer's messages
	// take their consumer's priority.
	Priority PriorityMix `json:"priority,omitzero"` // all Normal when zero
	// Levels, when not empty, replaces the mix: each task gets one of
	// these priorities (any ints, 1..16 of them, each once) at random, with
	// equal chances. Priority must then be zero.
	Levels  []int      `json:"levels,omitempty"`
	Outcome OutcomeMix `json:"outcome,omitzero"` // all OK when zero
	// Keys is the key set of a keyed burst: each task gets one of
	// "device-1".."device-N" at random. A keyed burst needs it (1..1,000)
	// or KeyNames, not both.
	Keys int `json:"keys,omitempty"`
	// KeyNames, when not empty, is the key set of a keyed burst by name:
	// each task gets one of them at random. 1..1,000 distinct names of
	// 1..64 bytes of UTF-8 text, without control characters or spaces at
	// either end; a scenario's names add up to at most MaxKeyBytes.
	KeyNames []string `json:"keyNames,omitempty"`
	// Weight is how many semaphore tokens each task holds (1..limit); 0
	// means 1. Read by the semaphore only.
	Weight int `json:"weight,omitempty"`
	// Consumer sends the whole burst to one consumer (or, for shared, one
	// work queue), counting from 1; 0 spreads it over them in turn. Read
	// by consume and shared only.
	Consumer int `json:"consumer,omitempty"`
	// CancelAfterMS cancels each task of the burst this long after it is
	// submitted, whether it is still waiting or already running; 0 never.
	CancelAfterMS int `json:"cancelAfterMs,omitempty"`
}

// PriorityMix gives the relative weights of the priorities drawn for a
// burst's tasks: with {Normal: 3, High: 1}, a quarter of the tasks are
// High. Each weight is 0..1,000.
type PriorityMix struct {
	Low    int `json:"low,omitempty"`
	Normal int `json:"normal,omitempty"`
	High   int `json:"high,omitempty"`
}

// OutcomeMix gives the relative weights of the outcomes drawn for a
// burst's tasks. Each weight is 0..1,000.
type OutcomeMix struct {
	OK    int `json:"ok,omitempty"`
	Fail  int `json:"fail,omitempty"`
	Panic int `json:"panic,omitempty"`
	Slow  int `json:"slow,omitempty"`
}

// The actions a scenario can script.
const (
	ActionLimit     = "limit"      // SetLimit(N)
	ActionCancelAll = "cancel-all" // CancelAll()
	ActionDrain     = "drain"      // Drain()
	ActionClose     = "close"      // Close()
)

// Action is a change the scenario makes at virtual offset At, as if the
// person had clicked it: one of ActionLimit (with N), ActionCancelAll,
// ActionDrain and ActionClose.
type Action struct {
	AtMS int    `json:"at,omitempty"`
	Do   string `json:"do"`
	N    int    `json:"n,omitempty"`
}

// The kinds of a log entry: the actions of [Action], and these.
const (
	StepBurst  = "burst"  // a burst added by hand (Step.Burst)
	StepCancel = "cancel" // one task canceled by hand (Step.Task), as a click on its bar does
	StepPause  = "pause"  // the person paused here; it changes nothing in the run
	StepStep   = "step"   // the person stepped one event here; it changes nothing in the run
)

// Step is one entry of a scenario's log: something a person did, at
// virtual time AtMS, after Fired timers of the run's virtual clock had
// fired. Seq numbers the entries from 1 in the order they were taken.
//
// On replay, the runner fires the clock's timers until Fired of them have
// fired (never past AtMS), moves to AtMS, and performs the entry; entries
// taken at the same moment replay in order of Seq. Recording Fired, and
// not only the time, makes the replay exact even when the person acted
// between two events due at the same instant (after a Step), and puts a
// person's action after the events that had happened at its instant, as
// they had when the person acted.
type Step struct {
	Seq   int    `json:"seq"`
	AtMS  int    `json:"at,omitempty"`
	Fired int    `json:"fired,omitempty"`
	Do    string `json:"do"`              // StepBurst, StepCancel, an Action's kind, StepPause or StepStep
	N     int    `json:"n,omitempty"`     // ActionLimit: the new limit
	Task  string `json:"task,omitempty"`  // StepCancel: the task's name, "t7"
	Burst *Burst `json:"burst,omitempty"` // StepBurst: the burst; its AtMS is 0
}

// LogBursts returns the bursts of the scenario's log, in order.
func (s Scenario) LogBursts() []Burst {
	var bs []Burst
	for _, st := range s.Log {
		if st.Do == StepBurst && st.Burst != nil {
			bs = append(bs, *st.Burst)
		}
	}
	return bs
}

// AllBursts returns the scenario's bursts followed by those of its log.
func (s Scenario) AllBursts() []Burst {
	return append(slices.Clone(s.Bursts), s.LogBursts()...)
}

// InvalidError lists what is wrong with a scenario, one sentence per
// problem, in an order a person can fix them in.
type InvalidError struct {
	Problems []string
}

func (e *InvalidError) Error() string {
	if len(e.Problems) == 1 {
		return e.Problems[0]
	}
	return strings.Join(e.Problems, "; ")
}

// Validate reports whether the scenario can run, and if not returns an
// *InvalidError naming every problem in words a person can act on, such as
// "burst 2: a burst can hold at most 10,000 tasks; this one asks for
// 50,000". It does not change the scenario.
func (s Scenario) Validate() error {
	var v validator
	if s.V != Version {
		v.addf("the scenario format version (v) is %d; this playground runs version %d", s.V, Version)
	}
	k := KindOf(s.Primitive)
	var ids []string
	for _, k := range kinds {
		ids = append(ids, k.ID)
	}
	switch {
	case k != nil:
		k.problems(s, &v)
	case s.Primitive == "":
		v.addf("no primitive chosen: choose one of %s", strings.Join(ids, ", "))
	default:
		v.addf("unknown primitive %q: choose one of %s", s.Primitive, strings.Join(ids, ", "))
	}
	if k == nil && (s.Limit < 1 || s.Limit > MaxLimit) {
		v.addf("%s", limitProblem("limit", s.Limit, 1))
	}
	v.rangeMS("aging", s.AgingMS, 0, MaxAgingMS)
	if s.Capacity < 0 || s.Capacity > MaxCapacity {
		v.addf("capacity must be between 0 (unbounded) and %s; it is %s", num(MaxCapacity), num(s.Capacity))
	}
	v.rangeMS("the idle timeout", s.IdleMS, 0, MaxIdleMS)
	switch s.ColorBy {
	case "", "priority", "key":
	default:
		v.addf("colour-by must be \"priority\" or \"key\"; it is %q", s.ColorBy)
	}
	if s.Speed != 0 && !(s.Speed >= MinSpeed && s.Speed <= MaxSpeed) {
		v.addf("speed must be between %gx and %gx; it is %gx", MinSpeed, MaxSpeed, s.Speed)
	}
	if len(s.Bursts) > MaxBursts {
		v.addf("a scenario can hold at most %d bursts; this one has %s", MaxBursts, num(len(s.Bursts)))
	}
	total, keyBytes := 0, 0
	for i, b := range s.Bursts {
		for _, k := range b.KeyNames {
			keyBytes += len(k)
		}
		for _, p := range b.problems(s) {
			v.addf("burst %d: %s", i+1, p)
		}
		if b.Count > 0 {
			total += min(b.Count, MaxTasks+1)
		}
	}
	if len(s.Actions) > MaxActions {
		v.addf("a scenario can hold at most %d actions; this one has %s", MaxActions, num(len(s.Actions)))
	}
	for i, a := range s.Actions {
		if p := a.problem(s); p != "" {
			v.addf("action %d: %s", i+1, p)
		}
	}
	if len(s.Log) > MaxLog {
		v.addf("a scenario's log can hold at most %d entries; this one has %s", MaxLog, num(len(s.Log)))
	}
	// A burst of the log is checked against the highest limit the run
	// can have had: the limit it had when the burst replays is checked
	// by the runner.
	wide := s
	for _, a := range s.Actions {
		if a.Do == ActionLimit {
			wide.Limit = max(wide.Limit, a.N)
		}
	}
	for _, st := range s.Log {
		if st.Do == ActionLimit {
			wide.Limit = max(wide.Limit, st.N)
		}
	}
	for i, st := range s.Log {
		for _, p := range st.problems(s, wide, i) {
			v.addf("log entry %d: %s", i+1, p)
		}
		if st.Do == StepBurst && st.Burst != nil && st.Burst.Count > 0 {
			total += min(st.Burst.Count, MaxTasks+1)
			for _, k := range st.Burst.KeyNames {
				keyBytes += len(k)
			}
		}
	}
	if total > MaxTasks {
		v.addf("a scenario can hold at most %s tasks in all; its bursts ask for %s", num(MaxTasks), num(total))
	}
	if keyBytes > MaxKeyBytes {
		v.addf("the key names of a scenario's bursts can take at most %s bytes in all, so that a link can carry them; these take %s", num(MaxKeyBytes), num(keyBytes))
	}
	return v.err()
}

// problems lists what is wrong with b as a burst of s, without the burst's
// number.
func (b Burst) problems(s Scenario) []string {
	var v validator
	v.rangeMS("its time", b.AtMS, 0, MaxOffsetMS)
	switch {
	case b.Count < 1:
		v.addf("a burst needs at least one task; this one has %s", num(b.Count))
	case b.Count > MaxTasks:
		v.addf("a burst can hold at most %s tasks; this one asks for %s", num(MaxTasks), num(b.Count))
	}
	switch {
	case b.MinMS < 1 || b.MinMS > MaxDurationMS:
		v.addf("the shortest duration must be between 1 ms and %s ms; it is %s ms", num(MaxDurationMS), num(b.MinMS))
	case b.MaxMS < b.MinMS || b.MaxMS > MaxDurationMS:
		v.addf("the longest duration must be between the shortest (%s ms) and %s ms; it is %s ms", num(b.MinMS), num(MaxDurationMS), num(b.MaxMS))
	}
	switch {
	case len(b.Levels) > MaxLevels:
		v.addf("a burst can list at most %d priority levels; this one lists %s", MaxLevels, num(len(b.Levels)))
	case len(b.Levels) > 0 && b.Priority != (PriorityMix{}):
		v.addf("give either a priority mix or a list of priority levels, not both")
	default:
		for i, p := range b.Levels {
			if slices.Contains(b.Levels[:i], p) {
				v.addf("priority level %s is listed twice: list each level once", num(p))
				break
			}
		}
	}
	for _, w := range []struct {
		name string
		n    int
	}{
		{"low", b.Priority.Low}, {"normal", b.Priority.Normal}, {"high", b.Priority.High},
		{"ok", b.Outcome.OK}, {"fail", b.Outcome.Fail}, {"panic", b.Outcome.Panic}, {"slow", b.Outcome.Slow},
	} {
		if w.n < 0 || w.n > MaxMix {
			v.addf("the %s weight of a mix must be between 0 and %s; it is %s", w.name, num(MaxMix), num(w.n))
		}
	}
	switch {
	case b.Keys < 0 || b.Keys > MaxKeys:
		v.addf("the key set must have between 1 and %s keys; it has %s", num(MaxKeys), num(b.Keys))
	case b.Keys > 0 && len(b.KeyNames) > 0:
		v.addf("give either a number of keys or a list of key names, not both")
	case len(b.KeyNames) > MaxKeys:
		v.addf("a burst can name at most %s keys; this one names %s", num(MaxKeys), num(len(b.KeyNames)))
	default:
		for i, k := range b.KeyNames {
			if p := keyProblem(k); p != "" {
				v.addf("key %d %s", i+1, p)
				break
			}
			if slices.Contains(b.KeyNames[:i], k) {
				v.addf("key %q is named twice: name each key once", k)
				break
			}
		}
	}
	switch {
	case b.Weight < 0 || b.Weight > MaxLimit:
		v.addf("a task's weight must be between 1 and %s tokens; it is %s", num(MaxLimit), num(b.Weight))
	}
	if b.Consumer < 0 {
		v.addf("the consumer must be 0 (spread over all) or a consumer's number; it is %s", num(b.Consumer))
	}
	if k := KindOf(s.Primitive); k != nil {
		k.burstProblems(s, b, &v)
	}
	v.rangeMS("cancel-after", b.CancelAfterMS, 0, MaxOffsetMS)
	return v.problems
}

// problems lists what is wrong with st, entry i of s's log; wide is s
// with the highest limit its run can have.
func (st Step) problems(s, wide Scenario, i int) []string {
	var ps []string
	if st.Seq != i+1 {
		ps = append(ps, fmt.Sprintf("its sequence number must be %d; it is %s", i+1, num(st.Seq)))
	}
	if st.Fired < 0 {
		ps = append(ps, fmt.Sprintf("the count of events before it cannot be negative; it is %s", num(st.Fired)))
	}
	if i > 0 {
		prev := s.Log[i-1]
		if st.AtMS < prev.AtMS || st.Fired < prev.Fired {
			ps = append(ps, "it comes before the entry ahead of it: a log is in the order it was taken")
		}
	}
	if st.Do != StepBurst && st.Burst != nil {
		ps = append(ps, fmt.Sprintf("%q carries no burst", st.Do))
	}
	if st.Do != StepCancel && st.Task != "" {
		ps = append(ps, fmt.Sprintf("%q names no task", st.Do))
	}
	switch st.Do {
	case StepBurst:
		if st.AtMS < 0 || st.AtMS > MaxOffsetMS {
			ps = append(ps, fmt.Sprintf("its time must be between 0 and %s ms; it is %s ms", num(MaxOffsetMS), num(st.AtMS)))
		}
		switch {
		case st.Burst == nil:
			ps = append(ps, "a burst entry needs its burst")
		case st.Burst.AtMS != 0:
			ps = append(ps, "a burst of the log takes its time from the entry; its own time must be 0")
		default:
			ps = append(ps, st.Burst.problems(wide)...)
		}
		if st.N != 0 {
			ps = append(ps, fmt.Sprintf("%q takes no number; it has %s", st.Do, num(st.N)))
		}
	case StepCancel, StepPause, StepStep:
		if st.AtMS < 0 || st.AtMS > MaxOffsetMS {
			ps = append(ps, fmt.Sprintf("its time must be between 0 and %s ms; it is %s ms", num(MaxOffsetMS), num(st.AtMS)))
		}
		if st.N != 0 {
			ps = append(ps, fmt.Sprintf("%q takes no number; it has %s", st.Do, num(st.N)))
		}
		if n := taskNumber(st.Task); st.Do == StepCancel && (n < 1 || n > MaxTasks) {
			ps = append(ps, fmt.Sprintf("a cancel names a task such as \"t7\"; %q is not one", truncateUTF8(st.Task, 20)))
		}
	default:
		if p := (Action{AtMS: st.AtMS, Do: st.Do, N: st.N}).problem(s); p != "" {
			if strings.HasPrefix(p, "unknown action") {
				p = fmt.Sprintf("unknown entry %q: choose %s, %s, %s, %s, %s, %s, %s or %s", truncateUTF8(st.Do, 20),
					StepBurst, StepCancel, ActionLimit, ActionCancelAll, ActionDrain, ActionClose, StepPause, StepStep)
			}
			ps = append(ps, p)
		}
	}
	return ps
}

func (a Action) problem(s Scenario) string {
	if a.AtMS < 0 || a.AtMS > MaxOffsetMS {
		return fmt.Sprintf("its time must be between 0 and %s ms; it is %s ms", num(MaxOffsetMS), num(a.AtMS))
	}
	switch a.Do {
	case ActionCancelAll, ActionDrain, ActionClose:
		if a.N != 0 {
			return fmt.Sprintf("%q takes no number; it has %s", a.Do, num(a.N))
		}
	case ActionLimit:
		if k := KindOf(s.Primitive); k != nil && !k.Resizable {
			return fmt.Sprintf("the %s cannot change its parallelism while it runs", k.Noun)
		}
		if a.N < 1 || a.N > MaxLimit {
			return limitProblem("the new limit", a.N, 1)
		}
	default:
		return fmt.Sprintf("unknown action %q: choose %s, %s, %s or %s", a.Do, ActionLimit, ActionCancelAll, ActionDrain, ActionClose)
	}
	return ""
}

// limitProblem says that what, a limit of n, is out of lo..MaxLimit.
func limitProblem(what string, n, lo int) string {
	low := num(lo)
	if lo == 0 {
		low = "0 (no limit)"
	}
	if n > MaxLimit {
		return fmt.Sprintf("%s must be between %s and %s; it is %s. A run holds at most %s tasks, so a larger limit would act just like %s",
			what, low, num(MaxLimit), num(n), num(MaxTasks), num(MaxLimit))
	}
	return fmt.Sprintf("%s must be between %s and %s; it is %s", what, low, num(MaxLimit), num(n))
}

// keyProblem says what is wrong with a key name, after "key N", or "".
func keyProblem(k string) string {
	switch {
	case k == "":
		return "is empty: a key name needs at least one character"
	case len(k) > MaxKeyLen:
		return fmt.Sprintf("(%q…) is %s bytes long; a key name has at most %d", truncateUTF8(k, 16), num(len(k)), MaxKeyLen)
	case !utf8.ValidString(k):
		return "is not valid UTF-8 text"
	case strings.TrimSpace(k) != k:
		return fmt.Sprintf("(%q) starts or ends with a space", k)
	case strings.IndexFunc(k, unicode.IsControl) >= 0:
		return fmt.Sprintf("(%q) holds a control character", k)
	}
	return ""
}

// truncateUTF8 returns at most n bytes of s, cut at a character boundary.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

type validator struct{ problems []string }

func (v *validator) addf(format string, args ...any) {
	v.problems = append(v.problems, fmt.Sprintf(format, args...))
}

func (v *validator) rangeMS(what string, ms, lo, hi int) {
	if ms < lo || ms > hi {
		v.addf("%s must be between %s and %s ms; it is %s ms", what, num(lo), num(hi), num(ms))
	}
}

func (v *validator) err() error {
	if len(v.problems) == 0 {
		return nil
	}
	return &InvalidError{Problems: v.problems}
}

// num writes n with thousands separators, as a person reads it.
func num(n int) string {
	if n == math.MinInt {
		return strconv.Itoa(n)
	}
	if n < 0 {
		return "-" + num(-n)
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// KeyName returns the name of key i of a burst's key set, counting from 0.
func KeyName(i int) string { return "device-" + strconv.Itoa(i+1) }
