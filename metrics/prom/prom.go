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
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

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
// It holds its live tasks in a ring of 4,096 (160 KiB), doubled when a
// task finds its slot taken (more pending at once) up to 131,072 (5 MiB),
// and beyond that in a map; an event costs a ring slot and, for a start
// or an end, a histogram observation (two atomic adds), with no lock: the
// primitive calls its observer from one goroutine at a time (as
// sluice/core does), and a Collector observes one primitive. Its methods
// are safe for concurrent use.
type Collector struct {
	queue string
	live  *live.Tracker[*prioHists]

	buckets  []float64       // the histograms' bounds, in seconds
	bounds   []time.Duration // the same
	descWait *prometheus.Desc
	descRun  *prometheus.Desc
	mu       sync.Mutex   // guards prios' growth
	prios    []*prioHists // every priority seen, for Collect

	descTasks, descQueued, descRunning, descLimit, descOldest, descLanes, descTokens *prometheus.Desc
}

// prioHists are one priority's wait and run histograms.
type prioHists struct {
	label     string
	wait, run hist
}

// hist is a histogram the observer adds to with two atomic adds (its
// bucket's count and the sum, in nanoseconds) and Collect reads: its
// count is the sum of its buckets', so that they agree; the sum may hold
// an observation still being added.
type hist struct {
	counts []atomic.Uint64 // by bucket; the last is +Inf
	sumNs  atomic.Int64
}

func (h *hist) observe(bounds []time.Duration, d time.Duration) {
	i := 0
	for i < len(bounds) && d > bounds[i] {
		i++
	}
	h.counts[i].Add(1)
	h.sumNs.Add(int64(d))
}

// metric returns h as a constant histogram with the given bounds.
func (h *hist) metric(desc *prometheus.Desc, buckets []float64, label string) prometheus.Metric {
	cum := make(map[float64]uint64, len(buckets))
	n := uint64(0)
	for i, b := range buckets {
		n += h.counts[i].Load()
		cum[b] = n
	}
	n += h.counts[len(buckets)].Load()
	return prometheus.MustNewConstHistogram(desc, n, time.Duration(h.sumNs.Load()).Seconds(), cum, label)
}

// New returns a Collector whose metrics carry queue="name". It panics if
// name is empty.
func New(name string) *Collector {
	return NewWithBuckets(name, DefaultBuckets)
}

// NewWithBuckets is [New] with the histograms' bucket bounds, in seconds,
// increasing.
func NewWithBuckets(name string, buckets []float64) *Collector {
	if name == "" {
		panic("prom: a Collector needs a name")
	}
	l := prometheus.Labels{"queue": name}
	c := &Collector{
		queue:       name,
		buckets:     slices.Clone(buckets),
		descWait:    prometheus.NewDesc("sluice_task_wait_seconds", "Time from a task's enqueue to its start, by priority.", []string{"priority"}, l),
		descRun:     prometheus.NewDesc("sluice_task_run_seconds", "Time from a task's start to its end, by priority.", []string{"priority"}, l),
		descTasks:   prometheus.NewDesc("sluice_tasks_total", "Tasks ended, by outcome: finished, failed, canceled or panicked.", []string{"outcome"}, l),
		descQueued:  prometheus.NewDesc("sluice_tasks_queued", "Tasks accepted and not started (a semaphore's waiters).", nil, l),
		descRunning: prometheus.NewDesc("sluice_tasks_running", "Tasks running.", nil, l),
		descLimit:   prometheus.NewDesc("sluice_limit", "The limit on running tasks or held tokens; 0 means unlimited.", nil, l),
		descOldest:  prometheus.NewDesc("sluice_oldest_pending_age_seconds", "How long the oldest pending task has waited.", nil, l),
		descLanes:   prometheus.NewDesc("sluice_lanes", "Live key lanes of a keyed queue.", nil, l),
		descTokens:  prometheus.NewDesc("sluice_semaphore_tokens_in_use", "Tokens held.", nil, l),
	}
	for _, b := range c.buckets {
		c.bounds = append(c.bounds, time.Duration(b*float64(time.Second)))
	}
	c.live = live.New(func(p core.Priority) *prioHists {
		h := &prioHists{label: strconv.Itoa(int(p))}
		h.wait.counts = make([]atomic.Uint64, len(c.buckets)+1)
		h.run.counts = make([]atomic.Uint64, len(c.buckets)+1)
		c.mu.Lock()
		c.prios = append(c.prios, h)
		c.mu.Unlock()
		return h
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
// with an observer of the caller's. It does not block. It must not be
// called from two goroutines at once, which sluice/core never does.
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
	switch what, d, h := c.live.Observe(e); what {
	case live.Wait:
		h.wait.observe(c.bounds, d)
	case live.Run:
		h.run.observe(c.bounds, d)
	}
}

// Describe sends the descriptors of c's metrics.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.descTasks, c.descQueued, c.descRunning, c.descLimit, c.descOldest, c.descLanes, c.descTokens} {
		ch <- d
	}
	ch <- c.descWait
	ch <- c.descRun
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
	c.mu.Lock()
	prios := slices.Clone(c.prios)
	c.mu.Unlock()
	for _, h := range prios {
		ch <- h.wait.metric(c.descWait, c.buckets, h.label)
		ch <- h.run.metric(c.descRun, c.buckets, h.label)
	}
}
