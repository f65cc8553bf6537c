//go:build js && wasm

// Command worker is the playground's reader of Go execution traces, built
// as web/gotrace.wasm and run in a Web Worker (web/gotrace-worker.js), so
// that app.wasm does not carry golang.org/x/exp/trace and the page stays
// responsive while a trace is read. It sets one global function:
//
//	sluiceConvertGoTrace(bytes: Uint8Array, progress: (events) => void)
//	  -> {json: Uint8Array, lanes: Uint8Array, summary, omitted, tasks, events} | {error}
//
// which converts a trace with sluice/wasm/gotrace; then it waits for calls.
package main

import (
	"runtime/debug"
	"syscall/js"

	"sluice/wasm/gotrace"
	"sluice/wasm/gotrace/golanes"
)

func main() {
	// The worker reads one trace and is stopped: collecting garbage
	// meanwhile would only cost time (a third of it, on one thread), so
	// the collector runs only past a bound on the heap, which a trace of
	// several million events reaches.
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(1 << 30)
	js.Global().Set("sluiceConvertGoTrace", js.FuncOf(convert))
	select {}
}

func convert(_ js.Value, args []js.Value) any {
	if len(args) < 1 {
		return map[string]any{"error": "no trace given"}
	}
	data := make([]byte, args[0].Get("length").Int())
	js.CopyBytesToGo(data, args[0])
	var progress func(int)
	if len(args) > 1 && args[1].Type() == js.TypeFunction {
		progress = func(n int) { args[1].Invoke(n) }
	}
	res, err := gotrace.ConvertBytes(data, progress)
	if err != nil {
		return map[string]any{"error": err.Error()}
	}
	out := js.Global().Get("Uint8Array").New(len(res.JSON))
	js.CopyBytesToJS(out, res.JSON)
	enc := golanes.Encode(&res.Lanes) // the goroutine and proc lanes (sluice/wasm/gotrace/golanes)
	lanes := js.Global().Get("Uint8Array").New(len(enc))
	js.CopyBytesToJS(lanes, enc)
	return map[string]any{"json": out, "lanes": lanes, "summary": res.Summary, "omitted": res.Omitted, "tasks": res.Tasks, "events": res.Events}
}
