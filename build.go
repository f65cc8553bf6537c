package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The built front end, relative to the module root.
const (
	wasmFile   = "web/app.wasm"
	wasmGzFile = "web/app.wasm.gz"
)

// toolchain is the Go toolchain that builds the wasm; its wasm_exec.js is the
// one the page must load.
type toolchain struct {
	goroot  string // go env GOROOT
	version string // go env GOVERSION, such as "go1.26.8"
}

func (tc toolchain) wasmExecJS() string {
	return filepath.Join(tc.goroot, "lib", "wasm", "wasm_exec.js")
}

// checkRoot makes sure root is this module's root and returns the toolchain
// found on PATH.
func checkRoot(root string) (toolchain, error) {
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !bytes.HasPrefix(mod, []byte("module sluice\n")) {
		return toolchain{}, fmt.Errorf("run from the root of the sluice module (the directory with go.mod and web/)")
	}
	out, err := exec.Command("go", "env", "GOROOT", "GOVERSION").Output()
	if err != nil {
		return toolchain{}, fmt.Errorf("go env: %v", err)
	}
	lines := strings.Fields(string(out))
	if len(lines) != 2 {
		return toolchain{}, fmt.Errorf("go env: unexpected output %q", out)
	}
	tc := toolchain{goroot: lines[0], version: lines[1]}
	if _, err := os.Stat(tc.wasmExecJS()); err != nil {
		return toolchain{}, fmt.Errorf("the Go toolchain has no wasm_exec.js: %v", err)
	}
	return tc, nil
}

// ensureWasm builds web/app.wasm when wasmStale says so, and writes
// web/app.wasm.gz when it is missing or older than web/app.wasm.
func ensureWasm(root string, tc toolchain) error {
	stale, why, err := wasmStale(root, tc.version)
	if err != nil {
		return err
	}
	if stale {
		log.Printf("building %s: %s", wasmFile, why)
		return buildWasm(root, tc)
	}
	raw, err := os.Stat(filepath.Join(root, wasmFile))
	if err != nil {
		return err
	}
	if gz, err := os.Stat(filepath.Join(root, wasmGzFile)); err != nil || gz.ModTime().Before(raw.ModTime()) {
		return compressWasm(root)
	}
	return nil
}

// wasmStale reports whether web/app.wasm must be built, and why: it is
// missing, older than a .go file under wasm/ or core/ or than go.mod,
// go.sum or build.go (which holds the build flags), or was built by
// another Go version than goVersion (its wasm_exec.js would not match).
func wasmStale(root, goVersion string) (bool, string, error) {
	wasmPath := filepath.Join(root, wasmFile)
	st, err := os.Stat(wasmPath)
	if errors.Is(err, fs.ErrNotExist) {
		return true, "it does not exist yet", nil
	}
	if err != nil {
		return false, "", err
	}
	built := st.ModTime()
	newer := ""
	check := func(path string, mod time.Time) {
		if newer == "" && mod.After(built) {
			newer = path
		}
	}
	for _, f := range []string{"go.mod", "go.sum", "build.go"} {
		if fi, err := os.Stat(filepath.Join(root, f)); err == nil {
			check(f, fi.ModTime())
		}
	}
	for _, dir := range []string{"wasm", "core"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || newer != "" {
				return err
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			check(path, fi.ModTime())
			return nil
		})
		if err != nil {
			return false, "", err
		}
	}
	if newer != "" {
		return true, newer + " is newer", nil
	}
	b, err := os.ReadFile(wasmPath)
	if err != nil {
		return false, "", err
	}
	if v := wasmGoVersion(b); v != goVersion {
		return true, fmt.Sprintf("it was built by Go %q, the toolchain is %s", v, goVersion), nil
	}
	return false, "", nil
}

// wasmBuildFlags are the go build flags of web/app.wasm.
//
//   - -trimpath: no file system paths in the binary.
//   - -ldflags=-s -w: no symbol table or DWARF, which the browser never reads.
//   - -gcflags: no inlining (-l) but in the runtime and in this module's
//     packages, where the time goes (the simulation, the frame loop, the
//     trace reader). Inlining copies a callee into each of its callers; in
//     go-app and the standard library it pulls in (net/http, crypto,
//     encoding/json, regexp, text/template, reflect, fmt), which the page
//     runs seldom or only at start, the copies cost about 80 KB of the
//     gzip-encoded binary and no measurable time (make perf). wasm/sim
//     (the scenario's runner, checks and code generator), wasm/ui (the
//     page, whose drawing is calls into the canvas through syscall/js,
//     which inlining does not shorten) and core/trace (the recorder and
//     the JSON reader) are compiled without inlining too: together that
//     saves about 40 KB of the gzip-encoded binary; the time of a frame, a
//     seek or a trace load is mostly the primitives' (core, inlined) and
//     the browser's. The runtime (the allocator, the scheduler, channels)
//     keeps its inlining: without it app.wasm is 52 KB smaller, but a seek
//     takes twice as long and a frame with 1,000 live tasks 40% longer
//     (make perf).
var wasmBuildFlags = []string{
	"-trimpath",
	"-ldflags=-s -w",
	"-gcflags=all=-l",
	"-gcflags=runtime=",
	"-gcflags=internal/runtime/...=",
	"-gcflags=sluice/...=",
	"-gcflags=sluice/wasm/sim=-l",
	"-gcflags=sluice/wasm/ui=-l",
	"-gcflags=sluice/core/trace=-l",
}

// buildWasm runs GOOS=js GOARCH=wasm go build -o web/app.wasm ./wasm with
// wasmBuildFlags, through a temporary file so that a server never reads
// half a binary, then compresses it.
func buildWasm(root string, tc toolchain) error {
	start := time.Now()
	tmp := filepath.Join(root, wasmFile+".tmp")
	defer os.Remove(tmp)
	args := append(append([]string{"build"}, wasmBuildFlags...), "-o", tmp, "./wasm")
	cmd := exec.Command(filepath.Join(tc.goroot, "bin", "go"), args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("GOOS=js GOARCH=wasm go build -o %s ./wasm: %v", wasmFile, err)
	}
	if err := os.Rename(tmp, filepath.Join(root, wasmFile)); err != nil {
		return err
	}
	log.Printf("built %s in %v", wasmFile, time.Since(start).Round(time.Millisecond))
	return compressWasm(root)
}

// compressWasm writes web/app.wasm.gz, which the server sends to clients that
// accept gzip, with the best of gzipCommands found on PATH, and with
// compress/gzip when there is none or each fails.
func compressWasm(root string) error {
	raw, err := os.ReadFile(filepath.Join(root, wasmFile))
	if err != nil {
		return err
	}
	tmp := filepath.Join(root, wasmGzFile+".tmp")
	defer os.Remove(tmp)
	if gz, err := systemGzip(raw); err == nil {
		if err := os.WriteFile(tmp, gz, 0o644); err != nil {
			return err
		}
		return os.Rename(tmp, filepath.Join(root, wasmGzFile))
	}
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	zw, err := gzip.NewWriterLevel(bw, gzip.BestCompression)
	if err != nil {
		f.Close()
		return err
	}
	_, err = zw.Write(raw)
	for _, step := range []func() error{zw.Close, bw.Flush, f.Close} {
		if e := step(); err == nil {
			err = e
		}
	}
	if err != nil {
		return fmt.Errorf("compressing %s: %v", wasmFile, err)
	}
	return os.Rename(tmp, filepath.Join(root, wasmGzFile))
}

// gzipCommands are the encoders compressWasm tries, best first, each
// writing gzip to standard output with no name or time in the header (-n),
// so that the same input gives the same bytes:
//
//   - pigz -11 is Zopfli's deflate encoder (one iteration, -I 1, on every
//     core): it writes app.wasm 4.4% smaller than gzip -9 (2.60 against
//     2.72 MB), which is what a visitor downloads, in a minute of CPU
//     time rather than a second. make installs it (Debian package pigz).
//   - gzip -9, zlib's encoder: about 1% smaller than compress/gzip's best.
var gzipCommands = [][]string{
	{"pigz", "-11", "-I", "1", "-n", "-c"},
	{"gzip", "-9", "-n", "-c"},
}

// systemGzip compresses raw with the first of gzipCommands on PATH that
// succeeds, and checks that the result decompresses to raw.
func systemGzip(raw []byte) ([]byte, error) {
	err := errors.New("none of pigz and gzip is on PATH")
	for _, c := range gzipCommands {
		path, lerr := exec.LookPath(c[0])
		if lerr != nil {
			continue
		}
		start := time.Now()
		var gz []byte
		if gz, err = runGzip(path, c[1:], raw); err == nil {
			log.Printf("compressed %s with %s in %v: %d bytes", wasmFile, strings.Join(c[:2], " "), time.Since(start).Round(time.Millisecond), len(gz))
			return gz, nil
		}
	}
	return nil, err
}

// runGzip runs the encoder at path with args on raw, and checks its output.
func runGzip(path string, args []string, raw []byte) ([]byte, error) {
	var out bytes.Buffer
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout = bytes.NewReader(raw), &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Base(path), err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(out.Bytes()))
	if err != nil {
		return nil, fmt.Errorf("%s wrote no gzip stream: %v", filepath.Base(path), err)
	}
	back, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(back, raw) {
		return nil, fmt.Errorf("%s's output does not decompress to its input (%v)", filepath.Base(path), err)
	}
	return out.Bytes(), nil
}

// wasmGoVersion returns the Go version that built a WebAssembly binary, from
// the "language" field of its "producers" custom section (such as
// "go1.26.8"), or "" if b holds none.
func wasmGoVersion(b []byte) string {
	if len(b) < 8 || string(b[:4]) != "\x00asm" {
		return ""
	}
	b = b[8:]
	for len(b) > 0 {
		id := b[0]
		size, n := binary.Uvarint(b[1:])
		if n <= 0 || size > uint64(len(b)-1-n) {
			return ""
		}
		section := b[1+n : 1+n+int(size)]
		b = b[1+n+int(size):]
		if id != 0 { // not a custom section
			continue
		}
		name, rest, ok := wasmName(section)
		if !ok || name != "producers" {
			continue
		}
		return producersGo(rest)
	}
	return ""
}

// producersGo reads the body of a producers section: a vector of fields,
// each a name and a vector of (name, version) pairs.
func producersGo(b []byte) string {
	fields, n := binary.Uvarint(b)
	if n <= 0 {
		return ""
	}
	b = b[n:]
	for range fields {
		field, rest, ok := wasmName(b)
		if !ok {
			return ""
		}
		values, n := binary.Uvarint(rest)
		if n <= 0 {
			return ""
		}
		b = rest[n:]
		for range values {
			var name, version string
			if name, b, ok = wasmName(b); !ok {
				return ""
			}
			if version, b, ok = wasmName(b); !ok {
				return ""
			}
			if field == "language" && name == "Go" {
				return version
			}
		}
	}
	return ""
}

// wasmName reads a length-prefixed UTF-8 name.
func wasmName(b []byte) (name string, rest []byte, ok bool) {
	l, n := binary.Uvarint(b)
	if n <= 0 || l > uint64(len(b)-n) {
		return "", nil, false
	}
	return string(b[n : n+int(l)]), b[n+int(l):], true
}
