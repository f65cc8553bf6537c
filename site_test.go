package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"sluice/wasm/ui"
)

var routesOnce sync.Once

// newTestSite builds a site over a fake module: a toolchain whose
// wasm_exec.js is recognisable, and web/ with a small app.wasm, its gzip
// copy, assets, and files that must not be served.
func newTestSite(t *testing.T) (*site, string, toolchain) {
	t.Helper()
	routesOnce.Do(ui.Routes)
	root := t.TempDir()
	goroot := t.TempDir()
	files := map[string][]byte{
		filepath.Join(goroot, "lib/wasm/wasm_exec.js"): []byte("// the toolchain's wasm_exec.js\n"),
		filepath.Join(root, "go.mod"):                  []byte("module sluice\n"),
		filepath.Join(root, "web/app.wasm"):            fakeWasm("go1.26.8"),
		filepath.Join(root, "web/sluice.css"):          []byte("body{}\n"),
		filepath.Join(root, "web/icon.svg"):            []byte("<svg/>\n"),
		filepath.Join(root, "web/icon-192.png"):        []byte("png"),
		filepath.Join(root, "web/icon-512.png"):        []byte("png"),
		filepath.Join(root, "web/genicons.go"):         []byte("package main\n"),
		filepath.Join(root, "web/.hidden.css"):         []byte("secret\n"),
		filepath.Join(root, "web/sub/nested.css"):      []byte("nested{}\n"),
		filepath.Join(root, "secret.txt"):              []byte("outside web/\n"),
	}
	for p, b := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := compressWasm(root); err != nil {
		t.Fatal(err)
	}
	tc := toolchain{goroot: goroot, version: "go1.26.8"}
	s, err := newSite(root, tc)
	if err != nil {
		t.Fatalf("newSite: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, root, tc
}

func do(t *testing.T, h http.Handler, method, target string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestPages(t *testing.T) {
	s, _, _ := newTestSite(t)
	h := s.Handler()
	for _, tc := range []struct {
		path      string
		frameable bool
	}{
		{"/", false},
		{"/embed", true},
	} {
		t.Run(tc.path, func(t *testing.T) {
			rec := do(t, h, "GET", tc.path)
			if rec.Code != http.StatusOK {
				t.Fatalf("GET %s = %d, want 200", tc.path, rec.Code)
			}
			body := rec.Body.String()
			if !strings.Contains(body, `id="playground"`) {
				t.Errorf("GET %s: the playground is not pre-rendered", tc.path)
			}
			// Every resource the page loads is on this origin.
			for _, m := range regexp.MustCompile(`(?:src|href)="([^"]*)"`).FindAllStringSubmatch(body, -1) {
				if !strings.HasPrefix(m[1], "/") || strings.HasPrefix(m[1], "//") {
					t.Errorf("GET %s links to %q, want a path on this origin", tc.path, m[1])
				}
			}
			csp := rec.Header().Get("Content-Security-Policy")
			xfo := rec.Header().Get("X-Frame-Options")
			if tc.frameable {
				if !strings.Contains(csp, "frame-ancestors *") || xfo != "" {
					t.Errorf("GET %s: CSP %q, X-Frame-Options %q, want frame-ancestors * and no X-Frame-Options", tc.path, csp, xfo)
				}
			} else if !strings.Contains(csp, "frame-ancestors 'none'") || xfo != "DENY" {
				t.Errorf("GET %s: CSP %q, X-Frame-Options %q, want frame-ancestors 'none' and DENY", tc.path, csp, xfo)
			}
			for _, want := range []string{"script-src 'self' 'wasm-unsafe-eval'", "default-src 'self'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("GET %s: CSP %q lacks %q", tc.path, csp, want)
				}
			}
			if strings.Contains(csp, "'unsafe-eval'") || strings.Contains(csp, "'unsafe-inline'") {
				t.Errorf("GET %s: CSP %q allows eval or inline code", tc.path, csp)
			}
		})
	}
}

func TestScripts(t *testing.T) {
	s, _, _ := newTestSite(t)
	h := s.Handler()

	t.Run("wasm_exec.js is the toolchain's", func(t *testing.T) {
		rec := do(t, h, "GET", "/wasm_exec.js")
		if got := rec.Body.String(); got != "// the toolchain's wasm_exec.js\n" {
			t.Errorf("/wasm_exec.js = %q, want the toolchain's", got)
		}
		if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") {
			t.Errorf("Content-Type = %q, want text/javascript", ct)
		}
	})

	t.Run("app.js guards the service worker", func(t *testing.T) {
		body := do(t, h, "GET", "/app.js").Body.String()
		if !strings.Contains(body, embedGuard) {
			t.Errorf("/app.js lacks the embed guard")
		}
		if n := strings.Count(body, "goappInitServiceWorker();"); n != 1 {
			t.Errorf("/app.js calls goappInitServiceWorker %d times, want 1 (inside the guard)", n)
		}
		if !strings.Contains(body, `"X-Wasm-Content-Length"`) || !strings.Contains(body, `"/web/app.wasm"`) {
			t.Errorf("/app.js does not load /web/app.wasm with its length header")
		}
	})

	t.Run("app-worker.js caches local files only", func(t *testing.T) {
		body := do(t, h, "GET", "/app-worker.js").Body.String()
		m := regexp.MustCompile(`const resourcesToCache = \[(.*)\];`).FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("no resourcesToCache in:\n%s", body)
		}
		for _, r := range strings.Split(m[1], ",") {
			if r = strings.Trim(r, `" `); !strings.HasPrefix(r, "/") {
				t.Errorf("the service worker caches %q, want a local path", r)
			}
		}
		if !strings.Contains(m[1], `"/web/app.wasm"`) {
			t.Errorf("the service worker does not cache /web/app.wasm: %s", m[1])
		}
		// Network first: the cache answers only when fetch fails.
		if !strings.Contains(body, "fetch(event.request).catch(") {
			t.Errorf("the service worker is not network-first:\n%s", body)
		}
	})

	t.Run("manifest icons are local", func(t *testing.T) {
		body := do(t, h, "GET", "/manifest.webmanifest").Body.String()
		if strings.Contains(body, "http") {
			t.Errorf("the manifest refers to another host:\n%s", body)
		}
	})

	t.Run("patchAppJS refuses an unknown app.js", func(t *testing.T) {
		for _, js := range []string{"", "goappInitServiceWorker();\ngoappInitServiceWorker();\n"} {
			if _, err := patchAppJS([]byte(js)); err == nil {
				t.Errorf("patchAppJS(%q) succeeded, want an error", js)
			}
		}
	})
}

func TestWasm(t *testing.T) {
	s, root, _ := newTestSite(t)
	h := s.Handler()
	raw := readFile(t, filepath.Join(root, wasmFile))

	t.Run("gzip", func(t *testing.T) {
		rec := do(t, h, "GET", "/web/app.wasm", "Accept-Encoding", "br, gzip;q=0.8")
		if got := rec.Header().Get("Content-Encoding"); got != "gzip" {
			t.Fatalf("Content-Encoding = %q, want gzip", got)
		}
		if got := gunzip(t, rec.Body.Bytes()); !bytes.Equal(got, raw) {
			t.Errorf("decoded body is %d bytes, want app.wasm's %d", len(got), len(raw))
		}
		if got := rec.Header().Get(wasmLengthHeader); got != strconv.Itoa(len(raw)) {
			t.Errorf("%s = %q, want %d", wasmLengthHeader, got, len(raw))
		}
		if got := rec.Header().Get("Content-Type"); got != "application/wasm" {
			t.Errorf("Content-Type = %q, want application/wasm", got)
		}
		if got := rec.Header().Get("Vary"); got != "Accept-Encoding" {
			t.Errorf("Vary = %q, want Accept-Encoding", got)
		}
		etag := rec.Header().Get("ETag")
		if rec := do(t, h, "GET", "/web/app.wasm", "Accept-Encoding", "gzip", "If-None-Match", etag); rec.Code != http.StatusNotModified {
			t.Errorf("GET with If-None-Match = %d, want 304", rec.Code)
		}
	})

	t.Run("identity", func(t *testing.T) {
		for _, ae := range []string{"", "identity", "gzip;q=0", "br"} {
			rec := do(t, h, "GET", "/web/app.wasm", "Accept-Encoding", ae)
			if got := rec.Header().Get("Content-Encoding"); got != "" {
				t.Errorf("Accept-Encoding %q: Content-Encoding = %q, want none", ae, got)
			}
			if !bytes.Equal(rec.Body.Bytes(), raw) {
				t.Errorf("Accept-Encoding %q: body is not app.wasm", ae)
			}
		}
	})

	t.Run("stale gzip copy", func(t *testing.T) {
		later := time.Now().Add(time.Hour)
		if err := os.Chtimes(filepath.Join(root, wasmFile), later, later); err != nil {
			t.Fatal(err)
		}
		rec := do(t, h, "GET", "/web/app.wasm", "Accept-Encoding", "gzip")
		if got := rec.Header().Get("Content-Encoding"); got != "" {
			t.Errorf("Content-Encoding = %q, want none when app.wasm.gz is older than app.wasm", got)
		}
	})
}

func TestOnlyOwnFiles(t *testing.T) {
	s, _, _ := newTestSite(t)
	h := s.Handler()
	for _, path := range []string{"/web/sluice.css", "/web/icon.svg", "/web/sub/nested.css"} {
		if rec := do(t, h, "GET", path); rec.Code != http.StatusOK {
			t.Errorf("GET %s = %d, want 200", path, rec.Code)
		}
	}
	if rec := do(t, h, "HEAD", "/web/sluice.css"); rec.Code != http.StatusOK {
		t.Errorf("HEAD /web/sluice.css = %d, want 200", rec.Code)
	}
	for _, path := range []string{
		"/web/",
		"/web/sub",
		"/web/sub/",
		"/web/genicons.go",
		"/web/.hidden.css",
		"/web/app.wasm.gz",
		"/web/../secret.txt",
		"/web/..%2fsecret.txt",
		"/web/%2e%2e/secret.txt",
		"/secret.txt",
		"/go.mod",
		"/robots.txt",
		"/app.wasm",
		"/embed/",
		"/nope",
	} {
		rec := do(t, h, "GET", path)
		if rec.Code == http.StatusOK || strings.Contains(rec.Body.String(), "outside web/") {
			t.Errorf("GET %s = %d %q, want it refused", path, rec.Code, rec.Body.String())
		}
	}
	if rec := do(t, h, "POST", "/"); rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST / = %d, want 405", rec.Code)
	}
}

func TestAcceptsGzip(t *testing.T) {
	for header, want := range map[string]bool{
		"":                        false,
		"gzip":                    true,
		"GZIP":                    true,
		"gzip, deflate, br, zstd": true,
		"br;q=1.0, gzip;q=0.5":    true,
		"gzip;q=0":                false,
		"gzip; q=0.0":             false,
		"*":                       true,
		"identity":                false,
		"deflate, br":             false,
	} {
		if got := acceptsGzip(header); got != want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", header, got, want)
		}
	}
}

func TestExportStatic(t *testing.T) {
	_, root, tc := newTestSite(t)
	dir := t.TempDir()
	if err := exportStatic(root, dir, tc); err != nil {
		t.Fatalf("exportStatic: %v", err)
	}
	for _, name := range []string{"index.html", "embed.html", "embed/index.html", "app.js", "app-worker.js", "wasm_exec.js",
		"manifest.webmanifest", "web/app.wasm", "web/sluice.css", "web/icon.svg", "web/sub/nested.css"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s not exported: %v", name, err)
		}
	}
	for _, name := range []string{"web/genicons.go", "web/.hidden.css", "web/app.wasm.gz"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s exported, want it left out", name)
		}
	}
	if got := string(readFile(t, filepath.Join(dir, "wasm_exec.js"))); got != "// the toolchain's wasm_exec.js\n" {
		t.Errorf("exported wasm_exec.js = %q, want the toolchain's", got)
	}
	if !bytes.Contains(readFile(t, filepath.Join(dir, "app.js")), []byte(embedGuard)) {
		t.Errorf("exported app.js lacks the embed guard")
	}
}
