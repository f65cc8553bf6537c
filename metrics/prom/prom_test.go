package prom_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"go.uber.org/goleak"

	"sluice/core"
	"sluice/metrics/prom"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// counts tallies the events an observer saw.
type counts struct {
	mu      sync.Mutex
	kinds   map[core.EventKind]int
	started map[uint64]bool
	endedUp int // terminal events of tasks that had started
}

func newCounts() *counts {
	return &counts{kinds: map[core.EventKind]int{}, started: map[uint64]bool{}}
}

func (c *counts) observe(e core.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.kinds[e.Kind]++
	if e.Kind == core.Started {
		c.started[e.Task] = true
	}
	if e.Kind.Terminal() && c.started[e.Task] {
		c.endedUp++
	}
}

// scrape gathers reg and returns each sample's value by "name{labels}",
// histograms as name_count.
func scrape(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var ls []string
			for _, l := range m.GetLabel() {
				if l.GetName() != "queue" {
					ls = append(ls, l.GetName()+"="+l.GetValue())
				}
			}
			sort.Strings(ls)
			key := mf.GetName()
			if len(ls) > 0 {
				key += "{" + strings.Join(ls, ",") + "}"
			}
			switch mf.GetType() {
			case dto.MetricType_GAUGE:
				out[key] = m.GetGauge().GetValue()
			case dto.MetricType_COUNTER:
				out[key] = m.GetCounter().GetValue()
			case dto.MetricType_HISTOGRAM:
				out[mf.GetName()+"_count"] += float64(m.GetHistogram().GetSampleCount())
				out[mf.GetName()+"_sum"] += m.GetHistogram().GetSampleSum()
			}
		}
	}
	return out
}

func want(t *testing.T, got map[string]float64, key string, v float64) {
	t.Helper()
	if got[key] != v {
		t.Errorf("%s = %v, want %v", key, got[key], v)
	}
}

func TestWorkQueueUnderLoad(t *testing.T) {
	seen := newCounts()
	c := prom.New("jobs")
	q := core.NewWorkQueue(3, core.WithObserver(c.Observer(seen.observe)), core.WithCapacity(0))
	c.Watch(q)
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)

	gate := make(chan struct{})
	boom := errors.New("boom")
	var wg sync.WaitGroup
	var cancels []context.CancelFunc
	var mu sync.Mutex
	const submitters, each = 8, 50
	for g := range submitters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				ctx, cancel := context.WithCancel(context.Background())
				mu.Lock()
				cancels = append(cancels, cancel)
				mu.Unlock()
				fn := func(context.Context) error { <-gate; return nil }
				switch i % 4 {
				case 1:
					fn = func(context.Context) error { <-gate; return boom }
				case 2:
					fn = func(context.Context) error { <-gate; panic("p") }
				}
				task, err := q.Submit(ctx, fn, core.WithPriority(core.Priority(g%3-1)))
				if err != nil {
					t.Error(err)
					continue
				}
				if i%4 == 3 {
					task.Cancel() // most are canceled while they wait
				}
			}
		}()
	}
	wg.Wait()
	// While the gate holds the running tasks, Stats holds still: the
	// gauges must read what it says.
	st := q.Stats()
	got := scrape(t, reg)
	want(t, got, "sluice_tasks_queued", float64(st.Pending))
	want(t, got, "sluice_tasks_running", float64(st.Running))
	want(t, got, "sluice_limit", 3)
	if st.Running != 3 || st.Pending == 0 {
		t.Errorf("Stats %+v: want 3 running and some pending under the load", st)
	}
	if got["sluice_oldest_pending_age_seconds"] <= 0 {
		t.Errorf("sluice_oldest_pending_age_seconds = %v, want > 0 while tasks wait", got["sluice_oldest_pending_age_seconds"])
	}

	close(gate)
	if err := q.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, cancel := range cancels {
		cancel()
	}
	st = q.Stats()
	got = scrape(t, reg)
	want(t, got, "sluice_tasks_total{outcome=finished}", float64(st.Succeeded))
	want(t, got, "sluice_tasks_total{outcome=failed}", float64(st.Failed))
	want(t, got, "sluice_tasks_total{outcome=canceled}", float64(st.Canceled))
	want(t, got, "sluice_tasks_total{outcome=panicked}", float64(st.Panicked))
	want(t, got, "sluice_tasks_queued", 0)
	want(t, got, "sluice_tasks_running", 0)
	seen.mu.Lock()
	defer seen.mu.Unlock()
	for k, name := range map[core.EventKind]string{core.Finished: "finished", core.Failed: "failed", core.Canceled: "canceled", core.Panicked: "panicked"} {
		want(t, got, "sluice_tasks_total{outcome="+name+"}", float64(seen.kinds[k]))
	}
	want(t, got, "sluice_task_wait_seconds_count", float64(seen.kinds[core.Started]))
	want(t, got, "sluice_task_run_seconds_count", float64(seen.endedUp))
	if total := st.Succeeded + st.Failed + st.Canceled + st.Panicked; total != submitters*each {
		t.Errorf("%d tasks ended, want %d", total, submitters*each)
	}
}

func TestKeyedQueueAndSemaphore(t *testing.T) {
	t.Run("KeyedQueue lanes", func(t *testing.T) {
		c := prom.New("devices")
		k := core.NewKeyedQueue[string](c.Option())
		defer k.Close()
		c.Watch(k)
		hold := make(chan struct{})
		for _, key := range []string{"a", "b", "c", "a"} {
			if _, err := k.Submit(context.Background(), key, func(context.Context) error { <-hold; return nil }); err != nil {
				t.Fatal(err)
			}
		}
		reg := prometheus.NewPedanticRegistry()
		reg.MustRegister(c)
		got := scrape(t, reg)
		want(t, got, "sluice_lanes", 3)
		want(t, got, "sluice_tasks_running", 3)
		want(t, got, "sluice_tasks_queued", 1)
		want(t, got, "sluice_limit", 0)
		close(hold)
	})
	t.Run("Semaphore", func(t *testing.T) {
		c := prom.New("db")
		s := core.NewSemaphore(2, c.Option())
		c.Watch(s)
		reg := prometheus.NewPedanticRegistry()
		reg.MustRegister(c)
		if err := s.Acquire(context.Background(), 2); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- s.Do(ctx, 1, func(context.Context) error { return nil }) }()
		for s.Stats().Waiters == 0 {
			runtime.Gosched()
		}
		got := scrape(t, reg)
		want(t, got, "sluice_tasks_queued", 1)
		want(t, got, "sluice_semaphore_tokens_in_use", 2)
		want(t, got, "sluice_limit", 2)
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("Do: %v, want canceled", err)
		}
		s.Release(2)
		if err := s.Do(context.Background(), 1, func(context.Context) error { return nil }); err != nil {
			t.Fatal(err)
		}
		got = scrape(t, reg)
		want(t, got, "sluice_tasks_total{outcome=canceled}", 1)
		want(t, got, "sluice_tasks_total{outcome=finished}", 2) // the Release and the Do
		want(t, got, "sluice_tasks_queued", 0)
		want(t, got, "sluice_semaphore_tokens_in_use", 0)
		want(t, got, "sluice_task_wait_seconds_count", 2)
		want(t, got, "sluice_task_wait_seconds_sum", 0) // both granted at once
	})
	t.Run("Consume", func(t *testing.T) {
		c := prom.New("inbox")
		msgs := make(chan int, 10)
		for i := range 10 {
			msgs <- i
		}
		close(msgs)
		err := core.Consume(context.Background(), msgs, func(_ context.Context, m int) error {
			if m%5 == 0 {
				return errors.New("bad")
			}
			return nil
		}, c.Option(), core.WithConcurrency(3))
		if err != nil {
			t.Fatal(err)
		}
		reg := prometheus.NewPedanticRegistry()
		reg.MustRegister(c)
		got := scrape(t, reg)
		want(t, got, "sluice_tasks_total{outcome=finished}", 8)
		want(t, got, "sluice_tasks_total{outcome=failed}", 2)
		want(t, got, "sluice_tasks_queued", 0)
		want(t, got, "sluice_tasks_running", 0)
		want(t, got, "sluice_task_run_seconds_count", 10)
	})
}

// TestExposition checks the metrics against Prometheus's own rules:
// client_golang's linter, a fixed expected text for the counters, and
// promtool check metrics (Debian package prometheus).
func TestExposition(t *testing.T) {
	c := prom.New("jobs")
	q := core.NewWorkQueue(2, c.Option())
	c.Watch(q)
	for i := range 4 {
		q.Do(context.Background(), func(context.Context) error {
			if i == 3 {
				return errors.New("x")
			}
			return nil
		}, core.WithPriority(core.High))
	}
	q.Close()

	t.Run("lint", func(t *testing.T) {
		problems, err := testutil.CollectAndLint(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Errorf("lint: %s: %s", p.Metric, p.Text)
		}
	})
	t.Run("values", func(t *testing.T) {
		const text = `
# HELP sluice_tasks_total Tasks ended, by outcome: finished, failed, canceled or panicked.
# TYPE sluice_tasks_total counter
sluice_tasks_total{outcome="canceled",queue="jobs"} 0
sluice_tasks_total{outcome="failed",queue="jobs"} 1
sluice_tasks_total{outcome="finished",queue="jobs"} 3
sluice_tasks_total{outcome="panicked",queue="jobs"} 0
# HELP sluice_limit The limit on running tasks or held tokens; 0 means unlimited.
# TYPE sluice_limit gauge
sluice_limit{queue="jobs"} 2
`
		if err := testutil.CollectAndCompare(c, strings.NewReader(text), "sluice_tasks_total", "sluice_limit"); err != nil {
			t.Error(err)
		}
		if n := testutil.CollectAndCount(c, "sluice_task_wait_seconds"); n != 1 {
			t.Errorf("%d wait histograms, want 1 (one priority)", n)
		}
	})
	t.Run("promtool", func(t *testing.T) {
		promtool, err := exec.LookPath("promtool")
		if err != nil {
			t.Fatal("promtool not found: install the Debian package prometheus")
		}
		reg := prometheus.NewPedanticRegistry()
		reg.MustRegister(c)
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		for _, mf := range mfs {
			if _, err := expfmt.MetricFamilyToText(&buf, mf); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(promtool, "check", "metrics")
		cmd.Stdin = &buf
		out, err := cmd.CombinedOutput()
		if err != nil || len(bytes.TrimSpace(out)) > 0 {
			t.Errorf("promtool check metrics: %v\n%s\non:\n%s", err, out, buf.String())
		}
	})
}

func TestObserverChains(t *testing.T) {
	var mine []core.EventKind
	c := prom.New("chained")
	q := core.NewWorkQueue(1, core.WithObserver(c.Observer(func(e core.Event) { mine = append(mine, e.Kind) })))
	c.Watch(q)
	q.Do(context.Background(), func(context.Context) error { return nil })
	q.Close()
	if got, want := fmt.Sprint(mine), "[enqueued started finished closed]"; got != want {
		t.Errorf("the caller's observer saw %s, want %s", got, want)
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	want(t, scrape(t, reg), "sluice_tasks_total{outcome=finished}", 1)
}

// TestManyPending runs more tasks pending at once than the collector's
// ring of live tasks holds, canceling some, and checks that every one is
// still timed and counted once.
func TestManyPending(t *testing.T) {
	seen := newCounts()
	c := prom.New("many")
	q := core.NewWorkQueue(1, core.WithObserver(c.Observer(seen.observe)))
	c.Watch(q)
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	gate := make(chan struct{})
	const n = 10_000
	var tasks []*core.Task
	for i := range n {
		task, err := q.Submit(context.Background(), func(context.Context) error { <-gate; return nil }, core.WithPriority(core.Priority(i%2)))
		if err != nil {
			t.Fatal(err)
		}
		tasks = append(tasks, task)
	}
	for i := 0; i < n; i += 7 {
		tasks[i].Cancel()
	}
	got := scrape(t, reg)
	want(t, got, "sluice_tasks_queued", float64(q.Stats().Pending))
	close(gate)
	if err := q.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	got = scrape(t, reg)
	seen.mu.Lock()
	defer seen.mu.Unlock()
	want(t, got, "sluice_task_wait_seconds_count", float64(seen.kinds[core.Started]))
	want(t, got, "sluice_task_run_seconds_count", float64(seen.endedUp))
	want(t, got, "sluice_tasks_total{outcome=canceled}", float64(seen.kinds[core.Canceled]))
	if seen.kinds[core.Started]+seen.kinds[core.Canceled] != n {
		t.Errorf("%d started and %d canceled, want %d in all", seen.kinds[core.Started], seen.kinds[core.Canceled], n)
	}
}
