// Command benchreport turns one run of the bench module's benchmarks into
// BENCHMARKS.md: the machine, the commands, the benchstat table, and each of
// Sluice's speed targets with its measured ratio and a plain pass or miss.
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
	var table []byte
	if *stat != "" {
		if table, err = os.ReadFile(*stat); err != nil {
			log.Fatal(err)
		}
	}
	report := render(run, targets, string(table), *cmd)
	if err := os.WriteFile(*out, []byte(report), 0o644); err != nil {
		log.Fatal(err)
	}
	misses := 0
	for _, t := range targets {
		if r := t.eval(run); r.status == "miss" {
			misses++
		}
	}
	fmt.Printf("benchreport: wrote %s (%d targets, %d missed)\n", *out, len(targets), misses)
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
	what  string   // the target in words
	bench string   // the benchmark measured
	peers []string // compared against the best (lowest) of these; none: absolute
	unit  string   // the metric compared
	max   float64  // the ratio (or, without peers, the value) must be at most this
	miss  string   // why the target is missed when it is, for the report
}

type result struct {
	value, base float64
	peer        string
	status      string // pass, miss, or missing
}

func (t target) eval(r run) result {
	v, ok := r.metrics[t.bench][t.unit]
	if !ok {
		return result{status: "missing"}
	}
	if len(t.peers) == 0 {
		return result{value: v, status: passOrMiss(v <= t.max+1e-9)}
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
		res.status = passOrMiss(v == 0)
		return res
	}
	res.status = passOrMiss(v/res.base <= t.max+1e-9)
	return res
}

func passOrMiss(ok bool) string {
	if ok {
		return "pass"
	}
	return "miss"
}

func render(r run, ts []target, table, cmd string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Benchmarks\n\n")
	fmt.Fprintf(&b, "Written by `make bench` on %s. Every figure below comes from one run of\n", time.Now().UTC().Format("2006-01-02"))
	fmt.Fprintf(&b, "the `bench/` module, in which Sluice and its peers ran side by side on the\nsame machine. Ratios compare medians; lower is better.\n\n")
	fmt.Fprintf(&b, "## Machine\n\n```\n")
	for _, h := range r.header {
		fmt.Fprintln(&b, h)
	}
	fmt.Fprintf(&b, "go: %s, GOMAXPROCS=%d\n```\n\n", runtime.Version(), runtime.GOMAXPROCS(0))
	if cmd != "" {
		fmt.Fprintf(&b, "## Commands\n\n```\n%s\n```\n\n", strings.TrimSpace(cmd))
	}
	fmt.Fprintf(&b, "## Targets\n\n| target | measured | against | ratio | bound | result |\n|---|---|---|---|---|---|\n")
	for _, t := range ts {
		res := t.eval(r)
		switch {
		case res.status == "missing":
			fmt.Fprintf(&b, "| %s | `%s` not in this run | | | | missing |\n", t.what, t.bench)
		case len(t.peers) == 0:
			fmt.Fprintf(&b, "| %s | %s %s | | | ≤ %s | %s |\n", t.what, num(res.value), t.unit, num(t.max), res.status)
		default:
			ratio := "n/a"
			if res.base != 0 {
				ratio = fmt.Sprintf("%.2fx", res.value/res.base)
			}
			fmt.Fprintf(&b, "| %s | %s %s | `%s` %s | %s | ≤ %sx | %s |\n", t.what, num(res.value), t.unit, res.peer, num(res.base), ratio, num(t.max), res.status)
		}
	}
	var why []string
	for _, t := range ts {
		if t.eval(r).status == "miss" && t.miss != "" {
			why = append(why, fmt.Sprintf("- **%s**: %s", t.what, t.miss))
		}
	}
	if len(why) > 0 {
		fmt.Fprintf(&b, "\n## Why the misses\n\n%s\n", strings.Join(why, "\n"))
	}
	if strings.TrimSpace(table) != "" {
		fmt.Fprintf(&b, "\n## benchstat\n\n```\n%s\n```\n", strings.TrimSpace(table))
	}
	return b.String()
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
