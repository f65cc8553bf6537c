//go:build !(js && wasm)

package ui

import (
	"errors"
	"strings"
)

// Outside the browser there is no page: the host functions do nothing, and
// the location is whatever a test sets.

// testLocation is the page location that location reports, for tests.
var testLocation = struct{ path, query, hash string }{path: "/"}

func watchHeight() (stop func(), err error) { return func() {}, nil }

func postToParent(map[string]any) error { return nil }

func listenHost(func(hostMessage)) (stop func(), err error) { return func() {}, nil }

func location() (path, query, hash string) {
	return testLocation.path, testLocation.query, testLocation.hash
}

func origin() string { return "http://localhost" }

func replaceURL(url string) {
	rest, hash, hasHash := strings.Cut(url, "#")
	path, query, hasQuery := strings.Cut(rest, "?")
	testLocation.path, testLocation.query, testLocation.hash = path, "", ""
	if hasQuery {
		testLocation.query = "?" + query
	}
	if hasHash {
		testLocation.hash = "#" + hash
	}
}

func copyText(_ string, done func(error)) { done(errors.New("no clipboard outside the browser")) }

func perfNow() float64 { return 0 }

func perfMark(string) {}

func embedURL(path string) string {
	dir := path[:strings.LastIndexByte(path, '/')+1]
	if strings.HasSuffix(path, ".html") {
		return origin() + dir + "embed.html"
	}
	return origin() + dir + "embed"
}

func focusTimeline() {}

// GuardLink does nothing outside the browser, where go-app reads no URL.
func GuardLink() {}

func revealElement(string, bool) {}
