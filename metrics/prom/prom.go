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
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"sluice/core"
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
	queue     string
	stats     atomic.Pointer[source]
	semaphore atomic.Bool

	wait, run *prometheus.HistogramVec
	outcomes  [4]atomic.Uint64 // by outcome index, from events

	mu      sync.Mutex
	epoch   time.Time           // event times are kept as offsets from it
	ring    *[ringSize]liveTask // tasks seen enqueued and not ended, at Task % ringSize
	live    map[uint64]liveTask // those a later task pushed out of the ring
	prios   map[core.Priority]prioObs
	queued  int64 // from events, for Consume
	running int64

	descTasks, descQueued, descRunning, descLimit, descOldest, descLanes, descTokens *prometheus.Desc
}

// source reads a primitive's Stats.
type source struct {
	queue func() core.QueueStats
	sem   func() core.SemaphoreStats
}

// liveTask is a task seen enqueued and not ended: id 0 is an empty ring
// slot. Times are offsets from the collector's epoch.
type liveTask struct {
	id         uint64
	enq, start time.Duration
	prio       core.Priority
	started    bool
}

// ringSize is how many live tasks the ring holds by their number, which
// counts up per primitive: a queue's tasks are found there without a map,
// in the order they come. A task still live when the ring comes round to
// it again moves to the map.
const ringSize = 4096

type prioObs struct{ wait, run prometheus.Observer }

var outcomeNames = [4]string{"finished", "failed", "canceled", "panicked"}

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
		epoch: time.Now(),
		ring:  new([ringSize]liveTask),
		live:  map[uint64]liveTask{},
		prios: map[core.Priority]prioObs{},
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
	return c
}

// Watch tells c the primitive it reports: a *core.WorkQueue,
// *core.Processor, *core.KeyedQueue (anything with Stats() core.QueueStats)
// or a *core.Semaphore. Call it before the primitive's first task. Without
// it (Consume), the gauges come from the observer. It panics for anything
// else, and returns c.
func (c *Collector) Watch(p any) *Collector {
	switch p := p.(type) {
	case interface{ Stats() core.QueueStats }:
		c.stats.Store(&source{queue: p.Stats})
	case interface{ Stats() core.SemaphoreStats }:
		c.semaphore.Store(true)
		c.stats.Store(&source{sem: p.Stats})
	default:
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
	switch e.Kind {
	case core.Enqueued:
		at := e.Time.Sub(c.epoch)
		c.mu.Lock()
		s := &c.ring[e.Task%ringSize]
		if s.id != 0 {
			c.live[s.id] = *s // still live: out of the ring's way
		}
		*s = liveTask{id: e.Task, enq: at, prio: e.Priority}
		c.queued++
		c.mu.Unlock()
	case core.Started:
		at := e.Time.Sub(c.epoch)
		c.mu.Lock()
		lt, ok := c.findLocked(e.Task)
		if !ok {
			c.mu.Unlock()
			return
		}
		c.queued--
		enq, obs := lt.enq, c.prioLocked(lt.prio)
		if c.semaphore.Load() {
			// A semaphore's release names no task: a holder is not
			// followed past its start.
			c.dropLocked(e.Task)
		} else {
			lt.start, lt.started = at, true
			c.running++
		}
		c.mu.Unlock()
		obs.wait.Observe((at - enq).Seconds())
	case core.Finished, core.Failed, core.Canceled, core.Panicked:
		c.outcomes[outcomeIndex(e.Kind)].Add(1)
		if e.Task == 0 {
			return
		}
		at := e.Time.Sub(c.epoch)
		c.mu.Lock()
		lt, ok := c.findLocked(e.Task)
		if !ok {
			c.mu.Unlock()
			return
		}
		t := *lt
		c.dropLocked(e.Task)
		if !t.started {
			c.queued--
			c.mu.Unlock()
			return
		}
		c.running--
		obs := c.prioLocked(t.prio)
		c.mu.Unlock()
		obs.run.Observe((at - t.start).Seconds())
	}
}

// findLocked returns the live task id, in its ring slot: a task a later
// one pushed out into the map swaps places with that one. c.mu is held.
func (c *Collector) findLocked(id uint64) (*liveTask, bool) {
	s := &c.ring[id%ringSize]
	if s.id == id {
		return s, true
	}
	lt, ok := c.live[id]
	if !ok {
		return nil, false
	}
	delete(c.live, id)
	if s.id != 0 {
		c.live[s.id] = *s
	}
	*s = lt
	return s, true
}

// dropLocked forgets the live task id, which findLocked found. c.mu is
// held.
func (c *Collector) dropLocked(id uint64) { c.ring[id%ringSize] = liveTask{} }

// prioLocked returns the histograms of priority p. c.mu is held.
func (c *Collector) prioLocked(p core.Priority) prioObs {
	o, ok := c.prios[p]
	if !ok {
		s := strconv.Itoa(int(p))
		o = prioObs{c.wait.WithLabelValues(s), c.run.WithLabelValues(s)}
		c.prios[p] = o
	}
	return o
}

func outcomeIndex(k core.EventKind) int {
	switch k {
	case core.Finished:
		return 0
	case core.Failed:
		return 1
	case core.Canceled:
		return 2
	}
	return 3
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
	counts := [4]uint64{}
	for i := range counts {
		counts[i] = c.outcomes[i].Load()
	}
	src := c.stats.Load()
	switch {
	case src != nil && src.queue != nil:
		st := src.queue()
		counts = [4]uint64{st.Succeeded, st.Failed, st.Canceled, st.Panicked}
		gauge(c.descQueued, float64(st.Pending))
		gauge(c.descRunning, float64(st.Running))
		gauge(c.descLimit, float64(st.Parallelism))
		gauge(c.descOldest, st.OldestPending.Seconds())
		gauge(c.descLanes, float64(st.Lanes))
	case src != nil && src.sem != nil:
		st := src.sem()
		gauge(c.descQueued, float64(st.Waiters))
		gauge(c.descLimit, float64(st.Limit))
		gauge(c.descTokens, float64(st.InUse))
	default:
		c.mu.Lock()
		q, r := c.queued, c.running
		c.mu.Unlock()
		gauge(c.descQueued, float64(q))
		gauge(c.descRunning, float64(r))
	}
	for i, n := range counts {
		ch <- prometheus.MustNewConstMetric(c.descTasks, prometheus.CounterValue, float64(n), outcomeNames[i])
	}
	c.wait.Collect(ch)
	c.run.Collect(ch)
}
