package ui

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"time"

	"sluice/core"
	"sluice/wasm/sim"
)

// A comparison runs two Sessions side by side: run A is the page's own
// session, run B a second one of the same work with some settings
// changed (sim.Comparison). They are driven together: every command that
// moves time or adds work reaches both through eachRun, one call per
// session, so that both stay on one virtual clock and run the same
// action log.

// eachRun calls do on run A's session and then, when b is not nil, on run
// B's. It returns A's error, or else B's, named as run B's. It is the one
// place where a command reaches both runs of a comparison: play, pause,
// speed, step, reset, bursts, cancels, drain, close and limit changes go
// through it, and so does a rewind: Play.runSeek seeks both runs with
// eachRun(a, b, func(s *Session) error { return s.Seek(t) }), and Step
// back is stepBackBoth.
func eachRun(a, b *Session, do func(*Session) error) error {
	errA := do(a)
	if b == nil {
		return errA
	}
	errB := do(b)
	switch {
	case errA != nil:
		return errA
	case errB != nil:
		return fmt.Errorf("run B: %w", errB)
	}
	return nil
}

// cancelIn cancels task name in one run of a comparison, on, the run
// whose details sheet the person used: a what-if of that run alone (a
// link carries it in that run's log). The other run, other, goes on
// without the cancel; when its log held later actions, which the
// cancel's fork drops from on's log (a cancel at a past moment), it
// drops them too and says so, so that both runs keep running the same
// work. other may be nil. It returns Session.Cancel's problem, changing
// neither run.
func cancelIn(on, other *Session, name string) error {
	if err := on.Cancel(name); err != nil {
		return err
	}
	if other != nil {
		other.forkHere()
	}
	return nil
}

// setPlayingBoth plays or pauses both runs. A run that finished while
// the other played on stays finished; when both have finished, play
// starts both again from 0, as it does a single run.
func setPlayingBoth(a, b *Session, on bool) error {
	if b == nil {
		return a.SetPlaying(on)
	}
	restart := a.Phase() == "finished" && b.Phase() == "finished"
	return eachRun(a, b, func(s *Session) error {
		if on && !restart && s.Phase() == "finished" {
			return nil
		}
		return s.SetPlaying(on)
	})
}

// stepBoth pauses both runs and moves them to the earlier of their next
// events: the run whose event it is fires it (Session.Step), the other
// only moves its clock there, so that both show the same moment. It
// reports false when neither has anything left to do.
func stepBoth(a, b *Session) bool {
	if b == nil {
		return a.Step()
	}
	ta, okA := a.nextEvent()
	tb, okB := b.nextEvent()
	if !okA && !okB {
		a.Step()
		b.Step()
		return false
	}
	at := ta
	if !okA || okB && tb < ta {
		at = tb
	}
	for _, r := range []struct {
		s  *Session
		t  time.Duration
		ok bool
	}{{a, ta, okA}, {b, tb, okB}} {
		if r.ok && r.t == at {
			r.s.Step()
		} else {
			r.s.moveTo(at)
		}
	}
	return true
}

// stepBackBoth pauses both runs and shows them at the moment before the
// latest moment either had an event at, so that stepBoth goes back to
// where they were: the mirror of stepBoth. It reports false when neither
// has an event to undo.
func stepBackBoth(a, b *Session) bool {
	if b == nil {
		return a.StepBack()
	}
	la, pa, okA := a.lastEvents()
	lb, pb, okB := b.lastEvents()
	if !okA && !okB {
		eachRun(a, b, func(s *Session) error { return s.SetPlaying(false) })
		return false
	}
	latest := max(la, lb)
	target := time.Duration(0)
	for _, r := range []struct {
		last, prev time.Duration
		ok         bool
	}{{la, pa, okA}, {lb, pb, okB}} {
		switch {
		case !r.ok:
		case r.last < latest:
			target = max(target, r.last)
		default:
			target = max(target, r.prev)
		}
	}
	return eachRun(a, b, func(s *Session) error { return s.Seek(target) }) == nil
}

// lastEvents returns the time of the run's latest event at or before now
// (after 0) and of the one before it (0 if none), as StepBack counts
// events; false when there is none to undo.
func (s *Session) lastEvents() (last, prev time.Duration, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replay != nil {
		return 0, 0, false
	}
	l, ok := s.log.lastAt(sim.Epoch.Add(s.run.Now()), true)
	if !ok || !l.After(sim.Epoch) {
		return 0, 0, false
	}
	if p, ok := s.log.lastAt(l, false); ok {
		prev = p.Sub(sim.Epoch)
	}
	return l.Sub(sim.Epoch), prev, true
}

// nextEvent returns when the session's next event is due: now when a
// person's burst is still being handed over, else the run's next timer
// or log entry.
func (s *Session) nextEvent() (time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replay != nil {
		return 0, false
	}
	if len(s.queued) > 0 {
		return s.run.Now(), true
	}
	return s.run.NextEvent()
}

// moveTo pauses the session and moves its run's clock to virtual time t
// (never back), firing what is due by then: nothing, when t is not past
// its next event. It moves as Seek does.
func (s *Session) moveTo(t time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replay != nil {
		return
	}
	s.playing = false
	if now := s.run.Now(); t > now && s.seek(t) != nil {
		s.run.Advance(t - now) // a run whose log no longer replays it
	}
	if s.run.Finished() && s.run.Now() > 0 {
		s.finished = true
	}
}

// comparison returns the comparison the two sessions run now: each one's
// scenario with the person's work recorded in it.
func comparison(a, b *Session) sim.Comparison {
	sa, _ := a.Scenario()
	sb, _ := b.Scenario()
	return sim.Comparison{A: sa, B: sb}
}

// bothPhase is the phase the transport shows for a comparison: playing
// while either run plays, finished when both have, else paused.
func bothPhase(a, b string) string {
	switch {
	case a == "playing" || b == "playing":
		return "playing"
	case a == "finished" && b == "finished":
		return "finished"
	case a == "replay":
		return a
	}
	return "paused"
}

// keyStats is the wait and the outcomes of one key's tasks, for keyed
// work.
type keyStats struct {
	Key                    string
	Count                  int // tasks that started
	P50, P95, Max          time.Duration
	Done, Failed, Canceled int
	waits                  []time.Duration
	total                  int
}

// keyTable returns the wait and outcomes of the run's tasks per key, in
// the keys' natural order, when the primitive keys its work; else nil.
// Waits are from submission to start, in virtual time, with the
// nearest-rank percentiles the recorder uses.
func (s *Session) keyTable() []keyStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replay != nil || !sim.KindOf(s.sc.Primitive).Keys {
		return nil
	}
	by := map[string]*keyStats{}
	var keys []string
	for _, x := range s.run.Tasks() {
		k := by[x.Key]
		if k == nil {
			k = &keyStats{Key: x.Key}
			by[x.Key] = k
			keys = append(keys, x.Key)
		}
		k.total++
		if x.Started >= 0 {
			k.waits = append(k.waits, x.Started-x.Submitted)
		}
		switch x.State {
		case sim.StateSucceeded:
			k.Done++
		case sim.StateFailed:
			k.Failed++
		case sim.StateCanceled:
			k.Canceled++
		}
	}
	sort.Slice(keys, func(i, j int) bool { return naturalCompare(keys[i], keys[j]) < 0 })
	out := make([]keyStats, 0, len(keys))
	for _, key := range keys {
		k := by[key]
		sort.Slice(k.waits, func(i, j int) bool { return k.waits[i] < k.waits[j] })
		if n := len(k.waits); n > 0 {
			k.Count = n
			k.P50, k.P95, k.Max = rank(k.waits, 50), rank(k.waits, 95), k.waits[n-1]
		}
		k.waits = nil
		out = append(out, *k)
	}
	return out
}

// rank returns the nearest-rank pct-th percentile of sorted xs.
func rank(xs []time.Duration, pct int) time.Duration {
	i := (len(xs)*pct + 99) / 100
	return xs[max(i, 1)-1]
}

// DiffRow is one row of a comparison's diff table: a measure of run A and
// of run B as each run's own panel shows it, B/A, and which run did
// better.
type DiffRow struct {
	ID      string // stable, for tests: "wait-1-p95", "key-device-2-max", "throughput", "done"
	Group   string // what the row is about: "High", "device-2", "All tasks"
	Measure string // "wait p50", "throughput", "done"
	A, B    string // as the runs' own tables show them
	Ratio   string // B/A: "×0.48"; "–" when A is 0
	Better  string // "A", "B" or "" (the same, or no better)
}

// better says which side of a measure is better: lower (waits, failures)
// or higher (throughput, work done).
type better int

const (
	lowerBetter better = iota
	higherBetter
	noBetter
)

// diffTable builds a comparison's diff table from each run's panel, and
// per key from each run's key table (keyed work only): per priority the
// tasks started and the wait p50, p95 and max; throughput; done, failed,
// panicked and canceled. Each cell is written by the formatter of the
// run's own table, so that the two read the same.
func diffTable(a, b Panel, ka, kb []keyStats) []DiffRow {
	// One measure of both runs: a span, a count or a rate.
	type measure struct {
		id, group, name string
		x, y            float64
		kind            byte // 's' span, 'n' count, 'r' rate
		how             better
	}
	var ms []measure
	var prios []core.Priority
	for _, w := range append(slices.Clone(a.Waits), b.Waits...) {
		if !slices.Contains(prios, w.Priority) {
			prios = append(prios, w.Priority)
		}
	}
	sort.Slice(prios, func(i, j int) bool { return prios[i] > prios[j] })
	for _, pr := range prios {
		wa, wb := waitOf(a, pr), waitOf(b, pr)
		id, name := "wait-"+strconv.Itoa(int(pr)), priorityName(pr)
		ms = append(ms,
			measure{id + "-tasks", name, "tasks started", float64(wa.Count), float64(wb.Count), 'n', noBetter},
			measure{id + "-p50", name, "wait p50", float64(wa.P50), float64(wb.P50), 's', lowerBetter},
			measure{id + "-p95", name, "wait p95", float64(wa.P95), float64(wb.P95), 's', lowerBetter},
			measure{id + "-max", name, "wait max", float64(wa.Max), float64(wb.Max), 's', lowerBetter})
	}
	var keys []string
	for _, k := range append(slices.Clone(ka), kb...) {
		if !slices.Contains(keys, k.Key) {
			keys = append(keys, k.Key)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return naturalCompare(keys[i], keys[j]) < 0 })
	for _, key := range keys {
		x, y := keyOf(ka, key), keyOf(kb, key)
		id := "key-" + key
		ms = append(ms,
			measure{id + "-p50", key, "wait p50", float64(x.P50), float64(y.P50), 's', lowerBetter},
			measure{id + "-p95", key, "wait p95", float64(x.P95), float64(y.P95), 's', lowerBetter},
			measure{id + "-max", key, "wait max", float64(x.Max), float64(y.Max), 's', lowerBetter},
			measure{id + "-done", key, "done", float64(x.Done), float64(y.Done), 'n', higherBetter},
			measure{id + "-failed", key, "failed", float64(x.Failed), float64(y.Failed), 'n', lowerBetter},
			measure{id + "-canceled", key, "canceled", float64(x.Canceled), float64(y.Canceled), 'n', lowerBetter})
	}
	const all = "All tasks"
	ms = append(ms,
		measure{"throughput", all, "throughput", a.Throughput, b.Throughput, 'r', higherBetter},
		measure{"done", all, "done", float64(a.Succeeded), float64(b.Succeeded), 'n', higherBetter},
		measure{"failed", all, "failed", float64(a.Failed), float64(b.Failed), 'n', lowerBetter},
		measure{"panicked", all, "panicked", float64(a.Panicked), float64(b.Panicked), 'n', lowerBetter},
		measure{"canceled", all, "canceled", float64(a.Canceled), float64(b.Canceled), 'n', lowerBetter})
	rows := make([]DiffRow, len(ms))
	for i, m := range ms {
		r := DiffRow{ID: m.id, Group: m.group, Measure: m.name, Ratio: ratio(m.x, m.y)}
		switch m.kind {
		case 's':
			r.A, r.B = formatSpan(time.Duration(m.x)), formatSpan(time.Duration(m.y))
		case 'n':
			r.A, r.B = formatCount(int(m.x)), formatCount(int(m.y))
		default:
			r.A, r.B = formatRate(m.x), formatRate(m.y)
		}
		switch {
		case m.how == noBetter || m.x == m.y:
		case (m.y < m.x) == (m.how == lowerBetter):
			r.Better = "B"
		default:
			r.Better = "A"
		}
		rows[i] = r
	}
	return rows
}

func waitOf(p Panel, pr core.Priority) (w struct {
	Count         int
	P50, P95, Max time.Duration
}) {
	for _, x := range p.Waits {
		if x.Priority == pr {
			w.Count, w.P50, w.P95, w.Max = x.Count, x.P50, x.P95, x.Max
		}
	}
	return w
}

func keyOf(ks []keyStats, key string) keyStats {
	for _, k := range ks {
		if k.Key == key {
			return k
		}
	}
	return keyStats{Key: key}
}

// ratio writes B/A: "×0.48", "×1.00", "–" when A is 0 (and B is not),
// "×1.00" when both are.
func ratio(a, b float64) string {
	switch {
	case a == 0 && b == 0:
		return "×1.00"
	case a == 0:
		return "–"
	}
	return "×" + strconv.FormatFloat(b/a, 'f', 2, 64)
}

// errNoCompare is returned when a comparison command finds none open.
var errNoCompare = errors.New("no comparison is open")
