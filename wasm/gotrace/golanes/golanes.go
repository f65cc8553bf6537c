// Package golanes carries the goroutine and proc lanes of a Go execution
// trace from the playground's Go-trace worker (sluice/wasm/gotrace) to the
// page, which draws them below the sluice tasks' lanes: when each
// goroutine that ran a sluice task ran, and which goroutine, and which
// task, each proc ran when. It has no dependencies beyond the standard
// library, so that app.wasm can decode what the worker encodes.
package golanes

import (
	"encoding/binary"
	"errors"
)

// Lanes are a trace's goroutine and proc lanes.
type Lanes struct {
	// Names are the lanes' names, top to bottom: the goroutines' lanes
	// ("goroutine 12", or rows of several goroutines, "goroutines · row
	// 1", when many ran sluice tasks), then the procs' ("proc 0").
	Names []string
	// Runs are the stretches of time drawn on the lanes, in order of
	// start.
	Runs []Run
}

// Run is a stretch of time a goroutine ran on a proc, within one sluice
// task or outside any.
type Run struct {
	Lane       int    // index into Names
	Start, End int64  // nanoseconds since 1970, the trace's clock, as the timeline's task times
	Task       uint64 // the ID of the timeline task that ran, or 0 for none
	G          uint64 // the goroutine
	P          int64  // the proc, or -1 if not known
}

// Encode writes l as varints. (A function, not a method: app.wasm, which
// only decodes, leaves it out.)
func Encode(l *Lanes) []byte {
	b := binary.AppendUvarint(nil, uint64(len(l.Names)))
	for _, n := range l.Names {
		b = binary.AppendUvarint(b, uint64(len(n)))
		b = append(b, n...)
	}
	b = binary.AppendUvarint(b, uint64(len(l.Runs)))
	prev := int64(0)
	for _, r := range l.Runs {
		b = binary.AppendUvarint(b, uint64(r.Lane))
		b = binary.AppendVarint(b, r.Start-prev)
		b = binary.AppendVarint(b, r.End-r.Start)
		b = binary.AppendUvarint(b, r.Task)
		b = binary.AppendUvarint(b, r.G)
		b = binary.AppendVarint(b, r.P)
		prev = r.Start
	}
	return b
}

var errBad = errors.New("golanes: bad encoding")

// decoder reads varints; after a bad one, b is nil.
type decoder struct{ b []byte }

// uvarint is not inlined: app.wasm, which decodes, is kept small.
//
//go:noinline
func (d *decoder) uvarint() uint64 {
	var v uint64
	for i, c := range d.b {
		if i == 10 {
			break
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			d.b = d.b[i+1:]
			return v
		}
	}
	d.b = nil
	return 0
}

func (d *decoder) varint() int64 {
	u := d.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

// Decode reads what Encode wrote. It returns an error, and never panics,
// on anything else.
func Decode(b []byte) (*Lanes, error) { return DecodePausing(b, nil) }

// DecodePausing is Decode that calls pause, if not nil, every few
// thousand runs (a page's thread lets the browser draw there).
func DecodePausing(b []byte, pause func()) (*Lanes, error) {
	d := decoder{b}
	var l Lanes
	names := d.uvarint()
	if names > uint64(len(d.b)) {
		return nil, errBad
	}
	for range names {
		n := d.uvarint()
		if d.b == nil || n > uint64(len(d.b)) {
			return nil, errBad
		}
		l.Names = append(l.Names, string(d.b[:n]))
		d.b = d.b[n:]
	}
	runs := d.uvarint()
	if d.b == nil || runs > uint64(len(d.b)) {
		return nil, errBad
	}
	l.Runs = make([]Run, 0, runs)
	prev := int64(0)
	for i := range runs {
		if pause != nil && i%8192 == 8191 {
			pause()
		}
		r := Run{Lane: int(d.uvarint()), Start: prev + d.varint()}
		r.End = r.Start + d.varint()
		r.Task, r.G, r.P = d.uvarint(), d.uvarint(), d.varint()
		if d.b == nil || r.Lane < 0 || r.Lane >= len(l.Names) || r.End < r.Start {
			return nil, errBad
		}
		prev = r.Start
		l.Runs = append(l.Runs, r)
	}
	if len(d.b) != 0 {
		return nil, errBad
	}
	return &l, nil
}
