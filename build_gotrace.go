package main

import (
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// workerWasmFile is the reader of Go execution traces (wasm/gotrace/worker),
// which web/gotrace-worker.js runs in a Web Worker: a binary of its own, so
// that app.wasm does not carry golang.org/x/exp/trace.
const workerWasmFile = "web/gotrace.wasm"

// ensureWorkerWasm builds web/gotrace.wasm when it is missing or older than
// web/app.wasm, which is rebuilt whenever a source of either changes.
func ensureWorkerWasm(root string, tc toolchain) error {
	w, err := os.Stat(filepath.Join(root, workerWasmFile))
	if err == nil {
		a, err := os.Stat(filepath.Join(root, wasmFile))
		if err != nil || !w.ModTime().Before(a.ModTime()) {
			return err
		}
	}
	return buildWorkerWasm(root, tc)
}

// workerBuildFlags are the go build flags of web/gotrace.wasm: app.wasm's
// but for inlining, which it keeps everywhere: the worker is fetched only
// when a Go execution trace is opened, and reading one is where its time
// goes (inlining in the standard library saves about an eighth of it).
var workerBuildFlags = []string{"-trimpath", "-ldflags=-s -w"}

// buildWorkerWasm builds web/gotrace.wasm with workerBuildFlags, through a
// temporary file. The server serves it as it is: the worker fetches it
// only when a Go execution trace is opened.
func buildWorkerWasm(root string, tc toolchain) error {
	start := time.Now()
	tmp := filepath.Join(root, workerWasmFile+".tmp")
	defer os.Remove(tmp)
	args := append(append([]string{"build"}, workerBuildFlags...), "-o", tmp, "./wasm/gotrace/worker")
	cmd := exec.Command(filepath.Join(tc.goroot, "bin", "go"), args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("GOOS=js GOARCH=wasm go build -o %s ./wasm/gotrace/worker: %v", workerWasmFile, err)
	}
	if err := os.Rename(tmp, filepath.Join(root, workerWasmFile)); err != nil {
		return err
	}
	log.Printf("built %s in %v", workerWasmFile, time.Since(start).Round(time.Millisecond))
	return nil
}
