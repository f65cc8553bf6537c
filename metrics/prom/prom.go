// Package prom exports a sluice/core primitive's counters and timings as
// Prometheus metrics: a [Collector] per primitive, which reads its Stats
// when scraped and takes its task timings from its observer.
//
//	c := prom.New("jobs")
//	q := core.NewWorkQueue(8, c.Option())
//	c.Watch(q)
//	prometheus.MustRegister(c)
//
// Every metric carries the label queue, the name given to [New]:
//
//	sluice_tasks_total{outcome}        counter    tasks ended: finished, failed, canceled, panicked
//	sluice_tasks_queued                gauge      tasks accepted and not started (a Semaphore's waiters)
//	sluice_tasks_running               gauge      tasks running (not for a Semaphore)
//	sluice_limit                       gauge      the parallelism or token limit; 0: unlimited
//	sluice_oldest_pending_age_seconds  gauge      how long the oldest pending task has waited (queues)
//	sluice_lanes                       gauge      live key lanes (KeyedQueue)
//	sluice_semaphore_tokens_in_use     gauge      tokens held (Semaphore)
//	sluice_task_wait_seconds{priority} histogram  from enqueue to start
//	sluice_task_run_seconds{priority}  histogram  from start to end (not for a Semaphore)
//
// For a WorkQueue, Processor or KeyedQueue the counts and gauges come from
// Stats, so they are right even for the tasks the observer did not see;
// for a Semaphore the gauges do, and the task counts come from the
// observer (every release counts as a finished task); for Consume, which
// has no Stats, everything comes from the observer. Times are read from
// the events' Time, the primitive's clock.
package prom

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"sluice/core"
	"sluice/metrics/internal/live"
)

// DefaultBuckets are the bounds, in seconds, of the wait and run time
// histograms: 100 µs to about 26 s, each four times the last.
var DefaultBuckets = prometheus.ExponentialBuckets(0.0001, 4, 10)

// Collector is a prometheus.Collector for one primitive: a WorkQueue,
// Processor, KeyedQueue, Semaphore, or one Consume call. Give its
// observer to the primitive ([Collector.Option] or [Collector.Observer]),
// tell it the primitive ([Collector.Watch]; not for Consume) and register
// it. One Collector serves one primitive: task numbers are per primitive.
// It holds its live tasks in a ring of 4,096 (160 KiB), and those a later
// task pushed out (more than 4,096 pending at once) in a map; an event
// costs a brief lock, a slot and, for a start or an end, a histogram
// observation. Its methods are safe for concurrent use.
type Collector struct {
	queue string
	live  *live.Tracker[prioObs]

	wait, run *prometheus.HistogramVec

	descTasks, descQueued, descRunning, descLimit, descOldest, descLanes, descTokens *prometheus.Desc
}

type prioObs struct{ wait, run prometheus.Observer }

// New returns a Collector whose metrics carry queue="name". It panics if
// name is empty.
func New(name string) *Collector {
	return NewWithBuckets(name, DefaultBuckets)
}

// NewWithBuckets is [New] with the histograms' bucket bounds, in seconds.
func NewWithBuckets(name string, buckets []float64) *Collector {
	if name == "" {
		panic("prom: a Collector needs a name")
	}
	l := prometheus.Labels{"queue": name}
	c := &Collector{
		queue: name,
		wait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "sluice_task_wait_seconds", Help: "Time from a task's enqueue to its start, by priority.",
			ConstLabels: l, Buckets: buckets,
		}, []string{"priority"}),
		run: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "sluice_task_run_seconds", Help: "Time from a task's start to its end, by priority.",
			ConstLabels: l, Buckets: buckets,
		}, []string{"priority"}),
		descTasks:   prometheus.NewDesc("sluice_tasks_total", "Tasks ended, by outcome: finished, failed, canceled or panicked.", []string{"outcome"}, l),
		descQueued:  prometheus.NewDesc("sluice_tasks_queued", "Tasks accepted and not started (a semaphore's waiters).", nil, l),
		descRunning: prometheus.NewDesc("sluice_tasks_running", "Tasks running.", nil, l),
		descLimit:   prometheus.NewDesc("sluice_limit", "The limit on running tasks or held tokens; 0 means unlimited.", nil, l),
		descOldest:  prometheus.NewDesc("sluice_oldest_pending_age_seconds", "How long the oldest pending task has waited.", nil, l),
		descLanes:   prometheus.NewDesc("sluice_lanes", "Live key lanes of a keyed queue.", nil, l),
		descTokens:  prometheus.NewDesc("sluice_semaphore_tokens_in_use", "Tokens held.", nil, l),
	}
	c.live = live.New(func(p core.Priority) prioObs {
		s := strconv.Itoa(int(p))
		return prioObs{c.wait.WithLabelValues(s), c.run.WithLabelValues(s)}
	})
	return c
}

// Watch tells c the primitive it reports: a *core.WorkQueue,
// *core.Processor, *core.KeyedQueue (anything with Stats() core.QueueStats)
// or a *core.Semaphore. Call it before the primitive's first task. Without
// it (Consume), the gauges come from the observer. It panics for anything
// else, and returns c.
func (c *Collector) Watch(p any) *Collector {
	if !c.live.Watch(p) {
		panic("prom: Watch of a value without Stats")
	}
	return c
}

// Option returns core.WithObserver of c's observer, for the primitive's
// constructor (or Consume).
func (c *Collector) Option() core.Option { return core.WithObserver(c.Observer(nil)) }

// Observer returns the observer to give the primitive: it records each
// event, then calls next, if not nil, so that c can share the primitive
// with an observer of the caller's. It does not block, but for a brief
// lock.
func (c *Collector) Observer(next func(core.Event)) func(core.Event) {
	if next == nil {
		return c.observe
	}
	return func(e core.Event) {
		c.observe(e)
		next(e)
	}
}

func (c *Collector) observe(e core.Event) {
	switch what, d, obs := c.live.Observe(e); what {
	case live.Wait:
		obs.wait.Observe(d.Seconds())
	case live.Run:
		obs.run.Observe(d.Seconds())
	}
}

// Describe sends the descriptors of c's metrics.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.descTasks, c.descQueued, c.descRunning, c.descLimit, c.descOldest, c.descLanes, c.descTokens} {
		ch <- d
	}
	c.wait.Describe(ch)
	c.run.Describe(ch)
}

// Collect sends c's metrics: the primitive's Stats, read now, and the
// histograms.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	gauge := func(d *prometheus.Desc, v float64) { ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v) }
	r := c.live.Read()
	switch r.Source {
	case live.Queue:
		gauge(c.descQueued, float64(r.Queued))
		gauge(c.descRunning, float64(r.Running))
		gauge(c.descLimit, float64(r.Limit))
		gauge(c.descOldest, r.OldestPending.Seconds())
		gauge(c.descLanes, float64(r.Lanes))
	case live.Semaphore:
		gauge(c.descQueued, float64(r.Queued))
		gauge(c.descLimit, float64(r.Limit))
		gauge(c.descTokens, float64(r.Tokens))
	default:
		gauge(c.descQueued, float64(r.Queued))
		gauge(c.descRunning, float64(r.Running))
	}
	for i, n := range r.Counts {
		ch <- prometheus.MustNewConstMetric(c.descTasks, prometheus.CounterValue, float64(n), live.Outcomes[i])
	}
	c.wait.Collect(ch)
	c.run.Collect(ch)
}
