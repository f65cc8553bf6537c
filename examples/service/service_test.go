package service_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
	xtrace "golang.org/x/exp/trace"

	"sluice/examples/service"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func post(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Post(url, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// waitFor polls cond until it holds or d passes, and reports which.
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// metricValue reads one sample of the text exposition at url.
func metricValue(t *testing.T, url, sample string) (float64, bool) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), sample+" "); ok {
			v, err := strconv.ParseFloat(rest, 64)
			return v, err == nil
		}
	}
	return 0, false
}

// freePort returns a loopback address nobody listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// startPrometheus starts a Prometheus server (Debian package prometheus)
// on loopback, with its own port and data directory, scraping target
// every second, and stops it by its process id when the test ends. It
// returns the server's base URL.
func startPrometheus(t *testing.T, target string) string {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Fatal("prometheus not found: install the Debian package prometheus (make test does as root)")
	}
	dir := t.TempDir()
	cfg := fmt.Sprintf("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: service\n    static_configs:\n      - targets: [%q]\n", target)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freePort(t)
	var log bytes.Buffer
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+addr)
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		syscall.Kill(pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			syscall.Kill(pid, syscall.SIGKILL)
			<-done
		}
		if t.Failed() {
			t.Logf("prometheus log:\n%s", log.String())
		}
	})
	base := "http://" + addr
	if !waitFor(30*time.Second, func() bool {
		resp, err := http.Get(base + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}) {
		t.Fatalf("prometheus at %s not ready after 30 s", addr)
	}
	return base
}

// query returns the value of the single sample of an instant query, or
// false when there is none.
func query(t *testing.T, base, q string) (float64, bool) {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/query?query=" + urlEscape(q))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Status string
		Data   struct {
			Result []struct {
				Value [2]any
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if r.Status != "success" || len(r.Data.Result) != 1 {
		return 0, false
	}
	s, _ := r.Data.Result[0].Value[1].(string)
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

func urlEscape(s string) string {
	r := strings.NewReplacer("{", "%7B", "}", "%7D", "=", "%3D", "\"", "%22", " ", "%20")
	return r.Replace(s)
}

// TestPrometheusSeesQueueDepth runs the service, fills its jobs queue, and
// checks that a real Prometheus server scraping it reports the depth the
// service's Stats and /metrics give.
func TestPrometheusSeesQueueDepth(t *testing.T) {
	svc, err := service.New(service.Config{Jobs: 2, Backend: 3})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(svc.Handler())
	defer srv.Close()
	defer svc.Close()

	const jobs = 7
	for i := range jobs {
		prio := [...]string{"low", "normal", "high"}[i%3]
		if code := post(t, srv.URL+"/jobs?async=1&ms=600000&priority="+prio); code != http.StatusAccepted {
			t.Fatalf("POST /jobs: %d, want 202", code)
		}
	}
	if !waitFor(10*time.Second, func() bool { return svc.Jobs().Stats().Running == 2 }) {
		t.Fatalf("Stats %+v: want 2 jobs running", svc.Jobs().Stats())
	}
	want := float64(svc.Jobs().Stats().Pending)
	if want != jobs-2 {
		t.Fatalf("Stats().Pending = %v, want %d", want, jobs-2)
	}
	if got, ok := metricValue(t, srv.URL+"/metrics", `sluice_tasks_queued{queue="jobs"}`); !ok || got != want {
		t.Fatalf("/metrics: sluice_tasks_queued{queue=\"jobs\"} = %v (found: %v), want %v", got, ok, want)
	}

	prom := startPrometheus(t, strings.TrimPrefix(srv.URL, "http://"))
	var got float64
	var found bool
	if !waitFor(30*time.Second, func() bool {
		got, found = query(t, prom, `sluice_tasks_queued{queue="jobs",job="service"}`)
		return found
	}) {
		t.Fatal("Prometheus has no sluice_tasks_queued for the jobs queue after 30 s")
	}
	if got != want {
		t.Errorf("Prometheus: sluice_tasks_queued{queue=\"jobs\"} = %v, want %v, the depth the service reported", got, want)
	}
	if v, ok := query(t, prom, `sluice_limit{queue="backend"}`); !ok || v != 3 {
		t.Errorf("Prometheus: sluice_limit{queue=\"backend\"} = %v (found: %v), want 3", v, ok)
	}
}

// TestFlightRecorderSnapshot checks that a wait over the threshold writes
// a snapshot, and that the snapshot holds the service's tasks, as the
// playground and go tool trace read them.
func TestFlightRecorderSnapshot(t *testing.T) {
	dir := t.TempDir()
	svc, err := service.New(service.Config{Jobs: 1, Orders: 2, Backend: 2, SnapshotDir: dir, WaitThreshold: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(svc.Handler())
	defer srv.Close()
	defer svc.Close()

	for _, c := range []string{"alice", "bob", "alice"} {
		if code := post(t, srv.URL+"/orders?async=1&ms=5&customer="+c); code != http.StatusAccepted {
			t.Fatalf("POST /orders: %d", code)
		}
	}
	if code := post(t, srv.URL+"/jobs?async=1&ms=200"); code != http.StatusAccepted {
		t.Fatalf("POST /jobs: %d", code)
	}
	// This one waits ~200 ms for the only slot: over the threshold.
	if code := post(t, srv.URL+"/jobs?ms=1&priority=high"); code != http.StatusOK {
		t.Fatalf("POST /jobs: %d", code)
	}
	if !waitFor(20*time.Second, func() bool { return len(svc.Snapshots()) > 0 }) {
		t.Fatal("no snapshot written after a wait over the threshold")
	}
	svc.Close()
	data, err := os.ReadFile(svc.Snapshots()[0])
	if err != nil {
		t.Fatal(err)
	}
	if out := os.Getenv("SLUICE_SNAPSHOT_OUT"); out != "" {
		os.WriteFile(out, data, 0o644) // for the playground's e2e fixture
	}
	r, err := xtrace.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	types := map[xtrace.TaskID]string{}
	begun := map[xtrace.TaskID]xtrace.Time{}
	var maxWait time.Duration
	keys := map[string]bool{}
	for {
		ev, err := r.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Kind() {
		case xtrace.EventTaskBegin:
			types[ev.Task().ID] = ev.Task().Type
			begun[ev.Task().ID] = ev.Time()
		case xtrace.EventLog:
			if ev.Log().Category == "sluice.key" {
				keys[ev.Log().Message] = true
			}
		case xtrace.EventRegionBegin:
			if g := ev.Region(); g.Type == "sluice.run" && types[g.Task] == "sluice.WorkQueue" {
				if b, ok := begun[g.Task]; ok {
					maxWait = max(maxWait, ev.Time().Sub(b))
				}
			}
		}
	}
	n := map[string]int{}
	for _, typ := range types {
		n[typ]++
	}
	if n["sluice.WorkQueue"] != 2 || n["sluice.KeyedQueue"] != 3 {
		t.Errorf("snapshot tasks by type %v, want 2 sluice.WorkQueue and 3 sluice.KeyedQueue", n)
	}
	if !keys["alice"] || !keys["bob"] {
		t.Errorf("snapshot keys %v, want alice and bob", keys)
	}
	if maxWait < 50*time.Millisecond {
		t.Errorf("longest job wait in the snapshot %v, want over the 50 ms threshold", maxWait)
	}
}

func TestLoad(t *testing.T) {
	svc, err := service.New(service.Config{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(svc.Handler())
	defer srv.Close()
	defer svc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	st := service.Load(ctx, srv.Client(), srv.URL, service.LoadConfig{Clients: 4, MaxWork: 5 * time.Millisecond})
	if st.Requests == 0 || st.ByStatus[http.StatusOK] != st.Requests {
		t.Errorf("load: %+v, want requests, all 200", st)
	}
	done := svc.Jobs().Stats().Succeeded + svc.Orders().Stats().Succeeded
	if done < uint64(st.Requests) {
		t.Errorf("%d tasks done, want at least the %d requests answered", done, st.Requests)
	}
}
