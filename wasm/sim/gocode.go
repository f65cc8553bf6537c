package sim

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
)

// The parts of every program GoCode writes that do not depend on the
// scenario: the run's bookkeeping (program_runtime.go.txt), and the very
// code the page runs with for its clock and its event lines.
var (
	//go:embed program_runtime.go.txt
	programRuntime string
	//go:embed clock.go
	clockSource string
	//go:embed eventline.go
	eventLineSource string
)

// GoCode returns a Go program that runs the scenario with sluice/core as
// the page runs it, and prints one line per task event in the format of
// the page's event log ([EventLine]), then the totals.
//
// Its tasks are drawn from math/rand/v2 seeded as the page's are, in the
// same order, so each has the name, priority, duration, outcome and key it
// has on the page. It runs on the page's virtual clock (the same code), and
// does what the scenario says at the same points of the run: bursts one
// task at a time (a task reaches the primitive before the next is
// submitted), scripted actions at their times, and the person's log
// after the same count of the run's events. Its main follows the wall
// clock, pausing a moment after each event so that the run settles; its
// run function, given testing/synctest's Wait as settle, runs exactly as
// the page does, event for event. The program imports nothing outside
// the standard library but sluice/core, and is laid out as gofmt lays it
// out. The scenario should be valid; GoCode does not fail.
func (s Scenario) GoCode() string {
	var g gen
	g.scenario(s)
	var b strings.Builder
	b.WriteString(indent(g.b.String()))
	parts := []string{programRuntime, KindOf(s.Primitive).runtime, afterImports(clockSource), afterImports(eventLineSource)}
	for _, p := range parts {
		if p == "" {
			continue
		}
		b.WriteString("\n")
		b.WriteString(strings.Trim(p, "\n"))
		b.WriteString("\n")
	}
	return b.String()
}

// indent lays out the scenario's part of the program as gofmt does, by the
// depth of its braces and parentheses: it is written so that this is all
// it needs (one statement or element per line, no comment at the end of a
// line), and a test checks the whole program against go/format, which the
// page does not carry (it would add a tenth to its size). The parts that
// are the same for every scenario are copied as they are, already laid
// out.
func indent(src string) string {
	var b strings.Builder
	depth := 0
	for line := range strings.Lines(src) {
		line = strings.TrimSpace(line)
		if line == "" {
			b.WriteString("\n")
			continue
		}
		if strings.HasPrefix(line, "}") || strings.HasPrefix(line, ")") {
			depth = max(depth-1, 0)
		}
		d := depth
		if strings.HasPrefix(line, "case ") || line == "default:" {
			d--
		}
		b.WriteString(strings.Repeat("\t", max(d, 0)))
		b.WriteString(line)
		b.WriteString("\n")
		if strings.HasSuffix(line, "{") || strings.HasSuffix(line, "(") {
			depth++
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

type gen struct{ b strings.Builder }

func (g *gen) p(format string, args ...any) { fmt.Fprintf(&g.b, format+"\n", args...) }

// codeBurst is a burst in the order the page draws its tasks.
type codeBurst struct {
	at  int
	log bool
	b   Burst
}

func (g *gen) scenario(s Scenario) {
	k := KindOf(s.Primitive)
	// The page draws the scenario's bursts in order of time, then those
	// of the log as they come.
	var bursts []codeBurst
	for _, i := range burstOrder(s.Bursts) {
		bursts = append(bursts, codeBurst{at: s.Bursts[i].AtMS, b: s.Bursts[i]})
	}
	for _, st := range s.Log {
		if st.Do == StepBurst && st.Burst != nil {
			bursts = append(bursts, codeBurst{at: st.AtMS, log: true, b: *st.Burst})
		}
	}

	g.p("// This program runs a Sluice playground scenario with sluice/core, as the")
	g.p("// playground runs it, and prints one line per task event in the format of")
	g.p("// the playground's event log, then the totals.")
	g.p("//")
	g.p("// Its tasks are drawn as the playground draws them (math/rand/v2, seed %d),", s.Seed)
	g.p("// so each has the name, priority, duration, outcome and key it has there.")
	g.p("// Each task sleeps its duration on the run's virtual clock, then returns")
	g.p("// nil, returns an error or panics; a slow one sleeps %d times longer. main", SlowFactor)
	g.p("// follows the wall clock; run, given testing/synctest's Wait as settle,")
	g.p("// runs exactly as the playground does. Build it in a module that requires")
	g.p("// sluice/core.")
	g.p("package main")
	g.p("")
	g.p("import (")
	for _, imp := range []string{"context", "errors", "fmt", "io", "math/rand/v2", "os", "strconv", "strings", "sync", "time"} {
		g.p("%q", imp)
	}
	g.p("")
	g.p(`"sluice/core"`)
	g.p(")")
	g.p("")
	g.p("// slots says whether the event lines name a task's worker slot.")
	g.p("const slots = %t", k.Slots)
	g.p("")
	g.p("// slowFactor is how many times longer a slow task sleeps.")
	g.p("const slowFactor = %d", SlowFactor)
	g.p("")
	g.p("func main() {")
	g.p("run(os.Stdout, func() { time.Sleep(time.Millisecond) }, realTime())")
	g.p("}")
	g.p("")
	g.p("// run runs the scenario and prints its events to out. settle lets the run")
	g.p("// come to rest before time moves; pace waits until a virtual time comes.")
	g.p("func run(out io.Writer, settle func(), pace func(time.Time)) {")
	g.p("r := newRunner(out, settle)")
	g.p("rng := rand.New(rand.NewPCG(%d, %d^0x9e3779b97f4a7c15))", s.Seed, s.Seed)
	groups := "nil"
	if k.HasGroups() {
		var ps []string
		for _, c := range s.Consumers {
			ps = append(ps, prioText(c.Priority))
		}
		g.p("// Each %s's priority, which its tasks take.", k.groupNoun())
		g.p("groups := []core.Priority{%s}", strings.Join(ps, ", "))
		groups = "groups"
	}
	g.p("")
	g.p("// The bursts, in the order the playground draws their tasks.")
	if len(bursts) == 0 {
		g.p("bursts := [][]*task{}")
	} else {
		g.p("bursts := [][]*task{")
	}
	for i, cb := range bursts {
		from := "scenario"
		if cb.log {
			from = "log"
		}
		g.p("// burst %d (%s), at %s", i+1, from, msText(cb.at))
		g.p("r.draw(rng, burst{%s}, %s),", burstLiteral(s, cb.b), groups)
	}
	if len(bursts) > 0 {
		g.p("}")
	}
	if len(bursts) == 0 {
		g.p("_, _ = rng, bursts // no work yet: add bursts to the list above")
	}
	g.p("")
	g.primitive(s)
	g.p("")
	g.p("// The scenario's bursts and actions, at their times.")
	n := 0
	for _, cb := range bursts {
		if !cb.log {
			g.p("r.clock.AfterFunc(%s, func() { r.fire(bursts[%d]) })", durArg(cb.at), n)
		}
		n++
	}
	for _, a := range s.Actions {
		g.p("r.clock.AfterFunc(%s, func() { %s })", durArg(a.AtMS), actionCall(s, a.Do, a.N, ""))
	}
	g.p("")
	g.p("// What a person did, each at the point of the run it was done at: its")
	g.p("// time in ms, and how many of the clock's events had fired before it.")
	var entries []string
	n = 0
	for _, cb := range bursts {
		if !cb.log {
			n++
		}
	}
	for _, st := range s.Log {
		switch st.Do {
		case StepPause, StepStep:
			continue
		case StepBurst:
			if st.Burst == nil {
				continue
			}
			entries = append(entries, fmt.Sprintf("{at: %d, fired: %d, do: func() { r.fire(bursts[%d]) }},", st.AtMS, st.Fired, n))
			n++
		default:
			entries = append(entries, fmt.Sprintf("{at: %d, fired: %d, do: func() { %s }},", st.AtMS, st.Fired, actionCall(s, st.Do, st.N, st.Task)))
		}
	}
	if len(entries) == 0 {
		g.p("log := []step{}")
	} else {
		g.p("log := []step{")
		for _, e := range entries {
			g.p("%s", e)
		}
		g.p("}")
	}
	g.p("r.play(log, pace)")
	g.p("")
	g.p("stop()")
	g.p("r.wg.Wait()")
	g.p("r.report()")
	g.p("}")
}

// afterImports returns a Go source file without its package clause and
// imports.
func afterImports(src string) string {
	if i := strings.Index(src, "\n)\n"); i >= 0 {
		return src[i+3:]
	}
	return src
}

// actionCall writes the call that performs an action or a log entry.
func actionCall(s Scenario, do string, n int, task string) string {
	switch do {
	case StepCancel:
		return fmt.Sprintf("r.cancelTask(%q)", task)
	case ActionCancelAll:
		return "r.cancelAll()"
	case ActionLimit:
		return fmt.Sprintf("setLimit(%d)", n)
	case ActionDrain:
		return "drain()"
	case ActionClose:
		return "closeAll()"
	}
	return "// " + do
}

// primitive writes the making of the primitive and of the functions the
// run calls: r.submit (or r.backlog and r.feed), setLimit, drain,
// closeAll and stop. The primitive's Kind writes them.
func (g *gen) primitive(s Scenario) {
	KindOf(s.Primitive).code(g, s)
	g.p("_, _, _ = setLimit, drain, closeAll")
}

// capacityOption writes the scenario's WithCapacity option, after a comma,
// or "".
func capacityOption(s Scenario) string {
	if s.Capacity > 0 {
		return fmt.Sprintf(", core.WithCapacity(%d)", s.Capacity)
	}
	return ""
}

// consumeRuntime is the program's part for Consume: its consumers, and
// their hand-over, as the page's runner does it.
const consumeRuntime = `
// consumer is one Consume call. Its fields below the line are guarded by
// runner.mu.
type consumer struct {
	name string
	conc int
	ch   chan *task // holds one message: the one handed over and not yet taken
	stop context.CancelFunc

	backlog  []*task
	awaiting *task // handed over; its first events are on their way
	byID     map[uint64]*task
	inFlight int
	closed   bool
	canceled bool
}

// observeConsumer is consumer c's observer: Consume numbers its messages
// itself, and the message handed over last is the one it reports next.
func (r *runner) observeConsumer(c *consumer) func(core.Event) {
	return func(e core.Event) {
		r.mu.Lock()
		defer r.mu.Unlock()
		var t *task
		if e.Kind == core.Enqueued {
			if t = c.awaiting; t != nil {
				c.byID[e.Task] = t
			}
		} else if t = c.byID[e.Task]; t != nil && e.Kind.Terminal() {
			delete(c.byID, e.Task)
		}
		if t == nil {
			return
		}
		e.Name, e.Key = t.name, c.name
		if e.Kind == core.Failed && t.kicked && errors.Is(e.Err, context.Canceled) {
			e.Kind = core.Canceled // canceled by the program: not a failure
		}
		before := t.state
		r.apply(t, e)
		if e.Kind != core.Enqueued && c.awaiting == t {
			c.awaiting = nil // it is waiting for a token or running
		}
		switch {
		case before == "submitting" && t.state == "pending":
			c.inFlight++
		case before != "ended" && t.state == "ended":
			c.inFlight--
		}
	}
}

// feedConsumers hands the oldest message that can go to its consumer, or
// closes the channel of a draining consumer whose backlog is empty, and
// reports whether it did. r.mu must be held.
func (r *runner) feedConsumers(cons []*consumer) bool {
	var best *consumer
	for _, c := range cons {
		if c.awaiting != nil {
			return false
		}
		for len(c.backlog) > 0 && c.backlog[0].state != "backlog" {
			c.backlog = c.backlog[1:] // withdrawn
		}
		if c.closed || c.canceled {
			continue
		}
		if len(c.backlog) == 0 {
			if r.draining {
				c.closed = true
				close(c.ch)
				return true
			}
			continue
		}
		if c.inFlight < c.conc && (best == nil || c.backlog[0].n < best.backlog[0].n) {
			best = c
		}
	}
	if best == nil {
		return false
	}
	t := best.backlog[0]
	best.backlog = best.backlog[1:]
	best.awaiting = t
	t.state = "submitting"
	best.ch <- t
	return true
}
`

// burstLiteral writes b's fields for the program's burst type: every
// field the page draws with, so that the program draws the same.
func burstLiteral(s Scenario, b Burst) string {
	f := []string{fmt.Sprintf("count: %d, minMS: %d, maxMS: %d", b.Count, b.MinMS, b.MaxMS)}
	switch {
	case len(b.Levels) > 0:
		ls := make([]string, len(b.Levels))
		for i, l := range b.Levels {
			ls[i] = strconv.Itoa(l)
		}
		f = append(f, "levels: []int{"+strings.Join(ls, ", ")+"}")
	case b.Priority != (PriorityMix{}):
		f = append(f, fmt.Sprintf("low: %d, normal: %d, high: %d", b.Priority.Low, b.Priority.Normal, b.Priority.High))
	}
	if o := b.Outcome; o != (OutcomeMix{}) {
		f = append(f, fmt.Sprintf("ok: %d, fail: %d, panic: %d, slow: %d", o.OK, o.Fail, o.Panic, o.Slow))
	}
	k := KindOf(s.Primitive)
	if k.Keys {
		names := b.KeyNames
		if len(names) == 0 {
			for i := range b.Keys {
				names = append(names, KeyName(i))
			}
		}
		qs := make([]string, len(names))
		for i, k := range names {
			qs[i] = strconv.Quote(k)
		}
		f = append(f, "keys: []string{"+strings.Join(qs, ", ")+"}")
	}
	if k.Weights && b.Weight > 1 {
		f = append(f, fmt.Sprintf("weight: %d", b.Weight))
	}
	if k.HasGroups() && b.Consumer > 0 {
		f = append(f, fmt.Sprintf("consumer: %d", b.Consumer))
	}
	if b.CancelAfterMS > 0 {
		f = append(f, "cancelAfter: "+strings.ReplaceAll(durArg(b.CancelAfterMS), "*", " * "))
	}
	return strings.Join(f, ", ")
}

// durArg writes ms milliseconds as a Go duration expression.
func durArg(ms int) string {
	switch {
	case ms == 0:
		return "0"
	case ms%1000 == 0:
		return fmt.Sprintf("%d*time.Second", ms/1000)
	}
	return fmt.Sprintf("%d*time.Millisecond", ms)
}

// msText writes ms milliseconds for a comment.
func msText(ms int) string {
	if ms%1000 == 0 {
		return fmt.Sprintf("%d s", ms/1000)
	}
	return fmt.Sprintf("%g s", float64(ms)/1000)
}

// prioText writes a priority as Go code.
func prioText(p int) string {
	switch p {
	case -1:
		return "core.Low"
	case 0:
		return "core.Normal"
	case 1:
		return "core.High"
	}
	return fmt.Sprintf("core.Priority(%d)", p)
}
