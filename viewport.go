package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
)

// go-app v9 writes a viewport meta tag that forbids zooming
// (maximum-scale=1, user-scalable=0), which keeps people who need larger
// text from zooming in on a phone. The pages are served, and exported,
// with the tag rewritten to allow it.
var (
	lockedViewport = []byte(`width=device-width, initial-scale=1, maximum-scale=1, user-scalable=0, viewport-fit=cover`)
	zoomViewport   = []byte(`width=device-width, initial-scale=1, viewport-fit=cover`)
)

// zoomable serves next's page with the viewport tag rewritten.
func zoomable(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		body := bytes.Replace(rec.Body.Bytes(), lockedViewport, zoomViewport, 1)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		if w.Header().Get("Content-Length") != "" {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
		w.WriteHeader(rec.Code)
		w.Write(body)
	})
}

// zoomableFile rewrites the viewport tag of an exported page.
func zoomableFile(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return os.WriteFile(path, bytes.Replace(b, lockedViewport, zoomViewport, 1), 0o644)
}
