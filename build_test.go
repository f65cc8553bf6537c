package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeWasm returns a WebAssembly module with a type section and a producers
// section naming goVersion as its Go version ("" for no producers section).
func fakeWasm(goVersion string) []byte {
	name := func(s string) []byte { return append(binary.AppendUvarint(nil, uint64(len(s))), s...) }
	section := func(id byte, body []byte) []byte {
		return append(append([]byte{id}, binary.AppendUvarint(nil, uint64(len(body)))...), body...)
	}
	b := []byte("\x00asm\x01\x00\x00\x00")
	b = append(b, section(1, []byte{0})...) // an empty type section
	if goVersion != "" {
		body := name("producers")
		body = append(body, 2) // two fields
		body = append(body, name("processed-by")...)
		body = append(body, 1)
		body = append(append(body, name("Go cmd/compile")...), name(goVersion)...)
		body = append(body, name("language")...)
		body = append(body, 1)
		body = append(append(body, name("Go")...), name(goVersion)...)
		b = append(b, section(0, body)...)
	}
	return b
}

func TestWasmGoVersion(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"producers", fakeWasm("go1.26.8"), "go1.26.8"},
		{"no producers", fakeWasm(""), ""},
		{"not wasm", []byte("\x7fELF not wasm at all"), ""},
		{"truncated", fakeWasm("go1.26.8")[:20], ""},
		{"empty", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := wasmGoVersion(tc.b); got != tc.want {
				t.Errorf("wasmGoVersion = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestWasmStale(t *testing.T) {
	const goVersion = "go1.26.8"
	built := time.Now().Add(-time.Hour)
	before, after := built.Add(-time.Minute), built.Add(time.Minute)

	// setup makes a module whose sources are all older than web/app.wasm,
	// then applies change.
	setup := func(t *testing.T, change func(root string)) string {
		t.Helper()
		root := t.TempDir()
		write := func(name string, b []byte, mod time.Time) {
			p := filepath.Join(root, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, mod, mod); err != nil {
				t.Fatal(err)
			}
		}
		write("go.mod", []byte("module sluice\n"), before)
		write("go.sum", nil, before)
		write("core/core.go", []byte("package core\n"), before)
		write("core/trace/trace.go", []byte("package trace\n"), before)
		write("wasm/main.go", []byte("package main\n"), before)
		write(wasmFile, fakeWasm(goVersion), built)
		if change != nil {
			change(root)
		}
		return root
	}
	touch := func(name string) func(string) {
		return func(root string) {
			p := filepath.Join(root, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("package x\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, after, after); err != nil {
				t.Fatal(err)
			}
		}
	}

	for _, tc := range []struct {
		name   string
		change func(root string)
		want   bool
	}{
		{"fresh", nil, false},
		{"missing", func(root string) { os.Remove(filepath.Join(root, wasmFile)) }, true},
		{"wasm source newer", touch("wasm/ui/page.go"), true},
		{"core source newer", touch("core/trace/trace.go"), true},
		{"go.mod newer", touch("go.mod"), true},
		{"go.sum newer", touch("go.sum"), true},
		{"build flags newer", touch("build.go"), true},
		{"test file newer", touch("core/core_test.go"), false},
		{"other file newer", touch("web/sluice.css"), false},
		{"other directory newer", touch("e2e/e2e_test.go"), false},
		{"other Go version", func(root string) {
			p := filepath.Join(root, wasmFile)
			os.WriteFile(p, fakeWasm("go1.21.0"), 0o644)
			os.Chtimes(p, built, built)
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := setup(t, tc.change)
			got, why, err := wasmStale(root, goVersion)
			if err != nil {
				t.Fatalf("wasmStale: %v", err)
			}
			if got != tc.want {
				t.Errorf("wasmStale = %v (%s), want %v", got, why, tc.want)
			}
			if got && why == "" {
				t.Errorf("wasmStale gave no reason")
			}
		})
	}
}

func TestCompressWasm(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "web"), 0o755); err != nil {
		t.Fatal(err)
	}
	raw := fakeWasm("go1.26.8")
	if err := os.WriteFile(filepath.Join(root, wasmFile), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := compressWasm(root); err != nil {
		t.Fatalf("compressWasm: %v", err)
	}
	got := gunzip(t, readFile(t, filepath.Join(root, wasmGzFile)))
	if string(got) != string(raw) {
		t.Errorf("app.wasm.gz holds %d bytes, want app.wasm's %d", len(got), len(raw))
	}
	if _, err := os.Stat(filepath.Join(root, wasmGzFile+".tmp")); !os.IsNotExist(err) {
		t.Errorf("temporary file left behind: %v", err)
	}
}

// TestSystemGzip compresses a part of a real Go binary (this test's) with
// each gzip command there is: the result decompresses to the input and is
// no larger than compress/gzip's best.
func TestSystemGzip(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	raw := readFile(t, exe)
	raw = raw[:min(len(raw), 512<<10)]
	var std bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&std, gzip.BestCompression)
	zw.Write(raw)
	zw.Close()
	for _, c := range gzipCommands {
		t.Run(c[0], func(t *testing.T) {
			path, err := exec.LookPath(c[0])
			if err != nil {
				t.Skipf("no %s command: compressWasm tries the next", c[0])
			}
			got, err := runGzip(path, c[1:], raw)
			if err != nil {
				t.Fatalf("%s: %v", c[0], err)
			}
			if back := gunzip(t, got); !bytes.Equal(back, raw) {
				t.Fatalf("%s's output decompresses to %d bytes, want the %d given", c[0], len(back), len(raw))
			}
			if len(got) > std.Len() {
				t.Errorf("%s wrote %d bytes, compress/gzip's best %d: want no more", strings.Join(c, " "), len(got), std.Len())
			}
		})
	}
}
