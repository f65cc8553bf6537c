// Package otel exports a sluice/core primitive's counters and timings as
// OpenTelemetry instruments, on a MeterProvider passed in: a [Metrics] per
// primitive, whose asynchronous instruments read its Stats at each
// collection and whose histograms take task timings from its observer.
//
//	m, err := otel.New("jobs", otel.Config{MeterProvider: provider})
//	q := core.NewWorkQueue(8, m.Option())
//	m.Watch(q)
//	defer m.Close()
//
// Every measurement carries the attribute sluice.queue, the name given to
// [New]. The instruments (meter "sluice/metrics/otel"):
//
//	sluice.tasks                  counter          {task}  tasks ended, by sluice.outcome: finished, failed, canceled, panicked
//	sluice.tasks.queued           updowncounter    {task}  tasks accepted and not started (a Semaphore's waiters)
//	sluice.tasks.running          updowncounter    {task}  tasks running (not for a Semaphore)
//	sluice.limit                  gauge            {task}  the parallelism or token limit; 0: unlimited
//	sluice.oldest_pending.age     gauge            s       how long the oldest pending task has waited (queues)
//	sluice.lanes                  updowncounter    {lane}  live key lanes (KeyedQueue)
//	sluice.semaphore.tokens.used  updowncounter    {token} tokens held (Semaphore)
//	sluice.task.wait.duration     histogram        s       from enqueue to start, by sluice.priority
//	sluice.task.run.duration      histogram        s       from start to end, by sluice.priority (not for a Semaphore)
//
// As in sluice/metrics/prom, a queue's counts and gauges come from Stats,
// a Semaphore's gauges from Stats and its counts from the observer, and
// Consume's from the observer alone. OpenTelemetry's semantic conventions
// name no instruments for in-process work queues; these follow their
// naming rules (dotted lower-case names, UCUM units, no _total suffix).
package otel

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"sluice/core"
	"sluice/metrics/internal/live"
)

// Config configures [New].
type Config struct {
	// MeterProvider makes the meter; required.
	MeterProvider metric.MeterProvider
	// Buckets are the histograms' explicit bucket bounds in seconds;
	// nil: DefaultBuckets.
	Buckets []float64
}

// DefaultBuckets are the histograms' bounds, in seconds: 100 µs to about
// 26 s, each four times the last.
var DefaultBuckets = []float64{0.0001, 0.0004, 0.0016, 0.0064, 0.0256, 0.1024, 0.4096, 1.6384, 6.5536, 26.2144}

// Metrics records one primitive: a WorkQueue, Processor, KeyedQueue,
// Semaphore, or one Consume call. Give its observer to the primitive
// ([Metrics.Option] or [Metrics.Observer]), tell it the primitive
// ([Metrics.Watch]; not for Consume), and Close it when done. It holds its
// live tasks in a ring of 4,096 (160 KiB), doubled when a task finds its
// slot taken (more pending at once) up to 131,072 (5 MiB), and beyond
// that in a map; an event costs a ring slot and, for a start or an end, a
// histogram record, with no lock: the primitive calls its observer from
// one goroutine at a time (as sluice/core does), and a Metrics observes
// one primitive. Its methods are safe for concurrent use.
type Metrics struct {
	attrs attribute.Set
	live  *live.Tracker[metric.RecordOption]

	wait, run metric.Float64Histogram
	reg       metric.Registration
}

// New makes the instruments of the primitive named name on
// cfg.MeterProvider.
func New(name string, cfg Config) (*Metrics, error) {
	if name == "" || cfg.MeterProvider == nil {
		return nil, errors.New("otel: New needs a name and a MeterProvider")
	}
	buckets := cfg.Buckets
	if buckets == nil {
		buckets = DefaultBuckets
	}
	meter := cfg.MeterProvider.Meter("sluice/metrics/otel")
	m := &Metrics{attrs: attribute.NewSet(attribute.String("sluice.queue", name))}
	m.live = live.New(func(p core.Priority) metric.RecordOption {
		return metric.WithAttributeSet(attribute.NewSet(append(m.attrs.ToSlice(), attribute.Int("sluice.priority", int(p)))...))
	})
	var err error
	var errs []error
	add := func(e error) {
		if e != nil {
			errs = append(errs, e)
		}
	}
	m.wait, err = meter.Float64Histogram("sluice.task.wait.duration", metric.WithUnit("s"),
		metric.WithDescription("Time from a task's enqueue to its start."), metric.WithExplicitBucketBoundaries(buckets...))
	add(err)
	m.run, err = meter.Float64Histogram("sluice.task.run.duration", metric.WithUnit("s"),
		metric.WithDescription("Time from a task's start to its end."), metric.WithExplicitBucketBoundaries(buckets...))
	add(err)
	tasks, err := meter.Int64ObservableCounter("sluice.tasks", metric.WithUnit("{task}"),
		metric.WithDescription("Tasks ended, by outcome: finished, failed, canceled or panicked."))
	add(err)
	queued, err := meter.Int64ObservableUpDownCounter("sluice.tasks.queued", metric.WithUnit("{task}"),
		metric.WithDescription("Tasks accepted and not started (a semaphore's waiters)."))
	add(err)
	running, err := meter.Int64ObservableUpDownCounter("sluice.tasks.running", metric.WithUnit("{task}"),
		metric.WithDescription("Tasks running."))
	add(err)
	limit, err := meter.Int64ObservableGauge("sluice.limit", metric.WithUnit("{task}"),
		metric.WithDescription("The limit on running tasks or held tokens; 0 means unlimited."))
	add(err)
	oldest, err := meter.Float64ObservableGauge("sluice.oldest_pending.age", metric.WithUnit("s"),
		metric.WithDescription("How long the oldest pending task has waited."))
	add(err)
	lanes, err := meter.Int64ObservableUpDownCounter("sluice.lanes", metric.WithUnit("{lane}"),
		metric.WithDescription("Live key lanes of a keyed queue."))
	add(err)
	tokens, err := meter.Int64ObservableUpDownCounter("sluice.semaphore.tokens.used", metric.WithUnit("{token}"),
		metric.WithDescription("Tokens held."))
	add(err)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	outcomeSets := [4]metric.ObserveOption{}
	for i, o := range live.Outcomes {
		outcomeSets[i] = metric.WithAttributes(attribute.String("sluice.queue", name), attribute.String("sluice.outcome", o))
	}
	at := metric.WithAttributeSet(m.attrs)
	m.reg, err = meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		r := m.live.Read()
		switch r.Source {
		case live.Queue:
			o.ObserveInt64(queued, r.Queued, at)
			o.ObserveInt64(running, r.Running, at)
			o.ObserveInt64(limit, r.Limit, at)
			o.ObserveFloat64(oldest, r.OldestPending.Seconds(), at)
			o.ObserveInt64(lanes, r.Lanes, at)
		case live.Semaphore:
			o.ObserveInt64(queued, r.Queued, at)
			o.ObserveInt64(limit, r.Limit, at)
			o.ObserveInt64(tokens, r.Tokens, at)
		default:
			o.ObserveInt64(queued, r.Queued, at)
			o.ObserveInt64(running, r.Running, at)
		}
		for i, n := range r.Counts {
			o.ObserveInt64(tasks, int64(n), outcomeSets[i])
		}
		return nil
	}, tasks, queued, running, limit, oldest, lanes, tokens)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Watch tells m the primitive it records: anything with Stats()
// core.QueueStats (WorkQueue, Processor, KeyedQueue) or a *core.Semaphore.
// Call it before the primitive's first task; not for Consume. It panics
// for anything else, and returns m.
func (m *Metrics) Watch(p any) *Metrics {
	if !m.live.Watch(p) {
		panic("otel: Watch of a value without Stats")
	}
	return m
}

// Close unregisters the asynchronous instruments' callback: the primitive
// is no longer read. It does not block.
func (m *Metrics) Close() error { return m.reg.Unregister() }

// Option returns core.WithObserver of m's observer.
func (m *Metrics) Option() core.Option { return core.WithObserver(m.Observer(nil)) }

// Observer returns the observer to give the primitive: it records each
// event, then calls next, if not nil. It must not be called from two
// goroutines at once, which sluice/core never does.
func (m *Metrics) Observer(next func(core.Event)) func(core.Event) {
	if next == nil {
		return m.observe
	}
	return func(e core.Event) {
		m.observe(e)
		next(e)
	}
}

func (m *Metrics) observe(e core.Event) {
	switch what, d, opt := m.live.Observe(e); what {
	case live.Wait:
		m.wait.Record(context.Background(), d.Seconds(), opt)
	case live.Run:
		m.run.Record(context.Background(), d.Seconds(), opt)
	}
}
