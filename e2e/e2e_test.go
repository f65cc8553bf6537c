//go:build e2e

// Package e2e drives the real playground server with real Chromium: it
// builds the server from the module root, starts it on a free loopback port
// (the server builds web/app.wasm when it is stale), and loads its pages in
// headless Chromium through the DevTools protocol.
//
// Run it with go test -tags e2e ./e2e/. It needs Chromium: Debian's
// /usr/bin/chromium, or the binary named by $CHROMIUM. Screenshots go to
// e2e/artifacts/.
package e2e

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// base is the URL of the server under test, such as http://127.0.0.1:41234.
var base string

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	stop, err := startServer()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	code := m.Run()
	if err := stop(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: server:", err)
		code = 1
	}
	return code
}

// startServer builds the server from the module root and starts it on a
// free port, in the module root, the way make run does. stop sends it
// SIGTERM and reports whether it shut down cleanly.
func startServer() (stop func() error, err error) {
	root, err := filepath.Abs("..")
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "sluice-e2e-")
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(dir, "sluice")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = root
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("building the server: %v", err)
	}

	srv := exec.Command(bin, "-addr", "127.0.0.1:0")
	srv.Dir = root
	srv.Stderr = os.Stderr
	out, err := srv.StdoutPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := srv.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	exited := make(chan error, 1) // srv.Wait's result, read once by stop
	urls := make(chan string, 1)  // the first URL the server prints
	go func() {
		url := regexp.MustCompile(`http://\S+`)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			fmt.Fprintln(os.Stderr, "server:", sc.Text())
			if u := url.FindString(sc.Text()); u != "" {
				select {
				case urls <- u:
				default:
				}
			}
		}
		exited <- srv.Wait()
	}()
	stop = func() error {
		defer os.RemoveAll(dir)
		srv.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				return fmt.Errorf("exited with %v after SIGTERM, want a clean exit", err)
			}
			return nil
		case <-time.After(15 * time.Second):
			srv.Process.Kill()
			<-exited
			return errors.New("did not shut down within 15s of SIGTERM")
		}
	}
	// Building web/app.wasm from scratch takes a while on a small machine.
	select {
	case base = <-urls:
		return stop, nil
	case err := <-exited:
		os.RemoveAll(dir)
		return nil, fmt.Errorf("server exited before serving: %v", err)
	case <-time.After(5 * time.Minute):
		stop()
		return nil, errors.New("server printed no URL within 5 minutes")
	}
}

// browser is one headless Chromium with a fresh profile and one tab, and
// what the tab reported: every request it made and every error it logged.
type browser struct {
	ctx context.Context

	mu       sync.Mutex
	requests []string // URLs, in the order the tab sent them
	errors   []string // console errors, exceptions, and browser log errors (CSP violations among them)
	gzipWasm bool     // whether app.wasm arrived gzip-encoded
}

// newBrowser starts Chromium for one test; it is closed when the test ends.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	exe := os.Getenv("CHROMIUM")
	if exe == "" {
		exe = "/usr/bin/chromium"
	}
	if _, err := os.Stat(exe); err != nil {
		t.Fatalf("Chromium not found at %s (install the Debian package chromium, or set CHROMIUM): %v", exe, err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1200, 900),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	tabCtx, cancelTab := chromedp.NewContext(allocCtx)
	t.Cleanup(func() {
		// Close Chromium gracefully and wait for it, so that it has stopped
		// writing its profile before t.TempDir is removed.
		if err := chromedp.Cancel(tabCtx); err != nil {
			t.Logf("closing Chromium: %v", err)
		}
		cancelTab()
		cancelAlloc()
	})

	b := &browser{}
	chromedp.ListenTarget(tabCtx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			b.requests = append(b.requests, ev.Request.URL)
		case *network.EventResponseReceived:
			if strings.HasSuffix(ev.Response.URL, "/web/app.wasm") {
				for k, v := range ev.Response.Headers {
					if strings.EqualFold(k, "Content-Encoding") && v == "gzip" {
						b.gzipWasm = true
					}
				}
			}
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.APITypeError {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				b.errors = append(b.errors, "console.error: "+strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			b.errors = append(b.errors, "exception: "+msg)
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.LevelError {
				b.errors = append(b.errors, fmt.Sprintf("log (%s): %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
			}
		}
	})
	// The first Run starts Chromium, which lives as long as tabCtx: it must
	// not be a context that ends before the cleanup above.
	if err := chromedp.Run(tabCtx, network.Enable(), log.Enable(), runtime.Enable()); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	ctx, cancel := context.WithTimeout(tabCtx, 3*time.Minute)
	t.Cleanup(cancel)
	b.ctx = ctx
	return b
}

// run runs actions in the tab, failing the test, with the errors the page
// logged, if they fail or take longer than waitLong.
func (b *browser) run(t *testing.T, what string, actions ...chromedp.Action) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, waitLong)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		b.mu.Lock()
		defer b.mu.Unlock()
		t.Fatalf("%s: %v\npage errors:\n%s", what, err, strings.Join(b.errors, "\n"))
	}
}

// checkClean fails the test if the tab sent a request anywhere but the
// server under test or logged an error.
func (b *browser) checkClean(t *testing.T) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.requests) == 0 {
		t.Errorf("no requests recorded; the network listener is not working")
	}
	for _, u := range b.requests {
		if !strings.HasPrefix(u, base+"/") {
			t.Errorf("request to %s, want every request to go to %s", u, base)
		}
	}
	b.checkErrorsLocked(t)
}

// checkErrors fails the test if the tab logged an error.
func (b *browser) checkErrors(t *testing.T) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.checkErrorsLocked(t)
}

func (b *browser) checkErrorsLocked(t *testing.T) {
	t.Helper()
	for _, e := range b.errors {
		t.Errorf("page error: %s", e)
	}
}

// screenshot writes the page to e2e/artifacts/name.
func (b *browser) screenshot(t *testing.T, name string) {
	t.Helper()
	var png []byte
	b.run(t, "screenshot", chromedp.FullScreenshot(&png, 100))
	if err := os.MkdirAll("artifacts", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("artifacts", name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

const (
	mounted  = `#demo[data-mounted="true"]`
	waitLong = 60 * time.Second // loading and compiling app.wasm, then a whole run
)

// waitRunDone waits until run number run has finished with every task done.
func waitRunDone(b *browser, t *testing.T, run int) {
	t.Helper()
	var ok bool
	b.run(t, fmt.Sprintf("waiting for run %d to finish", run), chromedp.Poll(fmt.Sprintf(`(() => {
		const demo = document.querySelector('#demo');
		return demo && demo.dataset.run === "%d" && demo.dataset.phase === "done";
	})()`, run), &ok, chromedp.WithPollingTimeout(waitLong)))
}

// demoState reads the task states and counters from the page.
type demoState struct {
	States     []string `json:"states"`
	Running    int      `json:"running"`
	MaxRunning int      `json:"maxRunning"`
	Done       int      `json:"done"`
}

func readDemo(b *browser, t *testing.T) demoState {
	t.Helper()
	var s demoState
	b.run(t, "reading the demo", chromedp.Evaluate(`({
		states: [...document.querySelectorAll('#tasks > li')].map(li => li.dataset.state),
		running: Number(document.querySelector('#running').textContent),
		maxRunning: Number(document.querySelector('#max-running').textContent),
		done: Number(document.querySelector('#done').textContent),
	})`, &s))
	return s
}

func checkFinished(t *testing.T, s demoState) {
	t.Helper()
	want := []string{"done", "done", "done", "done", "done", "done"}
	if strings.Join(s.States, ",") != strings.Join(want, ",") {
		t.Errorf("task states = %v, want %v", s.States, want)
	}
	if s.Running != 0 {
		t.Errorf("running = %d, want 0", s.Running)
	}
	if s.Done != 6 {
		t.Errorf("done = %d, want 6", s.Done)
	}
	// Six tasks start together on a semaphore of two: exactly two must run
	// at once, never more.
	if s.MaxRunning != 2 {
		t.Errorf("max running = %d, want 2", s.MaxRunning)
	}
}

// watchRunning makes the page count, after every change to the DOM, the
// tasks shown running, and keep the most it saw in window.sluiceSeen.
const watchRunning = `(() => {
	window.sluiceSeen = {max: 0};
	new MutationObserver(() => {
		const n = document.querySelectorAll('#tasks > li[data-state="running"]').length;
		sluiceSeen.max = Math.max(sluiceSeen.max, n);
	}).observe(document.body, {subtree: true, childList: true, attributes: true});
	return true;
})()`

func TestPlayground(t *testing.T) {
	b := newBrowser(t)
	b.run(t, "loading the playground",
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(mounted),
	)

	// The run started on mount finishes.
	waitRunDone(b, t, 1)
	checkFinished(t, readDemo(b, t))

	// "Run again" starts a second run; the page never shows more than two
	// tasks running at once.
	var ok bool
	b.run(t, "running again",
		chromedp.Evaluate(watchRunning, &ok),
		chromedp.Click("#run-again", chromedp.ByQuery),
	)
	waitRunDone(b, t, 2)
	checkFinished(t, readDemo(b, t))
	var seen struct {
		Max int `json:"max"`
	}
	b.run(t, "reading what the page showed", chromedp.Evaluate(`window.sluiceSeen`, &seen))
	if seen.Max != 2 {
		t.Errorf("most tasks shown running at once = %d, want 2", seen.Max)
	}

	// The service worker installs: every resource it pre-caches exists.
	var state string
	b.run(t, "waiting for the service worker",
		chromedp.Evaluate(`navigator.serviceWorker.ready.then(r => r.active.state)`, &state, awaitPromise))
	if state != "activating" && state != "activated" {
		t.Errorf("service worker state = %q, want activating or activated", state)
	}

	b.screenshot(t, "playground.png")
	b.mu.Lock()
	gz := b.gzipWasm
	b.mu.Unlock()
	if !gz {
		t.Errorf("app.wasm was not sent gzip-encoded")
	}
	b.checkClean(t)
}

func TestEmbed(t *testing.T) {
	b := newBrowser(t)
	// "Run again" twice while the first run is still going: each click
	// cancels the run in progress, and the last run finishes cleanly.
	b.run(t, "loading the embed and restarting it",
		chromedp.Navigate(base+"/embed"),
		chromedp.WaitVisible(mounted),
		chromedp.Click("#run-again", chromedp.ByQuery),
		chromedp.Click("#run-again", chromedp.ByQuery),
	)
	waitRunDone(b, t, 3)
	checkFinished(t, readDemo(b, t))

	var chrome, registrations int
	b.run(t, "inspecting the embed",
		chromedp.Evaluate(`document.querySelectorAll('.site-head, .site-foot, .notes').length`, &chrome),
		chromedp.Evaluate(`navigator.serviceWorker.getRegistrations().then(r => r.length)`, &registrations, awaitPromise),
	)
	if chrome != 0 {
		t.Errorf("the embed shows %d page chrome elements, want 0", chrome)
	}
	if registrations != 0 {
		t.Errorf("the embed registered %d service workers, want 0", registrations)
	}
	b.screenshot(t, "embed.png")
	b.checkClean(t)
}

// TestEmbedInFrame loads /embed in an iframe of a page from another origin:
// the server must let it be framed, and the embed reports its height.
func TestEmbedInFrame(t *testing.T) {
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!DOCTYPE html><title>host</title>
<script>
window.heights = [];
window.addEventListener("message", (e) => {
  if (e.origin !== %q || !e.data || e.data.sluice !== "height") return;
  heights.push(e.data.height);
  document.getElementById("embed").height = e.data.height;
});
</script>
<iframe id="embed" src="%s/embed" width="800" height="200"></iframe>`, base, base)
	}))
	defer host.Close()

	b := newBrowser(t)
	var height int
	b.run(t, "loading /embed in a frame",
		chromedp.Navigate(host.URL),
		chromedp.Poll(`heights.length > 0 && heights[heights.length - 1] > 100 && heights[heights.length - 1]`,
			&height, chromedp.WithPollingTimeout(waitLong)),
	)
	if height <= 100 {
		t.Errorf("reported height = %d, want more than 100", height)
	}
	b.screenshot(t, "embed-in-frame.png")
	b.checkErrors(t)
}

// TestServedFiles checks what the server sends besides pages: the
// toolchain's wasm_exec.js, app.wasm gzip-encoded with its decoded size, and
// nothing outside its own files.
func TestServedFiles(t *testing.T) {
	get := func(path string, hdr map[string]string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultTransport.RoundTrip(req) // no transparent gzip, no redirects
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}

	t.Run("wasm_exec.js is the toolchain's", func(t *testing.T) {
		goroot, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(get("/wasm_exec.js", nil).Body)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("/wasm_exec.js differs from the toolchain's lib/wasm/wasm_exec.js (%d bytes, want %d)", len(got), len(want))
		}
	})

	t.Run("app.wasm gzip", func(t *testing.T) {
		resp := get("/web/app.wasm", map[string]string{"Accept-Encoding": "gzip"})
		if got := resp.Header.Get("Content-Encoding"); got != "gzip" {
			t.Fatalf("Content-Encoding = %q, want gzip", got)
		}
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, zr)
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.Header.Get("X-Wasm-Content-Length"); got != strconv.FormatInt(n, 10) {
			t.Errorf("X-Wasm-Content-Length = %s, want the decoded size %d", got, n)
		}
	})

	for _, path := range []string{"/web/../go.mod", "/web/", "/web/genicons.go", "/go.mod", "/serve.go", "/robots.txt"} {
		t.Run("no "+path, func(t *testing.T) {
			resp := get(path, nil)
			if resp.StatusCode == http.StatusOK {
				t.Errorf("GET %s = 200, want it refused", path)
			}
		})
	}
}

// awaitPromise makes Evaluate wait for the promise the expression returns.
func awaitPromise(p *runtime.EvaluateParams) *runtime.EvaluateParams {
	return p.WithAwaitPromise(true)
}
