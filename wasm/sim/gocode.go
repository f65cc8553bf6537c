package sim

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// GoCode returns a Go program that runs the scenario with sluice/core, in
// real time: the primitive made with the scenario's options, each burst's
// tasks submitted at its time with their priorities, keys and weights,
// and every scripted or logged action (limit changes, cancels, drain,
// close) at its time. Its tasks are drawn from math/rand/v2 seeded as the
// playground's are, in the same order, so each task has the priority,
// duration, outcome and key it has in the playground, and the same name.
// The program imports nothing outside the standard library but
// sluice/core. The scenario should be valid; GoCode does not fail.
func (s Scenario) GoCode() string {
	var g gen
	g.scenario(s)
	return indent(g.b.String())
}

// indent lays out the program as gofmt does, by the depth of its braces
// and parentheses: the code is written so that this is all it needs (one
// statement or element per line, no comment at the end of a line), and a
// test checks it against go/format, which the page does not carry.
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

// codeBurst is a burst in the order the playground draws its tasks, with
// the time it is submitted at.
type codeBurst struct {
	at int
	b  Burst
}

// codeStep is something the program does at a time: submit a burst (its
// index), or an action.
type codeStep struct {
	at    int
	burst int // -1: an action
	do    string
	n     int
	task  string
	log   bool // from the person's log: after the scenario's own steps of the instant
}

func (g *gen) scenario(s Scenario) {
	// The playground draws the scenario's bursts in order of time, then
	// those of the log as they come.
	var bursts []codeBurst
	var steps []codeStep
	for _, i := range burstOrder(s.Bursts) {
		steps = append(steps, codeStep{at: s.Bursts[i].AtMS, burst: len(bursts)})
		bursts = append(bursts, codeBurst{at: s.Bursts[i].AtMS, b: s.Bursts[i]})
	}
	for _, a := range s.Actions {
		steps = append(steps, codeStep{at: a.AtMS, burst: -1, do: a.Do, n: a.N})
	}
	for _, st := range s.Log {
		switch st.Do {
		case StepPause, StepStep:
		case StepBurst:
			if st.Burst != nil {
				steps = append(steps, codeStep{at: st.AtMS, burst: len(bursts), log: true})
				bursts = append(bursts, codeBurst{at: st.AtMS, b: *st.Burst})
			}
		default:
			steps = append(steps, codeStep{at: st.AtMS, burst: -1, do: st.Do, n: st.N, task: st.Task, log: true})
		}
	}
	slices.SortStableFunc(steps, func(a, b codeStep) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		switch {
		case a.log != b.log && a.log:
			return 1
		case a.log != b.log:
			return -1
		}
		return 0
	})

	g.p("// This program runs a Sluice playground scenario with sluice/core, in real time.")
	g.p("//")
	g.p("// Its tasks are drawn as the playground draws them (math/rand/v2, seed %d), so", s.Seed)
	g.p("// each has the name, priority, duration, outcome and key it has there. Each task")
	g.p("// sleeps its duration, then returns nil, returns an error or panics; a slow one")
	g.p("// sleeps %d times longer. Build it in a module that requires sluice/core.", SlowFactor)
	g.p("package main")
	g.p("")
	g.p("import (")
	g.p(`"context"`)
	g.p(`"errors"`)
	g.p(`"fmt"`)
	g.p(`"math/rand/v2"`)
	g.p(`"sync"`)
	g.p(`"sync/atomic"`)
	g.p(`"time"`)
	g.p("")
	g.p(`"sluice/core"`)
	g.p(")")
	g.p("")
	g.p("func main() {")
	g.p("ctx := context.Background()")
	g.p("rng := rand.New(rand.NewPCG(%d, %d^0x9e3779b97f4a7c15))", s.Seed, s.Seed)
	g.p("var counts counters")
	g.p("")
	g.p("// The bursts, in the order the playground draws their tasks.")
	if len(bursts) == 0 {
		g.p("bursts := [][]*task{}")
	} else {
		g.p("bursts := [][]*task{")
	}
	for i, cb := range bursts {
		g.p("// burst %d, at %s", i+1, msText(cb.at))
		g.p("draw(rng, burst{%s}),", burstLiteral(s, cb.b))
	}
	if len(bursts) > 0 {
		g.p("}")
	}
	g.p("")
	g.primitive(s)
	if len(bursts) == 0 {
		g.p("_, _, _ = rng, bursts, submit // no work yet: add bursts to the list above")
	}
	g.p("")
	g.p("start := time.Now()")
	g.p("at := func(ms int) { time.Sleep(time.Until(start.Add(time.Duration(ms) * time.Millisecond))) }")
	g.p("_ = at")
	for _, st := range steps {
		g.p("")
		g.p("at(%d)", st.at)
		if st.burst >= 0 {
			g.p("for _, t := range bursts[%d] {", st.burst)
			g.p("submit(t)")
			g.p("}")
			continue
		}
		g.action(s, st)
	}
	g.p("")
	g.finish(s)
	g.p("fmt.Printf(\"succeeded %%d, failed %%d, canceled %%d, panicked %%d, refused %%d, in %%v\\n\", " +
		"counts.succeeded.Load(), counts.failed.Load(), counts.canceled.Load(), counts.panicked.Load(), counts.refused.Load(), " +
		"time.Since(start).Round(time.Millisecond))")
	g.p("}")
	g.p("")
	g.common(s)
}

// common writes the types and functions every program shares: the task,
// its drawing, its body and the counters.
func (g *gen) common(s Scenario) {
	g.p(`// burst is a batch of tasks submitted together.
type burst struct {
	count, minMS, maxMS   int
	low, normal, high     int      // relative weights of the priorities
	levels                []int    // or: one of these priorities each, with equal chances
	ok, fail, panic, slow int      // relative weights of the outcomes
	keys                  []string // the key set (KeyedQueue)
	weight                int64    // tokens per task (Semaphore)
	consumer              int      // the consumer (Consume) or work queue (shared), from 1; 0 spreads the burst over them
	cancelAfter           time.Duration
}

// task is one task of a burst, drawn as the playground draws it.
type task struct {
	name        string
	prio        core.Priority
	outcome     string
	dur         time.Duration
	key         string
	weight      int64
	consumer    int // from 0
	cancelAfter time.Duration

	ctx    context.Context // canceled to cancel the task
	cancel context.CancelFunc
}

var made, spread int

// pick draws one of vs with the relative weights ws, or def if they are all 0.
func pick[T any](rng *rand.Rand, def T, vs []T, ws []int) T {
	total := 0
	for _, w := range ws {
		total += w
	}
	if total == 0 {
		return def
	}
	x := rng.IntN(total)
	for i, w := range ws {
		if x < w {
			return vs[i]
		}
		x -= w
	}
	return def
}

// draw makes the tasks of b, drawing their parameters from rng.
func draw(rng *rand.Rand, b burst) []*task {
	ts := make([]*task, 0, b.count)
	for range b.count {
		made++
		t := &task{name: fmt.Sprintf("t%%d", made), weight: max(b.weight, 1), cancelAfter: b.cancelAfter}
		if len(b.levels) > 0 {
			t.prio = core.Priority(b.levels[rng.IntN(len(b.levels))])
		} else {
			t.prio = pick(rng, core.Normal, []core.Priority{core.Low, core.Normal, core.High}, []int{b.low, b.normal, b.high})
		}
		t.outcome = pick(rng, "ok", []string{"ok", "fail", "panic", "slow"}, []int{b.ok, b.fail, b.panic, b.slow})
		t.dur = time.Duration(b.minMS+rng.IntN(b.maxMS-b.minMS+1)) * time.Millisecond
		if t.outcome == "slow" {
			t.dur *= %d
		}`, SlowFactor)
	switch s.Primitive {
	case Keyed:
		g.p(`		t.key = b.keys[rng.IntN(len(b.keys))]`)
	case Consume, Shared:
		list := "consumers"
		if s.Primitive == Shared {
			list = "queues"
		}
		g.p(`		if b.consumer > 0 {
			t.consumer = b.consumer - 1
		} else {
			t.consumer = spread %% len(%s)
			spread++
		}
		t.prio = %s[t.consumer].prio`, list, list)
	}
	g.p(`		ts = append(ts, t)
	}
	return ts
}

// work is a task's body: it sleeps the task's duration, or until ctx ends,
// then does what its outcome says.
func work(t *task) func(context.Context) error {
	return func(ctx context.Context) error {
		timer := time.NewTimer(t.dur)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-ctx.Done():
			return ctx.Err()
		}
		switch t.outcome {
		case "fail":
			return errors.New(t.name + " failed")
		case "panic":
			panic(t.name + " panicked")
		}
		return nil
	}
}

// counters count the tasks' ends, from the primitive's events.
type counters struct{ succeeded, failed, canceled, panicked, refused atomic.Int64 }

func (c *counters) observe(e core.Event) {
	switch e.Kind {
	case core.Finished:
		c.succeeded.Add(1)
	case core.Failed:
		c.failed.Add(1)
	case core.Canceled:
		c.canceled.Add(1)
	case core.Panicked:
		c.panicked.Add(1)
	}
}
`)
	switch s.Primitive {
	case Consume:
		g.p("// consumers share one semaphore; their messages take their priority on it.")
		g.consumerTable(s, "consumers", "concurrency")
	case Shared:
		g.p("// queues share one semaphore: each runs at most parallelism tasks at once, and")
		g.p("// its tasks take its priority, in the queue and on the semaphore.")
		g.consumerTable(s, "queues", "parallelism")
	}
}

// consumerTable writes the scenario's Consumers (consume's consumers,
// shared's work queues) as a table named name, with each one's
// Concurrency in the field size and its priority in prio.
func (g *gen) consumerTable(s Scenario, name, size string) {
	g.p("var %s = []struct {", name)
	g.p("%s int", size)
	g.p("prio%s core.Priority", strings.Repeat(" ", max(len(size)-len("prio"), 0)))
	g.p("}{")
	for _, c := range s.Consumers {
		g.p("{%d, %s},", c.Concurrency, prioText(c.Priority))
	}
	g.p("}")
	g.p("")
}

// primitive writes the making of the primitive and of submit.
func (g *gen) primitive(s Scenario) {
	observe := "core.WithObserver(counts.observe)"
	g.p("// tasks holds every task submitted, by name.")
	g.p("tasks := map[string]*task{}")
	g.p("var mu sync.Mutex // guards tasks")
	if s.Primitive != Consume {
		g.p("var wg sync.WaitGroup")
	}
	switch s.Primitive {
	case Semaphore:
		opts := []string{observe}
		if s.AgingMS > 0 {
			opts = append(opts, fmt.Sprintf("core.WithAging(%s)", durArg(s.AgingMS)))
		}
		g.p("sem := core.NewSemaphore(%d, %s)", s.Limit, strings.Join(opts, ", "))
		g.p("var closed atomic.Bool // the semaphore has no Close or Drain of its own: the program refuses new tasks")
		g.ctxSubmit("closed.Load()", `wg.Add(1)
go func() {
	defer wg.Done()
	defer t.cancel()
	sem.Do(t.ctx, t.weight, work(t), core.WithPriority(t.prio), core.WithName(t.name))
}()`)
	case WorkQueue, Processor, Keyed, Shared:
		var opts []string
		switch s.Primitive {
		case Keyed:
			if s.Limit > 0 {
				opts = append(opts, fmt.Sprintf("core.WithParallelism(%d)", s.Limit))
			}
			if s.IdleMS > 0 {
				opts = append(opts, fmt.Sprintf("core.WithIdleTimeout(%s)", durArg(s.IdleMS)))
			}
		}
		if s.Capacity > 0 {
			opts = append(opts, fmt.Sprintf("core.WithCapacity(%d)", s.Capacity))
		}
		opts = append(opts, observe)
		switch s.Primitive {
		case Shared:
			g.p("// One limit across the queues: each task takes a token of sem while it runs.")
			g.p("sem := core.NewSemaphore(%d)", s.Limit)
			g.p("qs := make([]*core.WorkQueue, len(queues))")
			g.p("for i, c := range queues {")
			g.p("qs[i] = core.NewWorkQueue(c.parallelism, %s)", strings.Join(append([]string{"core.WithSemaphore(sem)"}, opts...), ", "))
			g.p("}")
			g.p("try := func(t *task) (*core.Task, error) {")
			g.p("return qs[t.consumer].TrySubmit(work(t), core.WithPriority(t.prio), core.WithName(t.name))")
			g.p("}")
		case WorkQueue:
			g.p("q := core.NewWorkQueue(%d, %s)", s.Limit, strings.Join(opts, ", "))
			g.p("try := func(t *task) (*core.Task, error) {")
			g.p("return q.TrySubmit(work(t), core.WithPriority(t.prio), core.WithName(t.name))")
			g.p("}")
		case Processor:
			g.p("// The processor's function is the task's body; its result is the time the task slept.")
			g.p("q := core.NewProcessor(%d, func(ctx context.Context, t *task) (time.Duration, error) {", s.Limit)
			g.p("return t.dur, work(t)(ctx)")
			g.p("}, %s)", strings.Join(opts, ", "))
			g.p("try := func(t *task) (*core.Task, error) {")
			g.p("f, err := q.TrySubmit(t, core.WithPriority(t.prio), core.WithName(t.name))")
			g.p("if err != nil {")
			g.p("return nil, err")
			g.p("}")
			g.p("return f.Task(), nil")
			g.p("}")
		case Keyed:
			g.p("q := core.NewKeyedQueue[string](%s)", strings.Join(opts, ", "))
			g.p("try := func(t *task) (*core.Task, error) {")
			g.p("return q.TrySubmit(t.key, work(t), core.WithPriority(t.prio), core.WithName(t.name))")
			g.p("}")
		}
		g.p(`handles := map[string]*core.Task{}
submit := func(t *task) {
	h, err := try(t) // ErrFull beyond the capacity, ErrClosed once drained or closed
	if err != nil {
		counts.refused.Add(1)
		return
	}
	if t.cancelAfter > 0 {
		time.AfterFunc(t.cancelAfter, h.Cancel)
	}
	mu.Lock()
	tasks[t.name], handles[t.name] = t, h
	mu.Unlock()
}`)
	case Consume:
		g.p("sem := core.NewSemaphore(%d)", s.Limit)
		g.p(`// Each consumer reads its own channel, buffered for every task of the
// scenario so that sending a burst never blocks the program's timeline.
chans := make([]chan *task, len(consumers))
stops := make([]context.CancelFunc, len(consumers))
var consumed sync.WaitGroup
for i, c := range consumers {
	chans[i] = make(chan *task, made)
	var cctx context.Context
	cctx, stops[i] = context.WithCancel(ctx)
	consumed.Add(1)
	go func() {
		defer consumed.Done()
		core.Consume(cctx, chans[i], func(ctx context.Context, t *task) error {
			ctx, stop := context.WithCancel(ctx)
			defer stop()
			defer context.AfterFunc(t.ctx, stop)()
			return work(t)(ctx)
		}, core.WithConcurrency(c.concurrency), core.WithSemaphore(sem), core.WithPriority(c.prio), core.WithObserver(counts.observe))
	}()
}
var drained bool`)
		g.ctxSubmit("drained", "chans[t.consumer] <- t")
	}
	g.p("cancelTask := func(name string) {")
	g.p("mu.Lock()")
	g.p("defer mu.Unlock()")
	switch s.Primitive {
	case WorkQueue, Processor, Keyed, Shared:
		g.p("if h := handles[name]; h != nil {")
		g.p("h.Cancel()")
		g.p("}")
	default:
		g.p("if t := tasks[name]; t != nil {")
		g.p("t.cancel()")
		g.p("}")
	}
	g.p("}")
	g.p("cancelAll := func() {")
	g.p("mu.Lock()")
	g.p("names := make([]string, 0, len(tasks))")
	g.p("for name := range tasks {")
	g.p("names = append(names, name)")
	g.p("}")
	g.p("mu.Unlock()")
	g.p("for _, name := range names {")
	g.p("cancelTask(name)")
	g.p("}")
	g.p("}")
	g.p("_, _ = cancelTask, cancelAll")
}

// ctxSubmit writes submit for the primitives whose tasks the program
// cancels through a context of the task's own (semaphore, consume): a
// task is refused while refused, a Go condition, holds; otherwise it gets
// its context, canceled after its cancel-after, is recorded in tasks, and
// is handed to the primitive by handOff, Go statements.
func (g *gen) ctxSubmit(refused, handOff string) {
	g.p(`submit := func(t *task) {
	if %s {
		counts.refused.Add(1)
		return
	}
	t.ctx, t.cancel = context.WithCancel(ctx)
	if t.cancelAfter > 0 {
		time.AfterFunc(t.cancelAfter, t.cancel)
	}
	mu.Lock()
	tasks[t.name] = t
	mu.Unlock()
	%s
}`, refused, handOff)
}

// action writes what the program does for an action.
func (g *gen) action(s Scenario, st codeStep) {
	switch st.do {
	case StepCancel:
		g.p("cancelTask(%q) // canceled by hand", st.task)
	case ActionCancelAll:
		g.p("cancelAll()")
	case ActionLimit:
		switch s.Primitive {
		case Semaphore, Consume, Shared:
			g.p("sem.SetLimit(%d)", st.n)
		case WorkQueue, Processor:
			g.p("q.SetParallelism(%d)", st.n)
		}
	case ActionDrain:
		switch s.Primitive {
		case Semaphore:
			g.p("closed.Store(true) // drain: refuse new tasks; those accepted finish")
		case Consume:
			g.p("// Drain: each consumer returns once it has handled what it was sent.")
			g.p("if !drained {")
			g.p("drained = true")
			g.p("for _, ch := range chans {")
			g.p("close(ch)")
			g.p("}")
			g.p("}")
		case Shared:
			g.p("// Drain waits for the accepted work: the timeline goes on meanwhile.")
			g.p("for _, q := range qs {")
			g.p("wg.Add(1)")
			g.p("go func() {")
			g.p("defer wg.Done()")
			g.p("q.Drain(ctx)")
			g.p("}()")
			g.p("}")
		default:
			g.p("wg.Add(1)")
			g.p("// Drain waits for the accepted work: the timeline goes on meanwhile.")
			g.p("go func() {")
			g.p("defer wg.Done()")
			g.p("q.Drain(ctx)")
			g.p("}()")
		}
	case ActionClose:
		switch s.Primitive {
		case Semaphore:
			g.p("closed.Store(true) // close: refuse new tasks and cancel every task")
			g.p("cancelAll()")
		case Consume:
			g.p("// Close: every consumer stops.")
			g.p("for _, stop := range stops {")
			g.p("stop()")
			g.p("}")
			g.p("consumed.Wait()")
			g.p("drained = true")
		case Shared:
			g.p("for _, q := range qs {")
			g.p("q.Close() // cancels pending and running work, and waits")
			g.p("}")
		default:
			g.p("q.Close() // cancels pending and running work, and waits")
		}
	}
}

// finish writes the wait for the run's end.
func (g *gen) finish(s Scenario) {
	g.p("// Wait for every task.")
	switch s.Primitive {
	case Semaphore:
		g.p("wg.Wait()")
	case Consume:
		g.p("if !drained {")
		g.p("for _, ch := range chans {")
		g.p("close(ch)")
		g.p("}")
		g.p("}")
		g.p("consumed.Wait()")
		g.p("for _, stop := range stops {")
		g.p("stop()")
		g.p("}")
	default:
		g.p("mu.Lock()")
		g.p("for _, h := range handles {")
		g.p("h.Wait(ctx)")
		g.p("}")
		g.p("mu.Unlock()")
		g.p("wg.Wait()")
		if s.Primitive == Shared {
			g.p("for _, q := range qs {")
			g.p("q.Close()")
			g.p("}")
		} else {
			g.p("q.Close()")
		}
	}
}

// burstLiteral writes b's fields for the program's burst type.
func burstLiteral(s Scenario, b Burst) string {
	f := []string{fmt.Sprintf("count: %d, minMS: %d, maxMS: %d", b.Count, b.MinMS, b.MaxMS)}
	if !SharesSemaphore(s.Primitive) {
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
	}
	if o := b.Outcome; o != (OutcomeMix{}) {
		f = append(f, fmt.Sprintf("ok: %d, fail: %d, panic: %d, slow: %d", o.OK, o.Fail, o.Panic, o.Slow))
	}
	switch s.Primitive {
	case Keyed:
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
	case Semaphore:
		if b.Weight > 1 {
			f = append(f, fmt.Sprintf("weight: %d", b.Weight))
		}
	case Consume, Shared:
		if b.Consumer > 0 {
			f = append(f, fmt.Sprintf("consumer: %d", b.Consumer))
		}
	}
	if b.CancelAfterMS > 0 {
		f = append(f, "cancelAfter: "+durText(b.CancelAfterMS))
	}
	return strings.Join(f, ", ")
}

// durText writes ms milliseconds as a Go duration expression.
func durText(ms int) string {
	switch {
	case ms%1000 == 0:
		return fmt.Sprintf("%d * time.Second", ms/1000)
	}
	return fmt.Sprintf("%d * time.Millisecond", ms)
}

// durArg writes ms milliseconds as a Go duration expression in a call's
// arguments, where gofmt writes it without spaces.
func durArg(ms int) string { return strings.ReplaceAll(durText(ms), " * ", "*") }

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
