//go:build js && wasm

package ui

import (
	"errors"
	"fmt"
	"time"

	"github.com/hack-pad/safejs"
	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// goTraceWorker is the script that reads Go execution traces off the page's
// thread, with web/gotrace.wasm (sluice/wasm/gotrace).
const goTraceWorker = "/web/gotrace-worker.js"

// loadTrace shows the file r reads: a Go execution trace (its first bytes
// say "go 1.") is read by the Go-trace worker and loaded as the timeline
// JSON it returns; anything else is read as trace JSON. It must be called
// from a goroutine of its own; progress goes to the reading note.
func (p *Play) loadTrace(ctx app.Context, r *fileReader, name string) error {
	if !isGoTraceFile(r.file) {
		return p.sess.LoadTracePausing(r, name, p.pauser(name))
	}
	last := time.Now()
	res, err := readGoTrace(r.file, func(events int) {
		if time.Since(last) < 150*time.Millisecond {
			return
		}
		last = time.Now()
		msg := fmt.Sprintf("Reading the Go execution trace %s… %s events", name, formatCount(events))
		p.progress.set(msg)
	})
	if err != nil {
		return fmt.Errorf("%s cannot be shown: %v", name, err)
	}
	// The timeline JSON is a Blob, read in slices as a chosen file is, so
	// that the page keeps its frames while it loads.
	// The worker's timeline, read with no note of its own: the note
	// says how far the building has come.
	if err := p.sess.LoadTracePausing(newFileReader(res.json, res.size, nil), name, p.pauser(name)); err != nil {
		return err
	}
	p.sess.NoteGoTrace(res.summary, res.omitted)
	if err := p.sess.AddGoLanes(res.lanes, p.pauser(name)); err != nil {
		return fmt.Errorf("%s: its goroutines and procs cannot be shown: %v", name, err)
	}
	return nil
}

// pauser returns a pause function for Session.LoadTracePausing: it lets
// the browser run (a sleep hands the thread back to it) once the reading
// has held the thread for sliceTime since it last did, and shows how far
// the building has come. A frame of the page (drawn when the browser runs,
// before the reading goes on) and a slice must fit in 50 ms together.
func (p *Play) pauser(name string) func(float64) {
	const sliceTime = 10 * time.Millisecond
	last, shown := time.Now(), time.Now()
	return func(done float64) {
		if time.Since(last) < sliceTime {
			return
		}
		if time.Since(shown) >= 150*time.Millisecond {
			p.progress.set(fmt.Sprintf("Building the timeline of %s… %d%%", name, int(done*100)))
			shown = time.Now()
		}
		yieldToBrowser()
		last = time.Now()
	}
}

// isGoTraceFile reports whether a browser File begins as a Go execution
// trace does.
func isGoTraceFile(file safejs.Value) bool {
	blob, err := file.Call("slice", 0, 5)
	if err != nil {
		return false
	}
	promise, err := blob.Call("arrayBuffer")
	if err != nil {
		return false
	}
	ab, err := await(promise)
	if err != nil {
		return false
	}
	u8, err := safejs.Global().Get("Uint8Array")
	if err != nil {
		return false
	}
	arr, err := u8.New(ab)
	if err != nil {
		return false
	}
	head := make([]byte, 5)
	n, err := safejs.CopyBytesToGo(head, arr)
	return err == nil && string(head[:n]) == "go 1."
}

type goTrace struct {
	json             safejs.Value // a Blob
	size             int64
	lanes            []byte // the goroutine and proc lanes (golanes)
	summary, omitted string
}

// readGoTrace has a new Go-trace worker read file and waits for its answer;
// progress receives the count of events read so far. The worker is
// stopped when it has answered.
func readGoTrace(file safejs.Value, progress func(events int)) (*goTrace, error) {
	ctor, err := safejs.Global().Get("Worker")
	if err != nil {
		return nil, err
	}
	worker, err := ctor.New(goTraceWorker)
	if err != nil {
		return nil, fmt.Errorf("the trace reader did not start: %v", err)
	}
	defer worker.Call("terminate")
	type answer struct {
		res *goTrace
		err error
	}
	ch := make(chan answer, 1) // one answer; the callbacks must not block
	onMessage, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		data, err := args[0].Get("data")
		if err != nil {
			return nil
		}
		str := func(k string) string {
			v, err := data.Get(k)
			if err != nil || v.IsUndefined() || v.IsNull() {
				return ""
			}
			s, _ := v.String()
			return s
		}
		if ev, err := data.Get("progress"); err == nil && !ev.IsUndefined() {
			n, _ := ev.Int()
			progress(n)
			return nil
		}
		if msg := str("error"); msg != "" {
			ch <- answer{err: errors.New(msg)}
			return nil
		}
		blob, err := data.Get("json")
		if err != nil || blob.IsUndefined() {
			ch <- answer{err: errors.New("the trace reader gave no timeline")}
			return nil
		}
		sv, _ := data.Get("size")
		size, _ := sv.Float()
		var lanes []byte
		if lv, err := data.Get("lanes"); err == nil && !lv.IsUndefined() {
			if n, err := lv.Length(); err == nil {
				lanes = make([]byte, n)
				safejs.CopyBytesToGo(lanes, lv)
			}
		}
		ch <- answer{res: &goTrace{json: blob, size: int64(size), lanes: lanes, summary: str("summary"), omitted: str("omitted")}}
		return nil
	})
	if err != nil {
		return nil, err
	}
	defer onMessage.Release()
	onError, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		msg := "the trace reader failed to load"
		if m, err := args[0].Get("message"); err == nil && !m.IsUndefined() {
			if s, err := m.String(); err == nil && s != "" {
				msg += ": " + s
			}
		}
		select {
		case ch <- answer{err: errors.New(msg)}:
		default:
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	defer onError.Release()
	worker.Set("onmessage", onMessage.Value())
	worker.Set("onerror", onError.Value())
	msg, err := safejs.ValueOf(map[string]any{})
	if err != nil {
		return nil, err
	}
	msg.Set("file", file)
	if _, err := worker.Call("postMessage", msg); err != nil {
		return nil, err
	}
	a := <-ch
	return a.res, a.err
}
