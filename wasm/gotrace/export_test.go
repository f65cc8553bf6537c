package gotrace

import (
	"bytes"
	"fmt"
)

// Reading is what a reader gathered of a trace, for tests.
type Reading struct {
	Tasks, Goroutines, Procs, Regions, Events int
	Span                                      int64
	Fields                                    map[uint64]string   // each task's fields but its times, printed
	Times                                     map[uint64][4]int64 // each task's begin, run, run region's end and end
	Runs                                      map[uint64][]RunOf  // each goroutine's runs
}

// RunOf is a stretch of time a goroutine ran on a proc.
type RunOf struct{ P, Start, End int64 }

// ReadBoth reads data with the fast reader and with x/exp/trace.
func ReadBoth(data []byte) (fast, exact *Reading, fastErr, exactErr error) {
	f, fastErr := readFast(data, nil)
	e, exactErr := readExact(bytesReader(data), nil)
	return export(f), export(e), fastErr, exactErr
}

func export(rd *reading) *Reading {
	if rd == nil {
		return nil
	}
	out := &Reading{Tasks: len(rd.tasks), Goroutines: rd.goroutines, Procs: rd.procs, Regions: rd.regions,
		Events: rd.events, Span: rd.last - rd.first, Fields: map[uint64]string{}, Times: map[uint64][4]int64{}, Runs: map[uint64][]RunOf{}}
	for id, t := range rd.tasks {
		out.Times[id] = [4]int64{t.begin, t.run, t.runEnd, t.end}
		c := *t
		c.begin, c.run, c.runEnd, c.end = 0, 0, 0, 0
		out.Fields[id] = sprint(&c)
	}
	for _, r := range rd.runs {
		out.Runs[r.g] = append(out.Runs[r.g], RunOf{r.p, r.start, r.end})
	}
	return out
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

func sprint(t *task) string { return fmt.Sprintf("%+v", *t) }
