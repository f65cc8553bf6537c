package main

import (
	"fmt"
	"strings"
	"testing"
)

// A command's package cannot be imported, so this test is internal.

const sample = `goos: linux
cpu: AMD EPYC
BenchmarkTasks/Spin1us/sluice-go-2   	 1000	 600 ns/op	 0 B/op	 0 allocs/op
BenchmarkTasks/Spin1us/sluice-go-2   	 1000	 700 ns/op	 0 B/op	 0 allocs/op
BenchmarkTasks/Spin1us/sluice-go-2   	 1000	 650 ns/op	 0 B/op	 3 allocs/op
BenchmarkTasks/Spin1us/pond-go-2     	 1000	 500 ns/op	 17 B/op	 0 allocs/op
BenchmarkPending/sluice-submit-cancel-2	 1	 9 ns/op	 441.0 B/pending
`

func TestEval(t *testing.T) {
	r, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		t      target
		status string
		value  float64
	}{
		{"ratio over the median", target{bench: "Tasks/Spin1us/sluice-go", peers: []string{"Tasks/Spin1us/pond-go"}, unit: "ns/op", max: 1.0}, "miss", 650},
		{"ratio within", target{bench: "Tasks/Spin1us/sluice-go", peers: []string{"Tasks/Spin1us/pond-go"}, unit: "ns/op", max: 1.3}, "pass", 650},
		{"absolute", target{bench: "Tasks/Spin1us/sluice-go", unit: "allocs/op", max: 2}, "pass", 0},
		{"absolute over", target{bench: "Pending/sluice-submit-cancel", unit: "B/pending", max: 200}, "miss", 441},
		{"info", target{bench: "Tasks/Spin1us/sluice-go", peers: []string{"Tasks/Spin1us/pond-go"}, unit: "ns/op", info: true}, "info", 650},
		{"missing", target{bench: "Latency/sluice-go", unit: "p99-wait-ns", max: 1}, "missing", 0},
		{"missing peer", target{bench: "Tasks/Spin1us/sluice-go", peers: []string{"Tasks/Spin1us/conc"}, unit: "ns/op", max: 1}, "missing", 650},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := tt.t.eval(r)
			if res.status != tt.status || res.value != tt.value {
				t.Errorf("eval = %s %v, want %s %v", res.status, res.value, tt.status, tt.value)
			}
		})
	}
}

func TestRender(t *testing.T) {
	r, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	ts := []target{{what: "1 µs tasks", bench: "Tasks/Spin1us/sluice-go", peers: []string{"Tasks/Spin1us/pond-go"}, unit: "ns/op", max: 1.0}}
	foot := []target{{what: "empty", bench: "Pending/sluice-submit-cancel", unit: "B/pending", max: 500}}
	out := render(r, ts, foot, "", "")
	for _, want := range []string{
		"| 1 µs tasks | 650 ns/op | `pond-go` 500 | 1.30x | ≤ 1.0x | miss |",
		"- **1 µs tasks**: cause not stated yet.",
		"## Footnote: empty tasks",
		"| empty | 441 B/pending | | | ≤ 500 B/pending | pass |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("render output lacks %q; got:\n%s", want, out)
		}
	}
}

func TestTargetsNamed(t *testing.T) {
	seen := map[string]bool{}
	for _, tg := range append(targets, emptyTargets...) {
		key := fmt.Sprint(tg.bench, " ", tg.unit, " ", tg.peers, " ", tg.max)
		if seen[key] {
			t.Errorf("target %q listed twice", key)
		}
		seen[key] = true
		if tg.what == "" || tg.bench == "" || tg.unit == "" {
			t.Errorf("target %+v lacks a description, a benchmark or a unit", tg)
		}
	}
}

func TestCommas(t *testing.T) {
	for n, want := range map[int]string{0: "0", 10: "10", 999: "999", 1000: "1,000", 10_000: "10,000", 1_000_000: "1,000,000"} {
		if got := commas(n); got != want {
			t.Errorf("commas(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestWriteScale checks that the Scaling section has a table for a core
// count the run measured and says "not measured" for one past the
// machine's cores.
func TestWriteScale(t *testing.T) {
	r, err := parse(strings.NewReader(`BenchmarkScale/procs=2/semaphore/limit=1/g=2/sluice-2 	 100	 900 ns/op
BenchmarkScale/procs=2/semaphore/limit=1/g=2/xsync-2 	 100	 1000 ns/op
`))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	writeScale(&b, r, 2)
	got := b.String()
	for _, want := range []string{
		"### 2 cores",
		"| Semaphore limit 1, 2 goroutines holding ~1 µs, against x/sync | 900 ns/op | `xsync` 1000 | 0.90x | ≤ 1.0x | pass |",
		"### 16 cores\n\nNot measured here: this machine has 2 cores.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Scaling section lacks %q; got:\n%s", want, got)
		}
	}
}
