package ui

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"sluice/core"
	"sluice/core/trace"
	"sluice/wasm/sim"
)

// Session is what one playground view runs: a scenario, the sim.Runner
// that runs it through the real core primitive on a virtual clock, and the
// trace.Recorder that observes that primitive; or, in replay, a trace read
// from a file, shown read-only.
//
// The page takes frames (Frame) from one goroutine and makes every other
// call from ctx.Async, never from an event handler: the methods that
// change the run hold the session's mutex until the runner is at rest
// again, which takes no virtual time but may take a few milliseconds of
// real time. All methods are safe for concurrent use.
//
// A person's bursts and clicks (cancel one, cancel all, drain, close, set
// limit, pause, step) are recorded in the scenario's log (sim.Step) at the
// point of the run they happened, so that the link replays them event for
// event; what a link cannot hold is said by Panel.Unlinked.
type Session struct {
	mu       sync.Mutex
	sc       sim.Scenario
	preset   string // the preset the scenario came from; "" once edited or if none
	run      *sim.Runner
	rec      *trace.Recorder
	playing  bool
	finished bool          // the run had nothing left to do; play starts it again
	queued   []sim.Burst   // a person's burst, still to be handed to the runner
	chunked  bool          // the log's last entry is the part of queued[0] handed over so far
	carry    time.Duration // virtual time owed to the next frame: time moves in whole milliseconds
	unlinked string        // why the link no longer replays the run exactly
	maxLimit int           // the highest limit the run has had
	refused  int           // refusals already reported through Panel.Alert
	snap     *trace.Snapshot
	snapOf   snapKey // what snap shows: a frame that would show the same takes it as it is
	replay   *replay
	levels   []core.Priority  // the priorities the run's tasks can have, sorted
	log      *eventLog        // the run's whole event log
	logQuery string           // the event log's filter
	rw       rewind           // how far the run has been, and its latest fork (session_rewind.go)
	cps      checkpoints      // runs parked at earlier moments, for Seek (session_checkpoint.go)
	links    sim.Memo[string] // the scenario's link, encoded again only when it changed
	lanes    int              // the most lanes the run can show (sim.Kind.Lanes), reserved up front
}

// replay is a trace loaded from a file.
type replay struct {
	name string
	// file is the trace as it was loaded, which WriteTrace saves again.
	// The Recorder it was read into is not kept: the file is bytes the
	// collector never scans, where the Recorder's tasks are strings it
	// marks (a third of the marking of a loaded 200,000-task trace, in a
	// task of the page's thread).
	file       []byte
	snap       *trace.Snapshot
	start, end time.Time       // start is time 0 of its times as shown: the file's ts 0, or its first event
	first      time.Time       // its first event
	levels     []core.Priority // its tasks' priorities, sorted
	log        *eventLog       // its event log, as far as the trace holds it
	times      string          // how its times are shown
	omitted    string          // what of the trace is not shown, and why; "" if nothing
	rate       float64         // tasks ended a second, over the trace's span
	link       string          // the live run's link, which a trace leaves as it is
	noWaits    bool            // no task of the trace waited (traceWaited)
	loaded     *loaded         // what frames draw of snap beyond its tasks; nil if nothing
}

// loaded is what the frames of a loaded trace draw from beyond its
// snapshot: one pointer in a Frame, which is copied often.
type loaded struct {
	// runFrom is the ID of the first lane of a Go execution trace's
	// goroutines and procs (Session.AddGoLanes), drawn below the tasks'
	// lanes; 0 if there are none.
	runFrom int
	// index is the snapshot's tasks by lane, built by its loader in
	// slices, for a large trace; nil if none.
	index *laneIndex
	// settled is set when the loader found pending and noWaits
	// (settleTrace), which the first frame would otherwise look for
	// over every task: pending are the indices of the tasks that still
	// wait, in order, and noWaits is set when no task waited.
	settled bool
	pending []int32
	noWaits bool
}

// ChunkSize is how many tasks of a person's burst are handed to the runner
// per frame, so that a burst of 10,000 tasks never freezes the tab.
const ChunkSize = 500

// NewSession starts a session on sc, paused at virtual time 0. preset
// names the preset sc came from, or is "". It returns the scenario's
// problems, as sim.NewRunner does, when sc cannot run.
func NewSession(sc sim.Scenario, preset string) (*Session, error) {
	s := &Session{}
	if err := s.load(sc, preset); err != nil {
		return nil, err
	}
	return s, nil
}

// load replaces the run with a new one of sc. It keeps the old run when sc
// cannot run. s.mu must be held (or s not yet shared).
func (s *Session) load(sc sim.Scenario, preset string) error {
	set, err := newRunSet(sc, s.logQuery)
	if err != nil {
		return err
	}
	run, rec, log := set.run, set.rec, set.log
	s.stopRun()
	s.sc, s.preset = run.Scenario(), preset
	s.run, s.rec, s.log = run, rec, log
	s.finished, s.queued, s.unlinked = false, nil, ""
	s.chunked, s.carry = false, 0
	s.maxLimit, s.refused = sc.Limit, 0
	s.replay = nil
	s.rw = rewind{gen: nextGen()}
	s.cps.drop(0) // runs of the scenario before
	all := s.sc
	all.Bursts = s.sc.AllBursts()
	s.levels = scenarioLevels(all)
	s.lanes = sim.KindOf(s.sc.Primitive).Lanes(s.sc)
	return nil
}

// observer returns the observer that feeds rec from a run of primitive.
// Consume reports its messages with the consumer's name as Key and the
// handler goroutine as Lane, and the shared work queues their tasks with
// the queue's name as Key and the worker slot as Lane; the timeline gives
// each handler goroutine or slot a lane of its own, named "consumer-N · M"
// or "queue-N · M". A work queue knows a task's slot only once it starts,
// and the recorder keeps the first key a task reports, so the queues'
// events carry the lane's name on Started alone.
func observer(record func(core.Event), primitive string) func(core.Event) {
	k := sim.KindOf(primitive)
	if !k.HasGroups() {
		return record
	}
	if k.Slots {
		return func(e core.Event) {
			if e.Task != 0 {
				if e.Kind == core.Started && e.Key != "" {
					e.Key = consumerLane(e.Key, e.Lane)
				} else {
					e.Key = ""
				}
			}
			record(e)
		}
	}
	return func(e core.Event) {
		if e.Task != 0 && e.Key != "" {
			e.Key = consumerLane(e.Key, e.Lane)
		}
		record(e)
	}
}

// consumerLane names the lane of a consumer's handler goroutine.
func consumerLane(consumer string, lane int) string {
	return fmt.Sprintf("%s · %d", consumer, lane+1)
}

// consumerOf returns the consumer a lane key of consumerLane belongs to.
func consumerOf(key string) string {
	if c, _, ok := strings.Cut(key, " · "); ok {
		return c
	}
	return key
}

// stopRun ends the current run and waits for its goroutines. s.mu must be
// held.
func (s *Session) stopRun() {
	if s.run != nil {
		s.log.muted.Store(true) // the run and its log go: nobody sees the stop's events
		s.run.Stop()
		s.run.Wait()
		s.run = nil
	}
}

// Close ends the session's run and waits for its goroutines. The session
// must not be used afterwards.
func (s *Session) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopRun()
	s.cps.stopAll()
	releaseGC(true)
}

// Load replaces the scenario and starts it from virtual time 0, keeping
// the play state. It returns the scenario's problems and changes nothing
// if sc cannot run.
func (s *Session) Load(sc sim.Scenario, preset string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.load(sc, preset)
}

// Reset starts the scenario again from virtual time 0 without the work
// the person added (its log), and leaves a loaded trace. A preset starts
// as it is listed; the blank preset starts empty.
func (s *Session) Reset() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.sc
	sc.Log = nil
	return s.load(sc, presetFor(sc))
}

// Scenario returns the scenario, with the person's work recorded in it,
// and the preset it came from ("" if none or edited).
func (s *Session) Scenario() (sim.Scenario, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return cloneScenario(s.sc), s.preset
}

func cloneScenario(sc sim.Scenario) sim.Scenario {
	sc.Consumers = slices.Clone(sc.Consumers)
	sc.Bursts = slices.Clone(sc.Bursts)
	for i := range sc.Bursts {
		sc.Bursts[i].Levels = slices.Clone(sc.Bursts[i].Levels)
		sc.Bursts[i].KeyNames = slices.Clone(sc.Bursts[i].KeyNames)
	}
	sc.Actions = slices.Clone(sc.Actions)
	sc.Log = slices.Clone(sc.Log)
	for i := range sc.Log {
		if b := sc.Log[i].Burst; b != nil {
			c := *b
			c.Levels, c.KeyNames = slices.Clone(c.Levels), slices.Clone(c.KeyNames)
			sc.Log[i].Burst = &c
		}
	}
	return sc
}

// SetPlaying plays or pauses virtual time. Playing a finished run starts
// it again from 0. It does nothing in replay.
func (s *Session) SetPlaying(on bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replay != nil {
		return nil
	}
	if on && s.finished && len(s.queued) == 0 {
		if err := s.load(s.sc, s.preset); err != nil {
			return err
		}
	}
	if s.playing && !on {
		s.mark(sim.StepPause)
	}
	s.playing = on
	return nil
}

// Playing reports whether virtual time moves.
func (s *Session) Playing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.playing && s.replay == nil
}

// SetSpeed sets the playback speed, clamped to sim.MinSpeed..sim.MaxSpeed,
// and records it in the scenario.
func (s *Session) SetSpeed(speed float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sc.Speed = clampSpeed(speed)
	s.relink()
}

// relink encodes the link a shown trace's panel gives, after a change of
// the scenario. s.mu must be held.
func (s *Session) relink() {
	if s.replay != nil {
		s.replay.link = s.link()
	}
}

func clampSpeed(v float64) float64 {
	if !(v >= sim.MinSpeed) { // NaN too
		return sim.MinSpeed
	}
	return min(v, sim.MaxSpeed)
}

// speed returns the playback speed. s.mu must be held.
func (s *Session) speed() float64 {
	if s.sc.Speed == 0 {
		return 1
	}
	return s.sc.Speed
}

// Frame is what one animation frame draws.
type Frame struct {
	Snap      *trace.Snapshot // reused by the next call to Session.Frame
	Origin    time.Time       // virtual time 0: sim.Epoch, or a trace's first event
	Now       time.Duration   // since Origin
	From, To  time.Duration   // the window drawn
	Primitive string          // "" in replay
	ColorBy   string
	Limit     int             // the current limit; 0 if none
	Levels    []core.Priority // the priorities tasks can have, sorted; colours go by rank among them
	Replay    bool
	Finished  bool // the live run has finished its work: Now is its end
	Changed   bool // something happened since the last frame: the panel is stale
	Same      bool // Snap shows what the last frame's showed: a live run that stood still
	// Lanes is the most lanes the live run can show (sim.Kind.Lanes):
	// the timeline keeps their height from the first frame, so that it
	// does not grow as lanes appear.
	Lanes int
	// Loaded is what a loaded trace's frames draw from beyond Snap: its
	// goroutines' and procs' lanes, its lane index; nil if nothing.
	Loaded *loaded
}

// Frame moves the run along by one animation frame that took real time:
// it hands a waiting part of a person's burst to the runner, or else,
// while playing, advances virtual time by sim.FrameStep(real, speed)
// (paused, by nothing, which lets what a click set off settle; a paused
// frame also builds checkpoints, or stops a run given up); then it takes
// one snapshot of the window that ends a tenth of span after now (or at
// span), unless the last frame's shows the same (Frame.Same: no event
// since, the same window and colours). The snapshot is reused by the next
// call.
func (s *Session) Frame(real, span time.Duration) Frame {
	return s.frame(real, span, 0, 0, false)
}

// FrameAt is Frame with the window from..to (since virtual time 0, or
// since the loaded trace's origin) instead of the one that follows now:
// the window the person zoomed or panned to.
func (s *Session) FrameAt(real, from, to time.Duration) Frame {
	return s.frame(real, to-from, from, to, true)
}

func (s *Session) frame(real, span, fixedFrom, fixedTo time.Duration, fixed bool) Frame {
	releaseGC(false) // held back by a seek (gcboost.go)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !fixed {
		span = max(span, time.Second)
	}
	if r := s.replay; r != nil {
		from, to := r.window()
		if fixed {
			from, to = fixedFrom, fixedTo
		}
		return Frame{Snap: r.snap, Origin: r.start, Now: r.end.Sub(r.start), From: from, To: to,
			ColorBy: s.sc.ColorBy, Levels: r.levels, Replay: true, Loaded: r.loaded}
	}
	changed := false
	// A run given up is stopped a frame at a time (checkpoints.stale).
	s.cps.drop(s.rw.gen)
	spent := s.cps.stopStale()
	switch {
	case len(s.queued) > 0:
		s.submitChunk()
		changed = true
	case s.playing:
		if s.run.Finished() {
			s.playing, s.finished = false, true
			changed = true
			break
		}
		before := s.run.Now()
		s.run.Advance(s.wholeMS(sim.FrameStep(real, s.speed())))
		changed = s.run.Now() != before
	default:
		// Paused: time stands still, but what a click set off settles;
		// the spare time builds checkpoints for rewinding.
		s.run.Advance(0)
		if !spent {
			s.buildCheckpoints()
		}
	}
	now := s.run.Now()
	to := max(span, now+span/10)
	from := to - span
	if fixed {
		from, to = fixedFrom, fixedTo
	}
	// The picture of a paused run changes only with its events, its
	// window and its colours: frames that would show the same reuse the
	// snapshot and say so (Frame.Same), and the page draws nothing new.
	key := snapKey{log: s.log, events: s.log.count(), now: now, from: from, to: to, colorBy: s.sc.ColorBy}
	same := !changed && s.snap != nil && key == s.snapOf
	if !same {
		s.snap = s.rec.SnapshotWindow(s.snap, sim.Epoch.Add(now), sim.Epoch.Add(from), sim.Epoch.Add(to))
		s.snapOf = key
	}
	limit := int(s.snap.Stats.Limit)
	s.maxLimit = max(s.maxLimit, limit)
	return Frame{Snap: s.snap, Origin: sim.Epoch, Now: now, From: from, To: to,
		Primitive: s.sc.Primitive, ColorBy: s.sc.ColorBy, Limit: limit, Levels: s.levels, Changed: changed, Same: same,
		Finished: s.finished, Lanes: s.lanes}
}

// snapKey is what a live run's snapshot depends on: the run's events
// (its log, and how many it has had) and the window.
type snapKey struct {
	log      *eventLog
	events   int
	now      time.Duration
	from, to time.Duration
	colorBy  string
}

// wholeMS returns the whole milliseconds of d and what is owed from
// earlier frames, and keeps the rest for the next frame: virtual time
// moves in whole milliseconds, so that the log places an action at the
// time it was taken (sim.Step.AtMS). s.mu must be held.
func (s *Session) wholeMS(d time.Duration) time.Duration {
	d += s.carry
	whole := d.Truncate(time.Millisecond)
	s.carry = d - whole
	return whole
}

// window is the replay's window: the whole trace with a margin.
func (r *replay) window() (from, to time.Duration) {
	a, b := r.first.Sub(r.start), r.end.Sub(r.start)
	d := max(b-a, time.Microsecond)
	return a - d/50, b + d/50
}

// Step pauses and moves the run by one event: it hands over the next part
// of a person's burst, or fires the next timer (a burst, an action, a task
// that ends its sleep, a primitive's own timer). It reports false when
// nothing was left to do.
func (s *Session) Step() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replay != nil {
		return false
	}
	s.playing = false
	if len(s.queued) > 0 {
		s.submitChunk()
		return true
	}
	s.mark(sim.StepStep)
	ok := s.run.Step()
	if !ok && s.run.Finished() {
		s.finished = true
	}
	return ok
}

// submitChunk hands the next part of a person's burst to the runner.
// s.mu must be held.
func (s *Session) submitChunk() {
	b := s.queued[0]
	n := min(b.Count, ChunkSize)
	chunk := b
	chunk.Count = n
	if b.Count -= n; b.Count == 0 {
		s.queued = s.queued[1:]
	} else {
		s.queued[0] = b
	}
	logged := s.chunked
	if s.chunked {
		// The part handed over before, at the same point of the run:
		// nothing has happened in between, so one entry holds both.
		s.sc.Log[len(s.sc.Log)-1].Burst.Count += n
	} else {
		logged = s.recordBurst(chunk)
	}
	s.chunked = logged && b.Count > 0
	if err := s.run.Submit(chunk); err != nil {
		// The burst was checked as a whole before it was queued; the run
		// can still have stopped since.
		s.queued = nil
		s.chunked = false
		s.unlinked = err.Error()
	}
}

// errReplay is returned by the calls that change a run while a loaded
// trace is shown.
var errReplay = errors.New("a loaded trace is read-only: choose “Back to live” to run work again")

// Submit adds a person's burst to the run now (b.AtMS is ignored), and
// records it in the scenario at the current virtual time. It checks the
// burst first and returns the problems in words a person can act on; a
// burst the run accepts may still have tasks the primitive refuses
// (core.ErrFull, core.ErrClosed), which Panel reports. Bursts larger than
// ChunkSize are handed over over several frames, at the same virtual time.
// Submitting to a finished run makes it play again.
func (s *Session) Submit(b sim.Burst) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replay != nil {
		return errReplay
	}
	st := s.run.Stats()
	if st.Stopped {
		return errors.New("this run has stopped: reset it to run more work")
	}
	b.AtMS = 0
	if err := checkBurst(s.sc, st.Limit, b); err != nil {
		return err
	}
	queued := 0
	for _, q := range s.queued {
		queued += q.Count
	}
	if total := st.Tasks + queued + b.Count; total > sim.MaxTasks {
		return fmt.Errorf("a run holds at most %s tasks: this one has %s, and the burst asks for %s more; reset the run or send fewer",
			formatCount(sim.MaxTasks), formatCount(st.Tasks+queued), formatCount(b.Count))
	}
	if !sim.KindOf(s.sc.Primitive).HasGroups() {
		s.levels = burstLevels(slices.Clone(s.levels), b)
	}
	probe := s.sc
	probe.Bursts, probe.Log = []sim.Burst{b}, nil
	s.lanes = max(s.lanes, sim.KindOf(s.sc.Primitive).Lanes(probe))
	s.queued = append(s.queued, b)
	s.submitChunk()
	s.preset = ""
	if s.finished {
		s.finished = false
		s.playing = true
	}
	return nil
}

// checkBurst returns the problems of b as a burst of sc's run whose
// limit is now limit, without the "burst N:" that Validate puts in front.
func checkBurst(sc sim.Scenario, limit int, b sim.Burst) error {
	probe := sc
	probe.Bursts = []sim.Burst{b}
	probe.Actions, probe.Log = nil, nil
	if limit > 0 {
		probe.Limit = limit
	}
	err := probe.Validate()
	var inv *sim.InvalidError
	if !errors.As(err, &inv) {
		return err
	}
	var ps []string
	for _, p := range inv.Problems {
		if rest, ok := strings.CutPrefix(p, "burst 1: "); ok {
			ps = append(ps, rest)
		}
	}
	if len(ps) == 0 {
		return nil // the problems are the scenario's, which already runs
	}
	return &sim.InvalidError{Problems: ps}
}

// recordBurst puts a person's burst in the scenario's log at the current
// point of the run, and reports whether the log could hold it. s.mu must
// be held.
func (s *Session) recordBurst(b sim.Burst) bool {
	b.AtMS = 0
	total, keyBytes := b.Count, len(strings.Join(b.KeyNames, ""))
	for _, x := range s.sc.AllBursts() {
		total += x.Count
		keyBytes += len(strings.Join(x.KeyNames, ""))
	}
	switch {
	case total > sim.MaxTasks:
		s.unlinked = fmt.Sprintf("a link holds at most %s tasks: the link replays the run without the later bursts", formatCount(sim.MaxTasks))
	case keyBytes > sim.MaxKeyBytes:
		s.unlinked = fmt.Sprintf("a link holds at most %s bytes of key names: the link replays the run without the later bursts", formatCount(sim.MaxKeyBytes))
	default:
		b.Levels = slices.Clone(b.Levels)
		b.KeyNames = slices.Clone(b.KeyNames)
		return s.record(sim.Step{Do: sim.StepBurst, Burst: &b})
	}
	return false
}

// record puts a person's action in the scenario's log at the current point
// of the run: its virtual time and the count of the run's events so far.
// The entries of a link's log not yet replayed are dropped first: what the
// person does now follows what has happened. It reports whether the log
// could hold the entry. s.mu must be held.
func (s *Session) record(st sim.Step) bool {
	s.chunked = false
	s.fork(st)
	st.AtMS = s.nowMS()
	st.Fired = s.run.Clock().Fired()
	st.Seq = len(s.sc.Log) + 1
	switch {
	case len(s.sc.Log) >= sim.MaxLog:
		s.unlinked = fmt.Sprintf("a link holds at most %d actions: the link replays the run without the later ones", sim.MaxLog)
	case st.AtMS > sim.MaxOffsetMS:
		s.unlinked = "a link holds actions taken in the first hour only"
	default:
		s.sc.Log = append(s.sc.Log, st)
		s.preset = ""
		return true
	}
	return false
}

// mark records a pause or step point in the log, which changes nothing
// in the run; only while the log has room to spare, not twice at one
// point, and not while a link's log is still replaying, whose later
// entries a mark must not drop. s.mu must be held.
func (s *Session) mark(do string) {
	if s.replay != nil || len(s.sc.Log) >= sim.MaxLog/2 || s.unlinked != "" || s.run.LogLeft() > 0 {
		return
	}
	if n := len(s.sc.Log); n > 0 {
		last := s.sc.Log[n-1]
		if last.Do == do && last.AtMS == s.nowMS() && last.Fired == s.run.Clock().Fired() {
			return
		}
	}
	preset := s.preset
	s.record(sim.Step{Do: do})
	s.preset = preset
}

func (s *Session) nowMS() int {
	return int(s.run.Now() / time.Millisecond)
}

// Cancel cancels the task with the given name ("t7"), as a click on its
// bar does. It returns a problem a person can read if there is no such
// task or it has already ended.
func (s *Session) Cancel(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replay != nil {
		return errReplay
	}
	if err := s.run.Cancel(name); err != nil {
		return err
	}
	// Canceling fires no timer and takes no time: the entry records the
	// point of the run the cancel was made at.
	s.record(sim.Step{Do: sim.StepCancel, Task: name})
	return nil
}

// CancelAll cancels every task submitted and not ended.
func (s *Session) CancelAll() error {
	return s.act(sim.Action{Do: sim.ActionCancelAll})
}

// Drain stops the primitive taking work and lets the accepted work finish.
func (s *Session) Drain() error {
	return s.act(sim.Action{Do: sim.ActionDrain})
}

// CloseRun closes the primitive: queued work is canceled, running work has
// its context canceled.
func (s *Session) CloseRun() error {
	return s.act(sim.Action{Do: sim.ActionClose})
}

// SetLimit changes the primitive's limit now.
func (s *Session) SetLimit(n int) error {
	return s.act(sim.Action{Do: sim.ActionLimit, N: n})
}

// act does a person's action through the runner, which logs it as a
// replay of the link will, and records it in the scenario's log.
func (s *Session) act(a sim.Action) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replay != nil {
		return errReplay
	}
	if err := s.run.Perform(a); err != nil {
		return err
	}
	s.record(sim.Step{Do: a.Do, N: a.N})
	if a.Do == sim.ActionLimit {
		s.maxLimit = max(s.maxLimit, a.N)
		s.lanes = max(s.lanes, sim.KindOf(s.sc.Primitive).Lanes(s.sc))
	}
	return nil
}

// WriteTrace writes the run as Chrome Trace Event JSON, which Perfetto
// opens, or the loaded trace's file as it was loaded.
func (s *Session) WriteTrace(w io.Writer) error {
	s.mu.Lock()
	rec := s.rec
	rp := s.replay
	s.mu.Unlock()
	if rp != nil {
		_, err := w.Write(rp.file)
		return err
	}
	return rec.WriteJSON(w)
}

// TraceName is the file name a download of the session's trace gets: a
// loaded trace's own, with ".json" for the extension of one read as
// something else (a Go execution trace's trace.out comes back as the JSON
// timeline read from it).
func (s *Session) TraceName() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replay != nil {
		name := s.replay.name
		if ext := path.Ext(name); ext != ".json" {
			name = strings.TrimSuffix(name, ext) + ".json"
		}
		return name
	}
	return fmt.Sprintf("sluice-%s-%d.json", s.sc.Primitive, s.sc.Seed)
}

// LoadTrace reads a Chrome Trace Event JSON file and shows it instead of
// the run, read-only; the run is paused and kept for BackToLive. It
// returns a problem a person can read, and changes nothing, when the file
// is not a trace the playground can show.
func (s *Session) LoadTrace(r io.Reader, name string) error {
	return s.LoadTracePausing(r, name, nil)
}

// LoadTracePausing is LoadTrace that calls pause, if not nil, between
// slices of its work (trace.ReadJSONPausing), on the calling goroutine,
// with the share of the work done.
func (s *Session) LoadTracePausing(r io.Reader, name string, pause func(done float64)) error {
	if pause == nil {
		pause = func(float64) {}
	}
	br := bufio.NewReader(r)
	if hint := notJSON(br); hint != "" {
		return fmt.Errorf("%s cannot be shown: %s", name, hint)
	}
	var in io.Reader = br
	if l, ok := r.(lener); ok {
		in = peeked{br, l}
	}
	file, err := trace.ReadAll(in)
	var rec *trace.Recorder
	if err == nil {
		rec, err = trace.ParseJSON(file, pause)
	}
	if err != nil {
		return fmt.Errorf("%s cannot be shown: %s", name, strings.TrimPrefix(err.Error(), "trace: "))
	}
	pause(1)
	snap := rec.SnapshotPausing(time.Time{}, func(float64) { pause(1) })
	facts, ok := settleTrace(snap, pause)
	if !ok {
		return fmt.Errorf("%s holds no tasks to show", name)
	}
	start, levels := facts.start, facts.levels
	pause(1)
	index := prebuildIndex(snap, pause)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.playing = false
	rp := &replay{name: name, file: file, snap: snap, start: start, first: start, end: later(snap.End, start), levels: levels}
	rp.loaded = &loaded{index: index, settled: true, pending: facts.pending, noWaits: !facts.waited}

	rp.times = "Times are the trace's own: since its first event."
	if origin, ok := rec.Origin(); ok && !start.Before(origin) && start.Sub(origin) <= 24*time.Hour {
		rp.start = origin
		rp.times = "Times are the trace's own, from its ts 0."
	} else if ok {
		rp.times = fmt.Sprintf("Times are the trace's own, from its first event, at ts %s µs.", formatCount(int(start.Sub(origin)/time.Microsecond)))
	}
	var left []string
	if st := snap.Stats; st.Submitted > uint64(len(snap.Tasks)) {
		left = append(left, fmt.Sprintf("the trace counts %s tasks but holds %s: the recorder that wrote it kept only its latest tasks (trace.Config.MaxFinished), so the earlier ones are counted, not drawn",
			formatCount(int(st.Submitted)), formatCount(len(snap.Tasks))))
	}
	if d := snap.Stats.Dropped; d > 0 {
		left = append(left, fmt.Sprintf("%s %s not fit a task's life or the recorder's bounds and %s left out", formatCount(int(d)), plural(int(d), "event did", "events did"), plural(int(d), "was", "were")))
	}
	left = append(left, unshownNotes(rec.Unshown())...)
	rp.omitted = strings.Join(left, "; ")
	rp.rate = traceRate(snap.Stats, rp.first, rp.end)
	rp.noWaits = !facts.waited
	// Encoded once: the panel, read every few frames, shows it unchanged.
	rp.link = s.link()
	rp.log = newEventLog("", rp.start, snap.Log)
	rp.log.setQuery(s.logQuery)
	s.replay = rp
	return nil
}

// lener is a reader that tells how many bytes it has left, as a browser
// file's fileReader and bytes.Reader do.
type lener interface{ Len() int }

// peeked is a reader peeked at through a bufio.Reader that still tells
// how much is left, so that trace.ReadAll reads it into one buffer of its
// size rather than one that grows by copies (a task of 50 ms for a 57 MB
// file), and refuses one too large unread.
type peeked struct {
	*bufio.Reader
	under lener
}

func (p peeked) Len() int { return p.under.Len() + p.Buffered() }

// prebuildIndex returns the lane index of a large trace's snapshot (see
// Frame.Loaded), built in slices between calls of pause, or nil for a
// small one.
func prebuildIndex(snap *trace.Snapshot, pause func(float64)) *laneIndex {
	if len(snap.Tasks) <= indexFrom {
		return nil
	}
	x := &laneIndex{}
	x.buildPausing(snap, func() { pause(1) })
	return x
}

// notJSON peeks at the start of a trace file and, when it is not JSON but
// a format the playground can name, says what it is and how to get JSON
// from it; otherwise it returns "" and the JSON reader says what is
// wrong.
func notJSON(br *bufio.Reader) string {
	head, _ := br.Peek(64)
	text := strings.TrimLeft(string(head), " \t\r\n\ufeff")
	switch {
	case len(text) == 0 || text[0] == '{' || text[0] == '[':
		return ""
	case strings.HasPrefix(text, "go 1.") && strings.Contains(text, "trace"):
		return "it is a Go execution trace (runtime/trace), and this reader takes Chrome Trace Event JSON: " +
			"the page reads Go execution traces in its Go-trace worker when one is chosen with “Load trace…” " +
			"(a file that starts with \"go 1.\"), or open it with go tool trace"
	case head[0] == 0x0a || head[0] == 0x12 || head[0] == 0x1a:
		// A protocol buffer: a length-delimited field 1, 2 or 3, as
		// Perfetto's Trace message (its packets) starts.
		return "it looks like a Perfetto protobuf trace (.pftrace, .perfetto-trace), and this playground reads Chrome Trace Event JSON and Go execution traces. " +
			"Convert it with Perfetto's traceconv (traceconv json trace.pftrace trace.json), or open it at ui.perfetto.dev"
	}
	return ""
}

// BackToLive leaves a loaded trace and shows the run again, paused.
func (s *Session) BackToLive() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replay = nil
}

// Phase returns what the session is doing: "playing", "paused",
// "finished" or "replay".
func (s *Session) Phase() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.replay != nil:
		return "replay"
	case s.playing:
		return "playing"
	case s.finished:
		return "finished"
	}
	return "paused"
}

// SetColorBy colours the timeline by "priority" or "key", without
// restarting the run.
func (s *Session) SetColorBy(by string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if by == "key" || by == "priority" {
		s.sc.ColorBy = by
		s.relink()
	}
}

// Panel is what the page shows around the timeline, refreshed a few times
// a second: the counters, the wait times, the event log and the run's
// messages.
type Panel struct {
	Phase  string        // "playing", "paused", "finished" or "replay"
	Replay string        // the loaded trace's file name, in replay
	Span   time.Duration // in replay: the trace's span, from its first task to its last event
	// ReplayTimes says how a loaded trace's times are shown; Omitted what
	// of it is not shown, and why ("" if nothing).
	ReplayTimes, Omitted string
	// NoWaits is set in replay when no task of the trace waited before it
	// started (another tool's trace): the waiting counters and the table
	// of waits do not apply to it.
	NoWaits   bool
	Primitive string
	Preset    string
	Link      string // the scenario, encoded for a link's hash
	Unlinked  string // why the link no longer replays the run exactly
	Alert     string // set when tasks were refused since the last panel: how many in all, and why the latest

	Now        time.Duration
	Limit      int // now; 0: no limit
	MaxLimit   int // the highest the limit has been
	Tasks      int // made so far, scheduled ones included
	Scheduled  int // in bursts not yet due, or still being handed over
	Waiting    int // accepted, not started
	Backlog    int // consume: sent to a consumer's channel, not yet taken
	Running    int
	Succeeded  int
	Failed     int
	Canceled   int
	Panicked   int
	Refused    int
	Withdrawn  int
	MaxRunning int
	Tokens     int64
	MaxTokens  int64
	Lanes      int
	Goroutines int
	Finished   bool
	Draining   bool
	Drained    bool
	Closing    bool

	Throughput float64
	OldestWait time.Duration
	Waits      []trace.WaitStats
	Levels     []core.Priority // as Frame.Levels
	Log        []trace.Entry   // the latest events that match the event log's filter, oldest first
	// LogMatches is how many events of the run match the filter (all of
	// them without one), LogTotal how many it has had.
	LogMatches, LogTotal int
	// LogID tells the log of the run or trace shown from the others it
	// has had (a new run, a seek or a trace has a log of its own).
	LogID    uint64
	Origin   time.Time // virtual time 0, for the log's times
	Messages []sim.Message
	// MessageCount is how many messages the run has had; Messages holds
	// the latest.
	MessageCount int
	Trace        trace.Stats // the recorder's own totals
	Rewind       Rewind      // how far the run reaches back and forth, and its latest fork
}

// SetLogQuery sets the event log's filter: Panel.Log then holds the
// latest events that match it, out of the whole run.
func (s *Session) SetLogQuery(q string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.logQuery = q
	s.log.setQuery(q)
	if s.replay != nil && s.replay.log != nil {
		s.replay.log.setQuery(q)
	}
}

// LogSpan returns the events of the shown log (the run's, or a loaded
// trace's) that match the event log's filter, from the from-th match,
// oldest first, to the to-th.
func (s *Session) LogSpan(from, to int) []trace.Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.replay; r != nil && r.log != nil {
		return r.log.span(from, to)
	}
	return s.log.span(from, to)
}

// Events and messages the panel lists.
const (
	panelLog      = 200
	panelMessages = 200
)

// Panel returns what the page shows around the timeline, from the latest
// frame's snapshot and the run's counters.
func (s *Session) Panel() Panel {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.replay; r != nil {
		st := r.snap.Stats
		p := Panel{
			Phase: "replay", Replay: r.name, Span: r.end.Sub(r.first), Link: r.link, ReplayTimes: r.times, Omitted: r.omitted,
			Now: r.end.Sub(r.start), Limit: int(st.Limit), MaxLimit: int(st.Limit),
			Tasks: int(st.Submitted), Waiting: st.Waiting, Running: st.Running,
			Succeeded: int(st.Succeeded), Failed: int(st.Failed), Canceled: int(st.Canceled), Panicked: int(st.Panicked),
			MaxRunning: st.MaxRunning, Tokens: st.InUse, MaxTokens: st.MaxInUse, Lanes: st.Lanes,
			Finished: true, Throughput: r.rate, OldestWait: st.OldestWait,
			Waits: slices.Clone(st.Waits), Levels: r.levels, Origin: r.start, Trace: st, NoWaits: r.noWaits,
		}
		p.Log, p.LogMatches, p.LogTotal = r.log.latest(panelLog)
		p.LogID = r.log.id
		return p
	}
	st := s.run.Stats()
	queued := 0
	for _, q := range s.queued {
		queued += q.Count
	}
	p := Panel{
		Phase: "paused", Primitive: s.sc.Primitive, Preset: s.preset,
		Link: s.link(), Unlinked: s.unlinked,
		Now: st.Now, Limit: st.Limit, MaxLimit: max(s.maxLimit, st.Limit),
		Tasks: st.Tasks, Scheduled: st.Scheduled + queued, Waiting: st.Pending, Backlog: st.Backlog, Running: st.Running,
		Succeeded: st.Succeeded, Failed: st.Failed, Canceled: st.Canceled, Panicked: st.Panicked,
		Refused: st.Refused, Withdrawn: st.Withdrawn, MaxRunning: st.MaxRunning,
		Tokens: st.Tokens, MaxTokens: st.MaxTokens, Lanes: st.Lanes, Goroutines: st.Goroutines,
		Finished: s.finished || (st.Tasks > 0 && queued == 0 && s.run.Finished()),
		Draining: st.Draining, Drained: st.Drained, Closing: st.Closing,
		Origin: sim.Epoch, Levels: s.levels, Rewind: s.rewindPanel(),
	}
	switch {
	case s.playing:
		p.Phase = "playing"
	case s.finished:
		p.Phase = "finished"
	}
	if s.snap != nil {
		ts := s.snap.Stats
		p.Throughput, p.OldestWait = runRate(ts.Throughput, st.Now), ts.OldestWait
		p.Waits = slices.Clone(ts.Waits)
		p.Trace = ts
		p.Trace.Waits = p.Waits
	}
	p.Log, p.LogMatches, p.LogTotal = s.log.latest(panelLog)
	p.LogID = s.log.id
	msgs := s.run.Messages()
	p.Messages = tail(msgs, panelMessages)
	p.MessageCount = len(msgs)
	if st.Refused > s.refused {
		// The run's total, as the refused counter shows it: a large
		// burst is refused over several panels, a chunk at a time.
		n := st.Refused
		s.refused = st.Refused
		why := ""
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i].Error && strings.Contains(msgs[i].Text, "refused") {
				why = msgs[i].Text
				break
			}
		}
		p.Alert = fmt.Sprintf("%s %s refused by the %s in this run. Latest: %s", formatCount(n), plural(n, "task was", "tasks were"), primitiveNoun(s.sc.Primitive), why)
	}
	return p
}

// link returns the scenario encoded for a link: the panel, taken every
// few frames, encodes it again only when it changed. s.mu must be held.
func (s *Session) link() string {
	return s.links.Get(s.sc, sim.Scenario.Encode)
}

// rateWindow is the window over which the recorder measures throughput.
const rateWindow = 10 * time.Second

// runRate is a throughput the recorder measured over rateWindow (tasks
// ended in the window, divided by it), over the run's real length when
// the run is shorter than the window: a run that ended 10 tasks in its
// first 2.5 s ran 4 a second, not 1.
func runRate(rate float64, length time.Duration) float64 {
	if length <= 0 || length >= rateWindow {
		return rate
	}
	return rate * rateWindow.Seconds() / length.Seconds()
}

func tail[T any](s []T, n int) []T {
	if len(s) > n {
		s = s[len(s)-n:]
	}
	return slices.Clone(s)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// primitiveNoun names a primitive in a sentence.
func primitiveNoun(p string) string {
	if k := sim.KindOf(p); k != nil {
		return k.Noun
	}
	return p
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
