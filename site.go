package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/wasm/ui"
)

// wasmLengthHeader carries app.wasm's decoded size, so that go-app's loading
// bar is right when the body is sent gzip-encoded.
const wasmLengthHeader = "X-Wasm-Content-Length"

// webTypes lists the files the server sends from web/, by extension, with
// their content types. Anything else in web/ is not served.
var webTypes = map[string]string{
	".css":   "text/css; charset=utf-8",
	".js":    "text/javascript; charset=utf-8",
	".json":  "application/json",
	".png":   "image/png",
	".svg":   "image/svg+xml",
	".txt":   "text/plain; charset=utf-8",
	".wasm":  "application/wasm",
	".woff2": "font/woff2",
}

// site is the playground's HTTP handler: go-app's pages, plus the files that
// go-app would otherwise serve wrong (wasm_exec.js from another Go release,
// app.wasm uncompressed, web/ with directory listings).
type site struct {
	web      *os.Root // web/, opened once; Open refuses paths that leave it
	app      *app.Handler
	appJS    []byte // go-app's app.js, without a service worker for /embed
	wasmExec []byte // the toolchain's own wasm_exec.js
}

// newSite prepares the handler for the module at root. web/app.wasm must
// exist.
func newSite(root string, tc toolchain) (*site, error) {
	web, err := os.OpenRoot(filepath.Join(root, "web"))
	if err != nil {
		return nil, err
	}
	s := &site{web: web}
	if err := s.init(tc); err != nil {
		web.Close()
		return nil, err
	}
	return s, nil
}

func (s *site) init(tc toolchain) error {
	var err error
	if s.wasmExec, err = os.ReadFile(tc.wasmExecJS()); err != nil {
		return err
	}
	version, err := webVersion(s.web.FS())
	if err != nil {
		return err
	}
	s.app = appHandler(version)
	if s.appJS, err = renderAppJS(s.app); err != nil {
		return err
	}
	return nil
}

// Close releases web/.
func (s *site) Close() error { return s.web.Close() }

// Handler routes every request the playground makes and answers 404 to
// everything else.
func (s *site) Handler() http.Handler {
	mux := http.NewServeMux()
	for _, p := range ui.Paths {
		if p == "/" {
			p = "/{$}"
		}
		mux.Handle("GET "+p, zoomable(s.app))
	}
	for _, p := range []string{"/app.css", "/app-worker.js", "/manifest.webmanifest"} {
		mux.Handle("GET "+p, s.app)
	}
	mux.HandleFunc("GET /app.js", func(w http.ResponseWriter, r *http.Request) {
		serveBytes(w, r, s.appJS, "text/javascript; charset=utf-8")
	})
	mux.HandleFunc("GET /wasm_exec.js", func(w http.ResponseWriter, r *http.Request) {
		serveBytes(w, r, s.wasmExec, "text/javascript; charset=utf-8")
	})
	mux.HandleFunc("GET /web/{file...}", s.serveWeb)
	return secure(mux)
}

// appHandler configures go-app: local icons and styles only, a fixed
// version, and a network-first service worker.
func appHandler(version string) *app.Handler {
	return &app.Handler{
		Name:        "Sluice playground",
		ShortName:   "Sluice",
		Title:       "Sluice playground",
		Description: "Async coordination primitives for Go, running live in the browser.",
		Lang:        "en",
		Icon: app.Icon{
			Default: "/web/icon-192.png",
			Large:   "/web/icon-512.png",
			SVG:     "/web/icon.svg",
		},
		BackgroundColor:         "#f4f6fa",
		ThemeColor:              "#2563eb",
		LoadingLabel:            "Loading Sluice {progress}%",
		Styles:                  []string{"/web/sluice.css"},
		Scripts:                 []string{"/web/canvas.js"},
		Resources:               resources{},
		Version:                 version,
		WasmContentLengthHeader: wasmLengthHeader,
		ServiceWorkerTemplate:   serviceWorkerJS,
	}
}

// resources tells go-app where its files are. It is not an http.Handler, so
// go-app never serves web/ itself: its file server would list directories
// and serve any file below the working directory.
type resources struct{}

func (resources) Package() string { return "" }
func (resources) Static() string  { return "" }
func (resources) AppWASM() string { return "/web/app.wasm" }

// webVersion hashes the files served from web/, so that the version changes
// whenever app.wasm or an asset does: it names the service worker's cache
// and go-app's ETag.
func webVersion(web fs.FS) (string, error) {
	h := sha256.New()
	err := fs.WalkDir(web, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || webTypes[path.Ext(p)] == "" {
			return nil
		}
		b, err := fs.ReadFile(web, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %d\n", p, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// embedGuard replaces go-app's call that registers the service worker: the
// embed lives inside other sites' pages and must not install one.
const embedGuard = `if (!/\/embed(\.html)?\/?$/.test(location.pathname)) {
  goappInitServiceWorker();
}
`

// renderAppJS returns go-app's app.js with embedGuard in place.
func renderAppJS(h *app.Handler) ([]byte, error) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/app.js", nil))
	if rec.Code != http.StatusOK {
		return nil, fmt.Errorf("go-app served /app.js with status %d", rec.Code)
	}
	return patchAppJS(rec.Body.Bytes())
}

func patchAppJS(js []byte) ([]byte, error) {
	const call = "goappInitServiceWorker();\n"
	if n := bytes.Count(js, []byte(call)); n != 1 {
		return nil, fmt.Errorf("go-app's app.js calls goappInitServiceWorker %d times, want 1: check the embed guard against this go-app version", n)
	}
	return bytes.Replace(js, []byte(call), []byte(embedGuard), 1), nil
}

// serviceWorkerJS is go-app's app worker made network-first: a reachable
// server always wins, so a rebuilt app.wasm or stylesheet is used on the
// next load; the cache, filled on install, only answers offline.
const serviceWorkerJS = `const cacheName = "sluice-{{.Version}}";
const resourcesToCache = {{.ResourcesToCache}};

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(cacheName)
      .then((cache) => cache.addAll(resourcesToCache))
      .then(() => self.skipWaiting())
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) =>
        Promise.all(keys.filter((k) => k !== cacheName).map((k) => caches.delete(k)))
      )
      .then(() => self.clients.claim())
  );
});

self.addEventListener("fetch", (event) => {
  if (event.request.method !== "GET") {
    return;
  }
  event.respondWith(
    fetch(event.request).catch(() =>
      caches
        .match(event.request, { ignoreSearch: true })
        .then((response) => response || Response.error())
    )
  );
});
`

// serveWeb serves a file from web/: only regular files with a known
// extension, no directory listings, no dot files.
func (s *site) serveWeb(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	ctype, ok := webTypes[path.Ext(name)]
	if !ok || !fs.ValidPath(name) || strings.HasPrefix(name, ".") || strings.Contains(name, "/.") {
		http.NotFound(w, r)
		return
	}
	if name == "app.wasm" {
		s.serveWasm(w, r)
		return
	}
	f, st, err := s.open(name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, "", st.ModTime(), f)
}

func (s *site) open(name string) (*os.File, fs.FileInfo, error) {
	f, err := s.web.Open(name)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fs.ErrNotExist
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// serveWasm serves app.wasm, from app.wasm.gz when the client accepts gzip
// and the compressed copy is at least as new. Its size before compression
// goes in wasmLengthHeader.
func (s *site) serveWasm(w http.ResponseWriter, r *http.Request) {
	raw, rawSt, err := s.open("app.wasm")
	if err != nil {
		http.Error(w, "web/app.wasm is missing: run make wasm", http.StatusNotFound)
		return
	}
	defer raw.Close()
	h := w.Header()
	h.Set("Content-Type", "application/wasm")
	h.Set("Cache-Control", "no-cache")
	h.Add("Vary", "Accept-Encoding")
	h.Set(wasmLengthHeader, strconv.FormatInt(rawSt.Size(), 10))
	tag := fmt.Sprintf("%x-%x", rawSt.ModTime().UnixNano(), rawSt.Size())
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		if gz, gzSt, err := s.open("app.wasm.gz"); err == nil {
			defer gz.Close()
			if !gzSt.ModTime().Before(rawSt.ModTime()) {
				h.Set("Content-Encoding", "gzip")
				h.Set("ETag", `"`+tag+`-gz"`)
				http.ServeContent(w, r, "", time.Time{}, gz)
				return
			}
		}
	}
	h.Set("ETag", `"`+tag+`"`)
	http.ServeContent(w, r, "", time.Time{}, raw)
}

// acceptsGzip reports whether an Accept-Encoding header allows gzip.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") && strings.TrimSpace(coding) != "*" {
			continue
		}
		q := 1.0
		for _, p := range strings.Split(params, ";") {
			if k, v, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(k, "q") {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					q = f
				}
			}
		}
		return q > 0
	}
	return false
}

// serveBytes serves an in-memory file with a content-derived ETag.
func serveBytes(w http.ResponseWriter, r *http.Request, b []byte, ctype string) {
	sum := sha256.Sum256(b)
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:8])+`"`)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
}

// contentSecurityPolicy allows what go-app and the wasm need and nothing
// else: scripts, styles, images, fonts, fetches (app.wasm), the manifest and
// the service worker from this origin only, and WebAssembly compilation
// ('wasm-unsafe-eval'; no JavaScript eval). Styles come from stylesheets
// only: components use classes, not style attributes. frameAncestors says
// who may frame the page.
func contentSecurityPolicy(frameAncestors string) string {
	return strings.Join([]string{
		"default-src 'self'",
		"script-src 'self' 'wasm-unsafe-eval'",
		"style-src 'self'",
		"img-src 'self'",
		"font-src 'self'",
		"connect-src 'self'",
		"manifest-src 'self'",
		"worker-src 'self'",
		"object-src 'none'",
		"base-uri 'none'",
		"form-action 'none'",
		"frame-ancestors " + frameAncestors,
	}, "; ")
}

var (
	cspPage  = contentSecurityPolicy("'none'")
	cspEmbed = contentSecurityPolicy("*")
)

// secure adds the security headers: only /embed may be framed, by any site.
func secure(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		if r.URL.Path == ui.PathEmbed {
			h.Set("Content-Security-Policy", cspEmbed)
		} else {
			h.Set("Content-Security-Policy", cspPage)
			h.Set("X-Frame-Options", "DENY")
		}
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		next.ServeHTTP(w, r)
	})
}

// copyWebFiles copies the files serveWeb would serve into dir, for the static
// export.
func (s *site) copyWebFiles(dir string) error {
	return fs.WalkDir(s.web.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return os.MkdirAll(filepath.Join(dir, filepath.FromSlash(p)), 0o755)
		}
		if webTypes[path.Ext(p)] == "" || strings.HasPrefix(d.Name(), ".") || !d.Type().IsRegular() {
			return nil
		}
		src, err := s.web.Open(p)
		if err != nil {
			return err
		}
		defer src.Close()
		dst, err := os.Create(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			return err
		}
		if _, err := io.Copy(dst, src); err != nil {
			dst.Close()
			return err
		}
		return dst.Close()
	})
}
