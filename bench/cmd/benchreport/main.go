// Command benchreport turns one run of the bench module's benchmarks into
// BENCHMARKS.md: the machine, the commands, a table of Sluice's targets on
// real work (workload, core's figure, the peer's, their ratio, the bound, a
// plain pass or miss), what the work took, why each miss is missed, the
// earlier targets on empty tasks as a footnote, and the benchstat table.
//
// Usage:
//
//	benchreport -raw bench.txt -stat benchstat.txt -cmd "..." -out BENCHMARKS.md
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	raw := flag.String("raw", "", "raw `go test -bench` output")
	stat := flag.String("stat", "", "benchstat output of the same run (optional)")
	cmd := flag.String("cmd", "", "the commands that produced the run, for the report")
	out := flag.String("out", "BENCHMARKS.md", "where to write the report")
	scaleOnly := flag.Bool("scale-only", false, "replace only the Scaling section of the report in -out with the BenchmarkScale results in -raw")
	flag.Parse()
	if *raw == "" {
		log.Fatal("benchreport: -raw is required")
	}
	f, err := os.Open(*raw)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	run, err := parse(f)
	if err != nil {
		log.Fatalf("benchreport: %s: %v", *raw, err)
	}
	if *scaleOnly {
		if err := replaceScale(*out, run); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("benchreport: wrote the Scaling section of %s\n", *out)
		return
	}
	var table []byte
	if *stat != "" {
		if table, err = os.ReadFile(*stat); err != nil {
			log.Fatal(err)
		}
	}
	report := render(run, targets, emptyTargets, string(table), *cmd)
	if err := os.WriteFile(*out, []byte(report), 0o644); err != nil {
		log.Fatal(err)
	}
	count := func(ts []target) (bounded, misses int) {
		for _, t := range ts {
			switch t.eval(run).status {
			case "info":
				continue
			case "miss":
				misses++
			}
			bounded++
		}
		return bounded, misses
	}
	n, m := count(targets)
	fn, fm := count(emptyTargets)
	fmt.Printf("benchreport: wrote %s (%d targets on real work, %d missed; %d on empty tasks, %d missed)\n", *out, n, m, fn, fm)
}

// run holds the mean of each metric of each benchmark, keyed by the
// benchmark's name without its -GOMAXPROCS suffix, and the run's header.
type run struct {
	header  []string // goos, goarch, cpu, ...
	metrics map[string]map[string]float64
}

var procsSuffix = regexp.MustCompile(`-\d+$`)

func parse(r io.Reader) (run, error) {
	sums := map[string]map[string][]float64{}
	var rn run
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		for _, key := range []string{"goos:", "goarch:", "cpu:"} {
			if strings.HasPrefix(line, key) && !slices.Contains(rn.header, line) {
				rn.header = append(rn.header, line)
			}
		}
		if !strings.HasPrefix(line, "Benchmark") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 4 || len(fields)%2 != 0 {
			continue
		}
		name := procsSuffix.ReplaceAllString(strings.TrimPrefix(fields[0], "Benchmark"), "")
		for i := 2; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				continue
			}
			if sums[name] == nil {
				sums[name] = map[string][]float64{}
			}
			sums[name][fields[i+1]] = append(sums[name][fields[i+1]], v)
		}
	}
	if err := sc.Err(); err != nil {
		return rn, err
	}
	if len(sums) == 0 {
		return rn, fmt.Errorf("no benchmark results")
	}
	rn.metrics = map[string]map[string]float64{}
	for name, units := range sums {
		rn.metrics[name] = map[string]float64{}
		for unit, vs := range units {
			rn.metrics[name][unit] = median(vs)
		}
	}
	return rn, nil
}

func median(vs []float64) float64 {
	s := slices.Clone(vs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// target is one of the speed or memory targets the issues set.
type target struct {
	what  string   // the workload and what is measured, in words
	bench string   // the benchmark measured
	peers []string // compared against the best (lowest) of these; none: absolute
	unit  string   // the metric compared
	max   float64  // the ratio (or, without peers, the value) must be at most this
	info  bool     // reported without a bound: no pass or miss
	miss  string   // why the target is missed when it is, for the report
}

type result struct {
	value, base float64
	peer        string
	status      string // pass, miss, info, or missing
}

func (t target) eval(r run) result {
	v, ok := r.metrics[t.bench][t.unit]
	if !ok {
		return result{status: "missing"}
	}
	if len(t.peers) == 0 {
		return result{value: v, status: t.passOrMiss(v <= t.max+1e-9)}
	}
	res := result{value: v, base: math.Inf(1), status: "missing"}
	for _, p := range t.peers {
		if pv, ok := r.metrics[p][t.unit]; ok && pv < res.base {
			res.base, res.peer = pv, p
		}
	}
	if res.peer == "" {
		return res
	}
	if res.base == 0 {
		res.status = t.passOrMiss(v == 0)
		return res
	}
	res.status = t.passOrMiss(v/res.base <= t.max+1e-9)
	return res
}

func (t target) passOrMiss(ok bool) string {
	switch {
	case t.info:
		return "info"
	case ok:
		return "pass"
	default:
		return "miss"
	}
}

// bound is the target in words, for the table.
func (t target) bound() string {
	switch {
	case t.info:
		return "—"
	case len(t.peers) == 0:
		return fmt.Sprintf("≤ %s %s", num(t.max), t.unit)
	default:
		return fmt.Sprintf("≤ %.1fx", t.max)
	}
}

func render(r run, ts, footnote []target, table, cmd string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Benchmarks\n\n")
	fmt.Fprintf(&b, "Written by `make bench` on %s. Every figure below comes from one run of\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "the `bench/` module, in which Sluice and its peers ran side by side on the\nsame machine, except the Scaling section when its own date says it was retaken.\nRatios compare medians; lower is better.\n\n")
	fmt.Fprintf(&b, "## Machine\n\n```\n")
	for _, h := range r.header {
		fmt.Fprintln(&b, h)
	}
	fmt.Fprintf(&b, "go: %s, GOMAXPROCS=%d\n```\n\n", runtime.Version(), runtime.GOMAXPROCS(0))
	if cmd != "" {
		fmt.Fprintf(&b, "## Commands\n\n```\n%s\n```\n\n", strings.TrimSpace(cmd))
	}
	fmt.Fprintf(&b, "## Targets on real work\n\n")
	fmt.Fprintf(&b, "Tasks spin for a calibrated ~1 µs or ~20 µs, or sleep 200 µs (see [The work](#the-work));\n")
	fmt.Fprintf(&b, "in `Tasks`, one op is one task. A row marked info has no bound. The benchmarks' doc\n")
	fmt.Fprintf(&b, "comments in `bench/` say exactly what each one runs.\n\n")
	writeTable(&b, r, ts)
	writeWork(&b, r)
	writeScale(&b, r, runtime.NumCPU())
	var why []string
	for _, t := range slices.Concat(ts, footnote) {
		if t.eval(r).status != "miss" {
			continue
		}
		cause := t.miss
		if cause == "" {
			cause = "cause not stated yet."
		}
		why = append(why, fmt.Sprintf("- **%s**: %s", t.what, cause))
	}
	if len(why) > 0 {
		fmt.Fprintf(&b, "\n## Why the misses\n\n%s\n", strings.Join(why, "\n"))
	}
	if len(footnote) > 0 {
		fmt.Fprintf(&b, "\n## Footnote: empty tasks\n\n")
		fmt.Fprintf(&b, "The earlier targets, on tasks and critical sections that do nothing. They time the\n")
		fmt.Fprintf(&b, "primitives' bare overhead, which real work hides, and are kept for that alone.\n\n")
		writeTable(&b, r, footnote)
	}
	if strings.TrimSpace(table) != "" {
		fmt.Fprintf(&b, "\n## benchstat\n\n```\n%s\n```\n", strings.TrimSpace(table))
	}
	return b.String()
}

// writeTable writes one row per target: workload, core's figure, the
// peer's, their ratio, the bound and the result.
func writeTable(b *strings.Builder, r run, ts []target) {
	fmt.Fprintf(b, "| workload | core | peer | ratio | target | result |\n|---|---|---|---|---|---|\n")
	for _, t := range ts {
		res := t.eval(r)
		switch {
		case res.status == "missing":
			fmt.Fprintf(b, "| %s | `%s` not in this run | | | %s | missing |\n", t.what, t.bench, t.bound())
		case len(t.peers) == 0:
			fmt.Fprintf(b, "| %s | %s %s | | | %s | %s |\n", t.what, num(res.value), t.unit, t.bound(), res.status)
		default:
			ratio := "n/a"
			if res.base != 0 {
				ratio = fmt.Sprintf("%.2fx", res.value/res.base)
			}
			fmt.Fprintf(b, "| %s | %s %s | `%s` %s | %s | %s | %s |\n", t.what, num(res.value), t.unit, shortName(res.peer), num(res.base), ratio, t.bound(), res.status)
		}
	}
}

// writeWork writes what the work took in this run (BenchmarkWork) and how
// loaded the open-loop runs were (BenchmarkLatency's load-%).
func writeWork(b *strings.Builder, r run) {
	var work, load []string
	for _, w := range []struct{ bench, words string }{
		{"Work/Spin1us", "~1 µs spin"}, {"Work/Spin20us", "~20 µs spin"}, {"Work/Sleep200us", "200 µs sleep"},
	} {
		if v, ok := r.metrics[w.bench]["ns/op"]; ok {
			work = append(work, fmt.Sprintf("%s: %s ns", w.words, num(v)))
		}
	}
	var names []string
	for name := range r.metrics {
		if strings.HasPrefix(name, "Latency/") {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		if v, ok := r.metrics[name]["load-%"]; ok {
			load = append(load, fmt.Sprintf("`%s` %.1f%%", shortName(name), v))
		}
	}
	if len(work)+len(load) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## The work\n\n")
	if len(work) > 0 {
		fmt.Fprintf(b, "One task's work as timed alone in this run: %s.\n", strings.Join(work, "; "))
	}
	if len(load) > 0 {
		fmt.Fprintf(b, "Load the open-loop runs reached (90%% when the machine was not busy with\n")
		fmt.Fprintf(b, "anything else; lower means the tasks ran slower than measured just before): %s.\n", strings.Join(load, ", "))
	}
}

// shortName is a benchmark's name without its workload: its last element.
func shortName(bench string) string {
	return bench[strings.LastIndex(bench, "/")+1:]
}

func num(v float64) string {
	switch {
	case v == math.Trunc(v) && math.Abs(v) < 1e12:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}

// replaceScale rewrites the Scaling section of the report at path with
// r's BenchmarkScale results, adding it before "## Why the misses" (or at
// the end) if the report has none.
func replaceScale(path string, r run) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var b strings.Builder
	writeScale(&b, r, runtime.NumCPU())
	sec := b.String()
	if sec == "" {
		return fmt.Errorf("benchreport: no BenchmarkScale results")
	}
	doc := string(old)
	if i := strings.Index(doc, "\n## Scaling\n"); i >= 0 {
		end := len(doc)
		if j := strings.Index(doc[i+1:], "\n## "); j >= 0 {
			end = i + 1 + j
		}
		doc = doc[:i] + sec + doc[end:]
	} else if i := strings.Index(doc, "\n## Why the misses"); i >= 0 {
		doc = doc[:i] + sec + doc[i:]
	} else {
		doc += sec
	}
	return os.WriteFile(path, []byte(doc), 0o644)
}
