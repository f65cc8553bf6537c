// Package service is a small HTTP service built on sluice/core, to show
// how a real one's queues are seen: it serves Prometheus metrics from
// sluice/metrics/prom and keeps a runtime/trace flight recorder that
// writes a snapshot when a task waits longer than a threshold.
//
// Its work:
//
//   - POST /jobs?priority=high|normal|low&ms=N runs a job of N ms in a
//     WorkQueue ("jobs") with priorities; with async=1 it answers 202 at
//     once and the job runs in the background.
//   - POST /orders?customer=C&ms=N runs an order of N ms in a KeyedQueue
//     ("orders"), one at a time per customer, in order; async=1 as above.
//   - Both hold a token of one shared Semaphore ("backend", the
//     database, say) while they run: a global limit.
//   - GET /metrics: the metrics of the three primitives.
//   - GET /snapshots: the names of the flight-recorder snapshots written.
//
// cmd/service runs it, and with -load a load generator against it.
package service

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime/trace"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"sluice/core"
	"sluice/metrics/prom"
)

// Config sets up a Service.
type Config struct {
	Jobs     int // the jobs queue's parallelism; default 4
	Orders   int // the orders queue's parallelism across customers; default 4
	Backend  int // the shared semaphore's tokens; default 3
	Capacity int // the jobs queue's capacity; 0: unbounded

	// SnapshotDir receives a flight-recorder snapshot, trace-N.out, when
	// a task waits longer than WaitThreshold; "" turns the flight
	// recorder off.
	SnapshotDir   string
	WaitThreshold time.Duration // default 100 ms
	MaxSnapshots  int           // default 10; later waits write none
	// SnapshotDelay is how long after the slow wait the snapshot is
	// written, so that it shows what followed too; default 0.
	SnapshotDelay time.Duration
}

// Service is the example service. Its methods are safe for concurrent use.
type Service struct {
	cfg     Config
	jobs    *core.WorkQueue
	orders  *core.KeyedQueue[string]
	backend *core.Semaphore
	reg     *prometheus.Registry
	mux     *http.ServeMux

	fr        *trace.FlightRecorder
	snapMu    sync.Mutex
	snapshots []string
	snapping  bool
	bg        sync.WaitGroup // snapshot writers
	closeOnce sync.Once
}

// New starts a Service: its queues, and its flight recorder if
// cfg.SnapshotDir is set (only one flight recorder may run in a process).
func New(cfg Config) (*Service, error) {
	if cfg.Jobs <= 0 {
		cfg.Jobs = 4
	}
	if cfg.Orders <= 0 {
		cfg.Orders = 4
	}
	if cfg.Backend <= 0 {
		cfg.Backend = 3
	}
	if cfg.WaitThreshold <= 0 {
		cfg.WaitThreshold = 100 * time.Millisecond
	}
	if cfg.MaxSnapshots <= 0 {
		cfg.MaxSnapshots = 10
	}
	s := &Service{cfg: cfg, reg: prometheus.NewRegistry(), mux: http.NewServeMux()}
	backendM := prom.New("backend")
	s.backend = core.NewSemaphore(int64(cfg.Backend), backendM.Option())
	backendM.Watch(s.backend)
	jobsM := prom.New("jobs")
	s.jobs = core.NewWorkQueue(cfg.Jobs, jobsM.Option(), core.WithSemaphore(s.backend), core.WithCapacity(cfg.Capacity))
	jobsM.Watch(s.jobs)
	ordersM := prom.New("orders")
	s.orders = core.NewKeyedQueue[string](ordersM.Option(), core.WithParallelism(cfg.Orders), core.WithSemaphore(s.backend))
	ordersM.Watch(s.orders)
	s.reg.MustRegister(backendM, jobsM, ordersM)

	if cfg.SnapshotDir != "" {
		if err := os.MkdirAll(cfg.SnapshotDir, 0o755); err != nil {
			return nil, err
		}
		s.fr = trace.NewFlightRecorder(trace.FlightRecorderConfig{MinAge: 5 * time.Second, MaxBytes: 8 << 20})
		if err := s.fr.Start(); err != nil {
			return nil, fmt.Errorf("service: flight recorder: %w", err)
		}
	}
	s.mux.HandleFunc("POST /jobs", s.handleJob)
	s.mux.HandleFunc("POST /orders", s.handleOrder)
	s.mux.Handle("GET /metrics", promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{}))
	s.mux.HandleFunc("GET /snapshots", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, strings.Join(s.Snapshots(), "\n"))
	})
	return s, nil
}

// Handler returns the service's HTTP handler.
func (s *Service) Handler() http.Handler { return s.mux }

// Jobs and Orders return the service's queues, for tests and stats.
func (s *Service) Jobs() *core.WorkQueue            { return s.jobs }
func (s *Service) Orders() *core.KeyedQueue[string] { return s.orders }
func (s *Service) Backend() *core.Semaphore         { return s.backend }

// Snapshots returns the paths of the snapshots written so far.
func (s *Service) Snapshots() []string {
	s.snapMu.Lock()
	defer s.snapMu.Unlock()
	return append([]string(nil), s.snapshots...)
}

// Close cancels the queued and running work, waits for it and for the
// snapshot being written, and stops the flight recorder. It blocks.
func (s *Service) Close() {
	s.closeOnce.Do(func() {
		s.jobs.Close()
		s.orders.Close()
		s.bg.Wait()
		if s.fr != nil {
			s.fr.Stop()
		}
	})
}

var priorities = map[string]core.Priority{"": core.Normal, "normal": core.Normal, "high": core.High, "low": core.Low}

func (s *Service) handleJob(w http.ResponseWriter, r *http.Request) {
	p, ok := priorities[r.FormValue("priority")]
	if !ok {
		http.Error(w, "priority: high, normal or low", http.StatusBadRequest)
		return
	}
	d, ok := duration(w, r)
	if !ok {
		return
	}
	fn := s.work(d)
	opts := []core.TaskOption{core.WithPriority(p), core.WithName("job")}
	if r.FormValue("async") == "1" {
		if err := s.jobs.Go(context.Background(), fn, opts...); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	reply(w, s.jobs.Do(r.Context(), fn, opts...))
}

func (s *Service) handleOrder(w http.ResponseWriter, r *http.Request) {
	customer := r.FormValue("customer")
	if customer == "" {
		http.Error(w, "customer is required", http.StatusBadRequest)
		return
	}
	d, ok := duration(w, r)
	if !ok {
		return
	}
	fn := s.work(d)
	if r.FormValue("async") == "1" {
		if _, err := s.orders.Submit(context.Background(), customer, fn, core.WithName("order")); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	reply(w, s.orders.Do(r.Context(), customer, fn, core.WithName("order")))
}

func duration(w http.ResponseWriter, r *http.Request) (time.Duration, bool) {
	ms, err := strconv.Atoi(r.FormValue("ms"))
	if err != nil || ms < 0 || ms > 600_000 {
		http.Error(w, "ms: a duration in milliseconds, 0 to 600000", http.StatusBadRequest)
		return 0, false
	}
	return time.Duration(ms) * time.Millisecond, true
}

func reply(w http.ResponseWriter, err error) {
	switch {
	case err == nil:
		fmt.Fprintln(w, "done")
	case errors.Is(err, core.ErrClosed):
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		http.Error(w, err.Error(), http.StatusRequestTimeout)
	default:
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// work returns a task that takes d (a wait on a timer, as I/O would),
// and notes how long it waited to start.
func (s *Service) work(d time.Duration) func(context.Context) error {
	submitted := time.Now()
	return func(ctx context.Context) error {
		if wait := time.Since(submitted); wait > s.cfg.WaitThreshold {
			s.slow(wait)
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// slow writes a flight-recorder snapshot, after SnapshotDelay, unless one
// is being written or MaxSnapshots were.
func (s *Service) slow(wait time.Duration) {
	if s.fr == nil {
		return
	}
	s.snapMu.Lock()
	if s.snapping || len(s.snapshots) >= s.cfg.MaxSnapshots {
		s.snapMu.Unlock()
		return
	}
	s.snapping = true
	n := len(s.snapshots) + 1
	s.bg.Add(1)
	s.snapMu.Unlock()
	go func() {
		defer s.bg.Done()
		time.Sleep(s.cfg.SnapshotDelay)
		path := filepath.Join(s.cfg.SnapshotDir, fmt.Sprintf("trace-%d.out", n))
		err := s.writeSnapshot(path)
		s.snapMu.Lock()
		s.snapping = false
		if err == nil {
			s.snapshots = append(s.snapshots, path)
		}
		s.snapMu.Unlock()
		if err != nil {
			fmt.Fprintf(os.Stderr, "service: snapshot after a %v wait: %v\n", wait, err)
		}
	}()
}

func (s *Service) writeSnapshot(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := s.fr.WriteTo(f); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}
