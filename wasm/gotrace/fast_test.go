package gotrace_test

import (
	"os"
	"slices"
	"testing"

	"sluice/wasm/gotrace"
	"sluice/wasm/gotrace/gotracetest"
)

// TestFastMatchesExact reads traces with the fast reader and with
// golang.org/x/exp/trace and compares what each gathered: every task with
// all its fields, the goroutines, procs and other regions.
func TestFastMatchesExact(t *testing.T) {
	snapshot, err := os.ReadFile("../../e2e/testdata/service-snapshot.out")
	if err != nil {
		t.Fatal(err)
	}
	large, err := gotracetest.Write(60_000)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"small", record(t)},
		{"flight-recorder snapshot", snapshot},
		{"many tasks", large},
	} {
		t.Run(c.name, func(t *testing.T) {
			fast, exact, ferr, eerr := gotrace.ReadBoth(c.data)
			if ferr != nil || eerr != nil {
				t.Fatalf("fast reader: %v; x/exp/trace: %v; want both to read it", ferr, eerr)
			}
			if fast.Tasks != exact.Tasks || fast.Goroutines != exact.Goroutines || fast.Procs != exact.Procs || fast.Regions != exact.Regions {
				t.Errorf("fast reader: %d tasks, %d goroutines, %d procs, %d regions; x/exp/trace: %d, %d, %d, %d",
					fast.Tasks, fast.Goroutines, fast.Procs, fast.Regions, exact.Tasks, exact.Goroutines, exact.Procs, exact.Regions)
			}
			diffs := 0
			for id, want := range exact.Fields {
				if got := fast.Fields[id]; got != want && diffs < 5 {
					diffs++
					t.Errorf("task %d: fast reader %s, x/exp/trace %s", id, got, want)
				}
			}
			// x/exp/trace puts every thread's events in one order, and
			// moves an event that would come at or before the one before
			// it in that order to 1 ns after it: where threads' clocks
			// disagree (a loaded machine's), by as much as they do, which
			// is tens of microseconds at most.
			const skew = 100_000 // ns
			for id, want := range exact.Times {
				got := fast.Times[id]
				for i := range got {
					if d := got[i] - want[i]; (d < -skew || d > skew) && diffs < 5 {
						diffs++
						t.Errorf("task %d: fast reader's times %v, x/exp/trace's %v", id, got, want)
					}
				}
			}
			// Each goroutine ran on the same procs at the same times.
			runs, fastRuns := 0, 0
			for g, want := range exact.Runs {
				runs += len(want)
				got := fast.Runs[g]
				if len(got) != len(want) {
					if diffs < 5 {
						diffs++
						t.Errorf("goroutine %d: fast reader %d runs, x/exp/trace %d: %v, want %v", g, len(got), len(want), head(got), head(want))
					}
					continue
				}
				for i := range got {
					if d0, d1 := got[i].Start-want[i].Start, got[i].End-want[i].End; (got[i].P != want[i].P || d0 < -skew || d0 > skew || d1 < -skew || d1 > skew) && diffs < 5 {
						diffs++
						t.Errorf("goroutine %d's run %d: fast reader %+v, x/exp/trace %+v", g, i, got[i], want[i])
					}
				}
			}
			for _, got := range fast.Runs {
				fastRuns += len(got)
			}
			t.Logf("goroutine runs: fast reader %d, x/exp/trace %d", fastRuns, runs)
			if runs == 0 || fastRuns != runs {
				t.Errorf("goroutine runs: fast reader %d, x/exp/trace %d; want the same, and some", fastRuns, runs)
			}
			if d := exact.Span - fast.Span; d < 0 || d > exact.Span/100 {
				t.Errorf("span: fast reader %d ns, x/exp/trace %d ns", fast.Span, exact.Span)
			}
			t.Logf("events: fast reader %d, x/exp/trace %d", fast.Events, exact.Events)
		})
	}
}

func head(runs []gotrace.RunOf) []gotrace.RunOf { return runs[:min(len(runs), 4)] }

// BenchmarkConvert converts a trace of about 1,000,000 events, as the
// playground's worker does.
func BenchmarkConvert(b *testing.B) {
	data, err := gotracetest.Write(1_000_000)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := gotrace.ConvertBytes(data, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFastDamaged reads damaged traces: every cut of a small trace, and
// copies with bytes changed, never panic and either read or fail; a cut
// one is read only if it is whole up to there: cut at the end of a
// generation, as a flight recorder's snapshot is, which x/exp/trace reads
// too (a recording whose first generation ended within 68 bytes was).
func TestFastDamaged(t *testing.T) {
	data := record(t)
	for n := 0; n < len(data); n += max(1, len(data)/500) {
		if _, err := gotrace.ConvertBytes(data[:n], nil); err == nil && n < len(data)-1 {
			if _, _, _, exactErr := gotrace.ReadBoth(data[:n]); exactErr != nil {
				t.Errorf("a trace cut to %d of %d bytes was read; x/exp/trace says %v", n, len(data), exactErr)
			}
		}
	}
	rnd := uint64(1)
	for range 300 {
		d := slices.Clone(data)
		for range 4 {
			rnd = rnd*6364136223846793005 + 1442695040888963407
			d[16+int(rnd>>33)%(len(d)-16)] = byte(rnd >> 7)
		}
		gotrace.ConvertBytes(d, nil) // an error or a result, and no panic
	}
}
