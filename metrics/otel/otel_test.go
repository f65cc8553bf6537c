package otel_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.uber.org/goleak"

	"sluice/core"
	"sluice/metrics/otel"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// collect reads every data point: sums and gauges by "name" or
// "name/outcome", histograms' counts by "name".
func collect(t *testing.T, r *sdkmetric.ManualReader) map[string]float64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	out := map[string]float64{}
	for _, sm := range rm.ScopeMetrics {
		for _, mt := range sm.Metrics {
			switch d := mt.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					key := mt.Name
					if v, ok := p.Attributes.Value("sluice.outcome"); ok {
						key += "/" + v.AsString()
					}
					out[key] = float64(p.Value)
				}
			case metricdata.Gauge[int64]:
				for _, p := range d.DataPoints {
					out[mt.Name] = float64(p.Value)
				}
			case metricdata.Gauge[float64]:
				for _, p := range d.DataPoints {
					out[mt.Name] = p.Value
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					out[mt.Name] += float64(p.Count)
				}
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
	reader := sdkmetric.NewManualReader()
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer provider.Shutdown(context.Background())
	m, err := otel.New("jobs", otel.Config{MeterProvider: provider})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var mu sync.Mutex
	kinds := map[core.EventKind]int{}
	q := core.NewWorkQueue(3, core.WithObserver(m.Observer(func(e core.Event) {
		mu.Lock()
		kinds[e.Kind]++
		mu.Unlock()
	})))
	m.Watch(q)

	gate := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				fn := func(context.Context) error { <-gate; return nil }
				if i%3 == 1 {
					fn = func(context.Context) error { <-gate; return errors.New("x") }
				}
				task, err := q.Submit(context.Background(), fn, core.WithPriority(core.Priority(g%2)))
				if err != nil {
					t.Error(err)
					continue
				}
				if i%5 == 4 {
					task.Cancel()
				}
			}
		}()
	}
	wg.Wait()
	st := q.Stats()
	got := collect(t, reader)
	want(t, got, "sluice.tasks.queued", float64(st.Pending))
	want(t, got, "sluice.tasks.running", float64(st.Running))
	want(t, got, "sluice.limit", 3)
	if got["sluice.oldest_pending.age"] <= 0 {
		t.Errorf("sluice.oldest_pending.age = %v, want > 0 while tasks wait", got["sluice.oldest_pending.age"])
	}
	close(gate)
	if err := q.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	st = q.Stats()
	got = collect(t, reader)
	want(t, got, "sluice.tasks/finished", float64(st.Succeeded))
	want(t, got, "sluice.tasks/failed", float64(st.Failed))
	want(t, got, "sluice.tasks/canceled", float64(st.Canceled))
	mu.Lock()
	defer mu.Unlock()
	want(t, got, "sluice.tasks/finished", float64(kinds[core.Finished]))
	want(t, got, "sluice.tasks/failed", float64(kinds[core.Failed]))
	want(t, got, "sluice.tasks/canceled", float64(kinds[core.Canceled]))
	want(t, got, "sluice.task.wait.duration", float64(kinds[core.Started]))
	want(t, got, "sluice.task.run.duration", float64(st.Succeeded+st.Failed))
	want(t, got, "sluice.tasks.queued", 0)
}

func TestSemaphoreAndConsume(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer provider.Shutdown(context.Background())

	ms, err := otel.New("db", otel.Config{MeterProvider: provider})
	if err != nil {
		t.Fatal(err)
	}
	s := core.NewSemaphore(4, ms.Option())
	ms.Watch(s)
	if err := s.Acquire(context.Background(), 3); err != nil {
		t.Fatal(err)
	}
	got := collect(t, reader)
	want(t, got, "sluice.semaphore.tokens.used", 3)
	want(t, got, "sluice.limit", 4)
	s.Release(3)
	ms.Close()

	mc, err := otel.New("inbox", otel.Config{MeterProvider: provider})
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	msgs := make(chan int, 6)
	for i := range 6 {
		msgs <- i
	}
	close(msgs)
	if err := core.Consume(context.Background(), msgs, func(context.Context, int) error { return nil }, mc.Option(), core.WithConcurrency(2)); err != nil {
		t.Fatal(err)
	}
	got = collect(t, reader)
	want(t, got, "sluice.tasks/finished", 6)
	want(t, got, "sluice.tasks.running", 0)
	if got["sluice.task.run.duration"] < 6 {
		t.Errorf("run durations recorded: %v, want at least the consumer's 6", got["sluice.task.run.duration"])
	}
}

func TestNewNeedsAProvider(t *testing.T) {
	if _, err := otel.New("x", otel.Config{}); err == nil {
		t.Error("New without a MeterProvider: nil error, want one")
	}
}
