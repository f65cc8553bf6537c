package core_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"runtime/trace"
	"slices"
	"strings"
	"testing"

	xtrace "golang.org/x/exp/trace"

	"sluice/core"
)

// traced is what a trace says of one runtime/trace task.
type traced struct {
	id, parent xtrace.TaskID
	typ        string
	logs       []string // "category=message", in order
	logGs      map[string]xtrace.GoID
	regions    []string // region types begun in the task, in order
	regionGs   map[string]xtrace.GoID
	ended      bool
}

func (tt *traced) log(cat string) string {
	for _, l := range tt.logs {
		if c, m, _ := strings.Cut(l, "="); c == cat {
			return m
		}
	}
	return ""
}

func (tt *traced) has(cat string) bool {
	for _, l := range tt.logs {
		if c, _, _ := strings.Cut(l, "="); c == cat {
			return true
		}
	}
	return false
}

// readTrace parses an execution trace with golang.org/x/exp/trace and
// returns its tasks by ID.
func readTrace(t *testing.T, data []byte) map[xtrace.TaskID]*traced {
	t.Helper()
	r, err := xtrace.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	tasks := map[xtrace.TaskID]*traced{}
	get := func(id xtrace.TaskID) *traced {
		tt := tasks[id]
		if tt == nil {
			tt = &traced{id: id, logGs: map[string]xtrace.GoID{}, regionGs: map[string]xtrace.GoID{}}
			tasks[id] = tt
		}
		return tt
	}
	for {
		ev, err := r.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("ReadEvent: %v", err)
		}
		switch ev.Kind() {
		case xtrace.EventTaskBegin:
			k := ev.Task()
			tt := get(k.ID)
			tt.parent, tt.typ = k.Parent, k.Type
		case xtrace.EventTaskEnd:
			get(ev.Task().ID).ended = true
		case xtrace.EventLog:
			l := ev.Log()
			tt := get(l.Task)
			tt.logs = append(tt.logs, l.Category+"="+l.Message)
			tt.logGs[l.Category] = ev.Goroutine()
		case xtrace.EventRegionBegin:
			g := ev.Region()
			tt := get(g.Task)
			tt.regions = append(tt.regions, g.Type)
			tt.regionGs[g.Type] = ev.Goroutine()
		}
	}
	return tasks
}

// children returns the tasks whose parent is id, in ID order.
func children(tasks map[xtrace.TaskID]*traced, id xtrace.TaskID) []*traced {
	var out []*traced
	for _, tt := range tasks {
		if tt.parent == id && tt.typ != "" {
			out = append(out, tt)
		}
	}
	slices.SortFunc(out, func(a, b *traced) int { return int(a.id) - int(b.id) })
	return out
}

// traceRun runs fn while tracing, with a context in a root task of its
// own, and returns the tasks read back and the root's ID.
func traceRun(t *testing.T, fn func(ctx context.Context)) (map[xtrace.TaskID]*traced, xtrace.TaskID) {
	t.Helper()
	if trace.IsEnabled() {
		t.Skip("tracing is on already (go test -trace): the test cannot take a trace of its own")
	}
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Fatalf("trace.Start: %v", err)
	}
	ctx, root := trace.NewTask(context.Background(), "test.root")
	fn(ctx)
	root.End()
	trace.Stop()
	tasks := readTrace(t, buf.Bytes())
	var rootID xtrace.TaskID
	for _, tt := range tasks {
		if tt.typ == "test.root" {
			rootID = tt.id
		}
	}
	if rootID == 0 {
		t.Fatal("the test's root task is not in the trace")
	}
	return tasks, rootID
}

var queueLabel = regexp.MustCompile(`^(WorkQueue|Processor|KeyedQueue|Semaphore|Consume) [1-9][0-9]*$`)

// checkContract checks what every sluice task of the trace must hold: its
// logs in the contract's order, a label, and, once started, its lane log
// and run region on one goroutine.
func checkContract(t *testing.T, tt *traced) {
	t.Helper()
	if !strings.HasPrefix(tt.typ, "sluice.") {
		t.Errorf("task %d: type %q, want a sluice. type", tt.id, tt.typ)
	}
	if !tt.ended {
		t.Errorf("task %d (%s): not ended", tt.id, tt.typ)
	}
	if q := tt.log("sluice.queue"); !queueLabel.MatchString(q) || !strings.HasSuffix(tt.typ, strings.Fields(q + " x")[0]) {
		t.Errorf("task %d (%s): sluice.queue %q, want its kind and a number", tt.id, tt.typ, q)
	}
	order := []string{"sluice.queue", "sluice.name", "sluice.key", "sluice.priority", "sluice.weight", "sluice.lane", "sluice.outcome"}
	last := -1
	for _, l := range tt.logs {
		c, _, _ := strings.Cut(l, "=")
		if !strings.HasPrefix(c, "sluice.") {
			continue // the function's own
		}
		i := slices.Index(order, c)
		if i < 0 || i <= last {
			t.Errorf("task %d (%s): logs %q, want them in the order %q", tt.id, tt.typ, tt.logs, order)
			break
		}
		last = i
	}
	if tt.log("sluice.outcome") == "" {
		t.Errorf("task %d (%s): no sluice.outcome in %q", tt.id, tt.typ, tt.logs)
	}
	if tt.has("sluice.lane") {
		if !slices.Contains(tt.regions, "sluice.run") {
			t.Errorf("task %d (%s): started (%q) without a sluice.run region", tt.id, tt.typ, tt.logs)
		} else if tt.logGs["sluice.lane"] != tt.regionGs["sluice.run"] {
			t.Errorf("task %d (%s): sluice.lane logged on goroutine %d, run region on %d", tt.id, tt.typ, tt.logGs["sluice.lane"], tt.regionGs["sluice.run"])
		}
	} else if slices.Contains(tt.regions, "sluice.run") {
		t.Errorf("task %d (%s): a run region without a sluice.lane log", tt.id, tt.typ)
	}
}

func TestRuntimeTrace(t *testing.T) {
	t.Run("WorkQueue", func(t *testing.T) {
		boom := errors.New("boom")
		tasks, root := traceRun(t, func(ctx context.Context) {
			q := core.NewWorkQueue(1)
			defer q.Close()
			hold := make(chan struct{})
			first, err := q.Submit(ctx, func(ctx context.Context) error {
				trace.Log(ctx, "user", "inside")
				<-hold
				return nil
			}, core.WithName("first"), core.WithPriority(core.High))
			if err != nil {
				t.Fatal(err)
			}
			fail, _ := q.Submit(ctx, func(context.Context) error { return boom })
			panicky, _ := q.Submit(ctx, func(context.Context) error { panic("p") })
			cctx, cancel := context.WithCancel(ctx)
			gone, _ := q.Submit(cctx, func(context.Context) error { return nil }, core.WithPriority(core.Low))
			cancel() // canceled while it waits: it never starts
			<-gone.Done()
			close(hold)
			for _, x := range []*core.Task{first, fail, panicky} {
				x.Wait(context.Background())
			}
			if _, err := q.TrySubmit(func(context.Context) error { return nil }); err != nil {
				t.Fatal(err)
			}
		})
		got := children(tasks, root)
		want := []struct{ name, prio, outcome string }{
			{"first", "1", "finished"},
			{"", "0", "failed"},
			{"", "0", "panicked"},
			{"", "-1", "canceled"},
		}
		if len(got) != len(want) {
			t.Fatalf("got %d sluice tasks under the submitter's task, want %d (TrySubmit's has no submitter task)", len(got), len(want))
		}
		for i, w := range want {
			tt := got[i]
			checkContract(t, tt)
			if tt.typ != "sluice.WorkQueue" {
				t.Errorf("task %d: type %q, want sluice.WorkQueue", i, tt.typ)
			}
			if g := tt.log("sluice.name"); g != w.name || tt.has("sluice.name") != (w.name != "") {
				t.Errorf("task %d: sluice.name %q, want %q", i, g, w.name)
			}
			if g := tt.log("sluice.priority"); g != w.prio {
				t.Errorf("task %d: sluice.priority %q, want %q", i, g, w.prio)
			}
			if g := tt.log("sluice.outcome"); g != w.outcome {
				t.Errorf("task %d: sluice.outcome %q, want %q", i, g, w.outcome)
			}
			if g := tt.log("sluice.queue"); g != got[0].log("sluice.queue") {
				t.Errorf("task %d: sluice.queue %q, want the queue's one label %q", i, g, got[0].log("sluice.queue"))
			}
			if tt.has("sluice.weight") || tt.has("sluice.key") {
				t.Errorf("task %d: logs %q: a WorkQueue task has no weight or key", i, tt.logs)
			}
			if started := w.outcome != "canceled"; tt.has("sluice.lane") != started {
				t.Errorf("task %d: logs %q, want a sluice.lane log: %v", i, tt.logs, started)
			} else if started && tt.log("sluice.lane") != "0" {
				t.Errorf("task %d: sluice.lane %q, want 0 (one slot)", i, tt.log("sluice.lane"))
			}
		}
		// The function's context carries its task: a user log made in it
		// belongs to it.
		if !slices.Contains(got[0].logs, "user=inside") {
			t.Errorf("first task's logs %q, want the function's own log user=inside in it", got[0].logs)
		}
	})

	t.Run("Processor and KeyedQueue", func(t *testing.T) {
		tasks, root := traceRun(t, func(ctx context.Context) {
			p := core.NewProcessor(2, func(_ context.Context, n int) (int, error) { return n * 2, nil })
			defer p.Close()
			if _, err := p.Process(ctx, 21); err != nil {
				t.Fatal(err)
			}
			k := core.NewKeyedQueue[int]()
			defer k.Close()
			for _, key := range []int{7, 7, 8} {
				if err := k.Do(ctx, key, func(context.Context) error { return nil }, core.WithName(fmt.Sprint("k", key))); err != nil {
					t.Fatal(err)
				}
			}
		})
		got := children(tasks, root)
		wantTypes := []string{"sluice.Processor", "sluice.KeyedQueue", "sluice.KeyedQueue", "sluice.KeyedQueue"}
		var types []string
		for _, tt := range got {
			checkContract(t, tt)
			types = append(types, tt.typ)
		}
		if !slices.Equal(types, wantTypes) {
			t.Fatalf("task types %q, want %q", types, wantTypes)
		}
		for i, key := range []string{"7", "7", "8"} {
			tt := got[i+1]
			if g := tt.log("sluice.key"); g != key {
				t.Errorf("keyed task %d: sluice.key %q, want %q", i, g, key)
			}
			if g := tt.log("sluice.outcome"); g != "finished" {
				t.Errorf("keyed task %d: sluice.outcome %q, want finished", i, g)
			}
		}
		if a, b := got[1].log("sluice.lane"), got[3].log("sluice.lane"); a == b {
			t.Errorf("keys 7 and 8 both on lane %q, want a lane each (7's lives on)", a)
		}
	})

	t.Run("sharded KeyedQueue", func(t *testing.T) {
		tasks, root := traceRun(t, func(ctx context.Context) {
			k := core.NewKeyedQueueShards[int](4)
			defer k.Close()
			for key := range 16 {
				if err := k.Do(ctx, key, func(context.Context) error { return nil }); err != nil {
					t.Fatal(err)
				}
			}
		})
		got := children(tasks, root)
		if len(got) != 16 {
			t.Fatalf("got %d sluice tasks, want 16", len(got))
		}
		lanes := map[string]bool{}
		for i, tt := range got {
			checkContract(t, tt)
			if g, w := tt.log("sluice.queue"), got[0].log("sluice.queue"); g != w {
				t.Errorf("task %d: sluice.queue %q, want the queue's one label %q, whichever shard its key is in", i, g, w)
			}
			lanes[tt.log("sluice.lane")] = true
		}
		if len(lanes) != 16 {
			t.Errorf("16 live keys on %d lanes, want 16", len(lanes))
		}
	})

	t.Run("Semaphore and Consume", func(t *testing.T) {
		tasks, root := traceRun(t, func(ctx context.Context) {
			s := core.NewSemaphore(2)
			if err := s.Acquire(ctx, 2); err != nil {
				t.Fatal(err)
			}
			done := make(chan error)
			go func() {
				done <- s.Do(ctx, 2, func(context.Context) error { return nil }, core.WithName("heavy"))
			}()
			for s.Stats().Waiters == 0 {
				runtime.Gosched()
			}
			s.Release(2)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			msgs := make(chan int, 2)
			msgs <- 1
			msgs <- 2
			close(msgs)
			if err := core.Consume(ctx, msgs, func(context.Context, int) error { return nil }, core.WithSemaphore(s), core.WithPriority(core.High)); err != nil {
				t.Fatal(err)
			}
		})
		got := children(tasks, root)
		var types []string
		for _, tt := range got {
			checkContract(t, tt)
			types = append(types, tt.typ)
		}
		if want := []string{"sluice.Semaphore", "sluice.Consume", "sluice.Consume"}; !slices.Equal(types, want) {
			t.Fatalf("task types %q, want %q", types, want)
		}
		do := got[0]
		if do.log("sluice.weight") != "2" || do.log("sluice.name") != "heavy" || do.log("sluice.outcome") != "finished" {
			t.Errorf("Semaphore.Do's logs %q, want weight 2, name heavy, outcome finished", do.logs)
		}
		if !slices.Equal(do.regions, []string{"sluice.wait", "sluice.run"}) {
			t.Errorf("Semaphore.Do's regions %q, want a wait, then the run", do.regions)
		}
		for _, c := range got[1:] {
			if c.log("sluice.priority") != "1" || c.has("sluice.weight") || c.log("sluice.outcome") != "finished" {
				t.Errorf("Consume task's logs %q, want priority 1, no weight, outcome finished", c.logs)
			}
		}
	})

	t.Run("a queue's wait for its shared semaphore", func(t *testing.T) {
		tasks, root := traceRun(t, func(ctx context.Context) {
			s := core.NewSemaphore(1)
			q := core.NewWorkQueue(2, core.WithSemaphore(s))
			defer q.Close()
			if err := s.Acquire(ctx, 1); err != nil {
				t.Fatal(err)
			}
			task, err := q.Submit(ctx, func(context.Context) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			for s.Stats().Waiters == 0 {
				runtime.Gosched()
			}
			s.Release(1)
			task.Wait(ctx)
		})
		got := children(tasks, root)
		if len(got) != 1 {
			t.Fatalf("got %d sluice tasks, want 1", len(got))
		}
		checkContract(t, got[0])
		if want := []string{"sluice.wait", "sluice.run"}; !slices.Equal(got[0].regions, want) {
			t.Errorf("regions %q, want %q: the token's wait is in the task", got[0].regions, want)
		}
	})

	t.Run("refused and untraced tasks make none", func(t *testing.T) {
		q := core.NewWorkQueue(1, core.WithCapacity(1))
		defer q.Close()
		hold := make(chan struct{})
		defer close(hold)
		tasks, root := traceRun(t, func(ctx context.Context) {
			q.Submit(ctx, func(context.Context) error { <-hold; return nil })
			q.Submit(ctx, func(context.Context) error { return nil }) // waits in the queue
			if _, err := q.TrySubmit(func(context.Context) error { return nil }); !errors.Is(err, core.ErrFull) {
				t.Errorf("TrySubmit: %v, want ErrFull", err)
			}
		})
		if got := len(children(tasks, root)); got != 2 {
			t.Errorf("got %d sluice tasks, want 2: a refused task is none", got)
		}
	})
}

// BenchmarkTraceHooks measures what core's runtime/trace hooks add to a
// task while tracing is off: the checks its enqueue, start and end make,
// one op one task. With tracing on they annotate (see BenchmarkRuntimeTrace
// in the bench module).
func BenchmarkTraceHooks(b *testing.B) {
	if trace.IsEnabled() {
		b.Skip("tracing is on")
	}
	b.ReportAllocs()
	b.ResetTimer()
	core.TraceHooks(b.N)
}
