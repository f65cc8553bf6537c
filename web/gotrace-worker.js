// The playground's reader of Go execution traces (trace.out, go test
// -trace, flight-recorder snapshots). It runs web/gotrace.wasm, which
// reads a trace with golang.org/x/exp/trace, off the page's thread.
//
// The page posts {file: File}; the worker answers {progress: events} now and then
// while it reads, then {json, size, lanes, summary, omitted, tasks, events}
// (json: a Blob of the timeline as the trace JSON the page loads; lanes: a
// Uint8Array of the goroutine and proc lanes, sluice/wasm/gotrace/golanes)
// or {error}.
importScripts("../wasm_exec.js");

let ready = null;

function start() {
  if (!ready) {
    const go = new Go();
    ready = WebAssembly.instantiateStreaming(fetch("gotrace.wasm"), go.importObject).then((r) => {
      go.run(r.instance); // sets sluiceConvertGoTrace, then waits for calls
    });
  }
  return ready;
}

onmessage = async (e) => {
  try {
    await start();
    const bytes = new Uint8Array(await e.data.file.arrayBuffer());
    const r = sluiceConvertGoTrace(bytes, (n) => postMessage({ progress: n }));
    if (r.error) {
      postMessage({ error: r.error });
      return;
    }
    // A Blob: the page reads it in slices, as it reads a chosen file.
    const json = new Blob([r.json], { type: "application/json" });
    postMessage({ json, size: json.size, lanes: r.lanes, summary: r.summary, omitted: r.omitted, tasks: r.tasks, events: r.events });
  } catch (err) {
    postMessage({ error: "the trace reader failed: " + err });
  }
};
