//go:build e2e

// Package e2e drives the real playground server with real Chromium: it
// builds the server from the module root, starts it on a free loopback port
// (the server builds web/app.wasm when it is stale), and loads its pages in
// headless Chromium through the DevTools protocol.
//
// Run it with go test -tags e2e ./e2e/. It needs Chromium: Debian's
// /usr/bin/chromium, or the binary named by $CHROMIUM. Screenshots go to
// e2e/artifacts/. The perf probe (perf_test.go) runs with the tags e2e and
// perf: make perf.
//
// The tests share one Chromium, each in a tab and browser context of its
// own (newBrowser), and the tests that call t.Parallel run two at a time
// (unless -parallel says otherwise): nothing here may depend on another
// test's page, and what a test waits for is a condition on its own page,
// not a time.
package e2e

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"flag"
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

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"sluice/core/trace"
	"sluice/wasm/sim"
)

// base is the URL of the server under test, such as http://127.0.0.1:41234.
var base string

// serverBin is the server binary under test, and root the module root it
// runs in.
var serverBin, root string

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	// Two tests at a time, whatever the number of cores, unless -parallel
	// says otherwise: the pages take a core each, and a test waits for
	// its page to reach a state, so more at once makes them all slower.
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", "2")
	}
	stop, err := startServer()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	code := m.Run()
	closeChromium()
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
	root, err = filepath.Abs("..")
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "sluice-e2e-")
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(dir, "sluice")
	serverBin = bin
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

// browser is one tab of the tests' Chromium, in a browser context of its
// own (a fresh profile: its own cache, storage and service workers), and
// what the tab reported: every request it made and every error it logged.
type browser struct {
	ctx context.Context

	// browserContext is the tab's browser context, for the Browser
	// domain's commands that take one (downloads).
	browserContext cdp.BrowserContextID

	mu       sync.Mutex
	requests []string // URLs, in the order the tab sent them
	errors   []string // console errors, exceptions, and browser log errors (CSP violations among them)
	gzipWasm bool     // whether app.wasm arrived gzip-encoded
}

// chromium is the one headless Chromium that the tests' tabs run in,
// started by the first newBrowser and closed by TestMain. Starting it
// takes seconds on a small machine; a tab in a new browser context of it,
// a fraction of that, with the same isolation as a fresh profile.
var chromium struct {
	mu     sync.Mutex
	ctx    context.Context // the browser's first tab: its Browser executor runs the commands below
	cancel func()          // closes it, then ends its allocator
	dir    string          // its profile, removed once it is closed
}

// chromiumOptions are the flags the tests' Chromium starts with.
func chromiumOptions(exe string) []chromedp.ExecAllocatorOption {
	return append(chromedp.DefaultExecAllocatorOptions[:len(chromedp.DefaultExecAllocatorOptions):len(chromedp.DefaultExecAllocatorOptions)],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1400, 1000),
	)
}

// sharedChromium returns the context of the tests' Chromium, starting it
// if it is not running (the first time, or after it exited). On a loaded
// machine Chromium now and then exits as it starts, before it listens:
// that start is retried, with a fresh profile, twice at most.
func sharedChromium(t *testing.T) context.Context {
	t.Helper()
	chromium.mu.Lock()
	defer chromium.mu.Unlock()
	if chromium.ctx != nil {
		if chromium.ctx.Err() == nil {
			return chromium.ctx
		}
		t.Logf("Chromium exited (%v): starting it again", context.Cause(chromium.ctx))
		closeChromiumLocked()
	}
	exe := os.Getenv("CHROMIUM")
	if exe == "" {
		exe = "/usr/bin/chromium"
	}
	if _, err := os.Stat(exe); err != nil {
		t.Fatalf("Chromium not found at %s (install the Debian package chromium, or set CHROMIUM): %v", exe, err)
	}
	for attempt := 1; ; attempt++ {
		dir, err := os.MkdirTemp("", "sluice-e2e-chromium-")
		if err != nil {
			t.Fatal(err)
		}
		allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
			append(chromiumOptions(exe), chromedp.UserDataDir(dir))...)
		ctx, cancelBrowser := chromedp.NewContext(allocCtx)
		// The first Run starts Chromium, which lives as long as ctx.
		err = chromedp.Run(ctx)
		if err == nil {
			chromium.ctx, chromium.dir = ctx, dir
			chromium.cancel = func() {
				// Close Chromium gracefully and wait for it, so that it
				// has stopped writing its profile before it is removed.
				cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
				defer cancel()
				if err := chromedp.Cancel(cctx); err != nil && !errors.Is(err, context.Canceled) {
					fmt.Fprintln(os.Stderr, "e2e: closing Chromium:", err)
				}
				cancelBrowser()
				cancelAlloc()
			}
			return ctx
		}
		cancelBrowser()
		cancelAlloc()
		os.RemoveAll(dir)
		if attempt == 3 || !strings.Contains(err.Error(), "failed to start") && !strings.Contains(err.Error(), "websocket url timeout") {
			t.Fatalf("starting Chromium (attempt %d): %v", attempt, err)
		}
		t.Logf("starting Chromium (attempt %d), retrying: %v", attempt, err)
	}
}

// closeChromium closes the tests' Chromium, if it was started, and
// removes its profile.
func closeChromium() {
	chromium.mu.Lock()
	defer chromium.mu.Unlock()
	closeChromiumLocked()
}

func closeChromiumLocked() {
	if chromium.ctx == nil {
		return
	}
	chromium.cancel()
	os.RemoveAll(chromium.dir)
	chromium.ctx, chromium.cancel, chromium.dir = nil, nil, ""
}

// newBrowser opens a tab for one test, in a new browser context of the
// tests' Chromium (nothing cached or stored from another test), in a
// window of its own, 1400×1000, in front; the tab and its context are
// closed when the test ends.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	b := &browser{}
	for attempt := 1; ; attempt++ {
		ctx, err := b.openTab(t, sharedChromium(t))
		if err == nil {
			b.ctx = ctx
			return b
		}
		// A browser that went away between the check and the tab is
		// started again, once.
		if attempt == 2 || sharedChromiumAlive() {
			t.Fatalf("opening a tab in Chromium: %v", err)
		}
		t.Logf("opening a tab in Chromium (attempt %d), retrying: %v", attempt, err)
	}
}

func sharedChromiumAlive() bool {
	chromium.mu.Lock()
	defer chromium.mu.Unlock()
	return chromium.ctx != nil && chromium.ctx.Err() == nil
}

// openTab opens b's tab in a new browser context of the Chromium of
// browserCtx, and registers its closing as a cleanup of t.
func (b *browser) openTab(t *testing.T, browserCtx context.Context) (context.Context, error) {
	t.Helper()
	exec := cdp.WithExecutor(browserCtx, chromedp.FromContext(browserCtx).Browser)
	bc, err := target.CreateBrowserContext().Do(exec)
	if err != nil {
		return nil, fmt.Errorf("creating a browser context: %v", err)
	}
	dispose := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := target.DisposeBrowserContext(bc).Do(cdp.WithExecutor(ctx, chromedp.FromContext(browserCtx).Browser)); err != nil && browserCtx.Err() == nil {
			t.Logf("closing the tab's browser context: %v", err)
		}
	}
	id, err := target.CreateTarget("about:blank").WithBrowserContextID(bc).
		WithNewWindow(true).WithWidth(1400).WithHeight(1000).Do(exec)
	if err != nil {
		dispose()
		return nil, fmt.Errorf("opening a tab: %v", err)
	}
	tabCtx, cancelTab := chromedp.NewContext(browserCtx, chromedp.WithTargetID(id))
	b.browserContext = bc
	b.listen(tabCtx)
	// Two tests' windows are open at once (the tests run in parallel):
	// each page is told it has the focus, as a window in front has.
	if err := chromedp.Run(tabCtx, page.BringToFront(), emulation.SetFocusEmulationEnabled(true),
		network.Enable(), log.Enable(), runtime.Enable()); err != nil {
		cancelTab()
		dispose()
		return nil, err
	}
	ctx, cancel := context.WithTimeout(tabCtx, 3*time.Minute)
	t.Cleanup(func() {
		cancel()
		// Closing the tab (chromedp closes the target it attached to)
		// and its context ends what the page was doing.
		cancelTab()
		dispose()
	})
	return ctx, nil
}

// listen records, for checkClean and the failure messages, what the tab
// of ctx requests and the errors it logs.
func (b *browser) listen(tabCtx context.Context) {
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
}

// run runs actions in the tab, failing the test, with the errors the page
// logged, if they fail or take longer than waitLong.
func (b *browser) run(t *testing.T, what string, actions ...chromedp.Action) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, waitLong)
	defer cancel()
	if os.Getenv("E2E_STEPS") != "" {
		t0 := time.Now()
		defer func() { t.Logf("step %q: %v", what, time.Since(t0).Round(time.Millisecond)) }()
	}
	if err := chromedp.Run(ctx, b.inContext(actions)...); err != nil {
		b.mu.Lock()
		defer b.mu.Unlock()
		t.Fatalf("%s: %v\npage errors:\n%s", what, err, strings.Join(b.errors, "\n"))
	}
}

// inContext returns actions with the Browser domain's commands that take
// a browser context, and name none, aimed at the tab's: without one they
// would change the browser's default context, which no tab uses.
func (b *browser) inContext(actions []chromedp.Action) []chromedp.Action {
	out := make([]chromedp.Action, len(actions))
	for i, a := range actions {
		switch p := a.(type) {
		case *cdpbrowser.SetDownloadBehaviorParams:
			if p.BrowserContextID == "" {
				a = p.WithBrowserContextID(b.browserContext)
			}
		case *cdpbrowser.SetPermissionParams:
			if p.BrowserContextID == "" {
				a = p.WithBrowserContextID(b.browserContext)
			}
		case *cdpbrowser.ResetPermissionsParams:
			if p.BrowserContextID == "" {
				a = p.WithBrowserContextID(b.browserContext)
			}
		}
		out[i] = a
	}
	return out
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
	var ok bool
	b.run(t, "screenshot",
		chromedp.Evaluate(`window.scrollTo(0, 0), true`, &ok),
		chromedp.FullScreenshot(&png, 100))
	if err := os.MkdirAll("artifacts", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("artifacts", name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

const (
	mounted  = `#playground[data-mounted="true"]`
	waitLong = 60 * time.Second // loading and compiling app.wasm, then a whole run
)

// stats is what #stats says about the run, and the page around it.
type stats struct {
	Preset     string `json:"preset"`
	Primitive  string `json:"primitive"`
	Phase      string `json:"phase"`
	Finished   bool   `json:"finished"`
	Tasks      int    `json:"tasks"`
	Scheduled  int    `json:"scheduled"`
	Waiting    int    `json:"waiting"`
	Running    int    `json:"running"`
	Succeeded  int    `json:"succeeded"`
	Failed     int    `json:"failed"`
	Canceled   int    `json:"canceled"`
	Panicked   int    `json:"panicked"`
	Refused    int    `json:"refused"`
	Withdrawn  int    `json:"withdrawn"`
	MaxRunning int    `json:"maxRunning"`
	MaxTokens  int    `json:"maxTokens"`
	MaxLimit   int    `json:"maxLimit"`
	TraceDone  int    `json:"traceDone"`
	TraceFail  int    `json:"traceFail"`
	TraceMax   int    `json:"traceMax"`
	Link       string `json:"link"`
	Done       int    `json:"done"` // the "done" counter as shown
	Message    string `json:"message"`
	Kind       string `json:"kind"`
}

const readStats = `(() => {
	const s = document.querySelector('#stats').dataset;
	const pg = document.querySelector('#playground').dataset;
	const n = (k) => Number(s[k]);
	const msg = document.querySelector('#message');
	return {
		preset: pg.preset, primitive: pg.primitive, phase: pg.phase,
		finished: s.finished === "true",
		tasks: n('tasks'), scheduled: n('scheduled'), waiting: n('waiting'), running: n('running'),
		succeeded: n('succeeded'), failed: n('failed'), canceled: n('canceled'), panicked: n('panicked'),
		refused: n('refused'), withdrawn: n('withdrawn'),
		maxRunning: n('maxRunning'), maxTokens: n('maxTokens'), maxLimit: n('maxLimit'),
		traceDone: n('traceDone'), traceFail: n('traceFail'), traceMax: n('traceMax'),
		link: s.link,
		done: Number(document.querySelector('#c-done').dataset.value),
		message: msg ? msg.textContent : "", kind: msg ? msg.dataset.kind : "",
	};
})()`

func (b *browser) stats(t *testing.T) stats {
	t.Helper()
	var s stats
	b.run(t, "reading the counters", chromedp.Evaluate(readStats, &s))
	return s
}

// setSpeed moves the speed slider to its end, 10×.
const setSpeed = `(() => {
	const el = document.querySelector('#speed');
	el.value = "100";
	el.dispatchEvent(new Event('input', {bubbles: true}));
	return true;
})()`

// waitFinished waits until the page shows preset's run finished with
// tasks tasks.
func (b *browser) waitFinished(t *testing.T, preset string, tasks int) stats {
	t.Helper()
	var ok bool
	b.run(t, "waiting for "+preset+" to finish", chromedp.Poll(fmt.Sprintf(`(() => {
		const s = document.querySelector('#stats').dataset;
		const pg = document.querySelector('#playground').dataset;
		return pg.preset === %q && pg.phase === "finished" && s.finished === "true" && Number(s.tasks) === %d;
	})()`, preset, tasks), &ok, chromedp.WithPollingTimeout(waitLong)))
	return b.stats(t)
}

func totalTasks(sc sim.Scenario) int {
	n := 0
	for _, b := range sc.AllBursts() {
		n += b.Count
	}
	return n
}

// checkRun checks a finished run's counters against what was submitted.
func checkRun(t *testing.T, s stats, sc sim.Scenario) {
	t.Helper()
	tasks := totalTasks(sc)
	if s.Running != 0 || s.Waiting != 0 || s.Scheduled != 0 {
		t.Errorf("running, waiting, scheduled = %d, %d, %d at the end, want 0", s.Running, s.Waiting, s.Scheduled)
	}
	if ended := s.Succeeded + s.Failed + s.Canceled + s.Panicked + s.Refused + s.Withdrawn; ended != tasks {
		t.Errorf("succeeded+failed+canceled+panicked+refused+withdrawn = %d, want the %d tasks submitted", ended, tasks)
	}
	if s.Done != s.Succeeded {
		t.Errorf("done counter shows %d, want %d", s.Done, s.Succeeded)
	}
	if s.MaxRunning < 1 {
		t.Errorf("max in flight = %d: nothing ran", s.MaxRunning)
	}
	if s.MaxLimit > 0 && s.MaxRunning > s.MaxLimit {
		t.Errorf("max running = %d, over the limit %d", s.MaxRunning, s.MaxLimit)
	}
	if sc.Primitive == sim.Semaphore && s.MaxTokens > s.MaxLimit {
		t.Errorf("max tokens = %d, over the limit %d", s.MaxTokens, s.MaxLimit)
	}
	if s.TraceDone != s.Succeeded || s.TraceFail != s.Failed || s.TraceMax != s.MaxRunning {
		t.Errorf("the recorder counted %d succeeded, %d failed, %d max running; the runner %d, %d, %d",
			s.TraceDone, s.TraceFail, s.TraceMax, s.Succeeded, s.Failed, s.MaxRunning)
	}
}

func TestPlayground(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	b.run(t, "loading the playground",
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(mounted),
		chromedp.WaitVisible(`#timeline[data-interactive="true"]`),
	)
	// A running scenario, as a person first sees it.
	var ok bool
	b.run(t, "letting the first run get going", chromedp.Poll(
		`Number(document.querySelector('#stats').dataset.running) > 0 && Number(document.querySelector('#stats').dataset.nowMs) > 1500`,
		&ok, chromedp.WithPollingTimeout(waitLong)))
	b.screenshot(t, "playground.png")

	// Clicking a task's bar selects it and opens its details; only the
	// sheet's Cancel button cancels it.
	x, y, name := b.pausedHit(t)
	before := b.stats(t)
	b.run(t, "clicking "+name,
		chromedp.MouseClickXY(x, y),
		chromedp.Poll(fmt.Sprintf(`(() => { const s = document.querySelector('#details-sheet');
			return s && !s.hidden && s.dataset.task === %q && document.querySelector('#timeline').dataset.selected === %q; })()`, name, name), &ok,
			chromedp.WithPollingTimeout(waitLong)),
	)
	if after := b.stats(t); after.Canceled != before.Canceled {
		t.Errorf("a click canceled a task at once (canceled %d -> %d): it must only open the details", before.Canceled, after.Canceled)
	}
	b.run(t, "canceling "+name+" from its details",
		chromedp.Click("#sheet-cancel", chromedp.ByQuery),
		chromedp.Poll(fmt.Sprintf(`document.querySelector('#message').textContent.includes(%q)`, name+" was canceled"), &ok,
			chromedp.WithPollingTimeout(waitLong)),
		chromedp.Click("#sheet-close", chromedp.ByQuery),
	)

	// Every preset runs to its end, at 10×, with counters that add up.
	for _, ps := range sim.Presets() {
		b.run(t, "choosing "+ps.ID,
			chromedp.Click("#preset-"+ps.ID, chromedp.ByQuery),
			chromedp.Poll(fmt.Sprintf(`document.querySelector('#playground').dataset.preset === %q`, ps.ID), &ok,
				chromedp.WithPollingTimeout(waitLong)),
			chromedp.Evaluate(setSpeed, &ok),
		)
		s := b.waitFinished(t, ps.ID, totalTasks(ps.Scenario))
		b.screenshot(t, "preset-"+ps.ID+".png")
		if s.Primitive != ps.Scenario.Primitive {
			t.Errorf("%s: data-primitive = %q, want %q", ps.ID, s.Primitive, ps.Scenario.Primitive)
		}
		checkRun(t, s, ps.Scenario)
	}

	// The service worker installs: every resource it pre-caches exists.
	var state string
	b.run(t, "waiting for the service worker",
		chromedp.Evaluate(`navigator.serviceWorker.ready.then(r => r.active.state)`, &state, awaitPromise))
	if state != "activating" && state != "activated" {
		t.Errorf("service worker state = %q, want activating or activated", state)
	}
	b.mu.Lock()
	gz := b.gzipWasm
	b.mu.Unlock()
	if !gz {
		t.Errorf("app.wasm was not sent gzip-encoded")
	}
	b.checkClean(t)
}

// TestLink changes the setup and adds work, copies the link, and opens it
// again: the same scenario comes back, and runs the same way.
func TestLink(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	var ok bool
	b.run(t, "setting up a scenario",
		openPreset("keyed-devices"),
		chromedp.SetValue("#idle", "500", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('#idle').dispatchEvent(new Event('change', {bubbles: true}))`, &ok),
		chromedp.Poll(`document.querySelector('#playground').dataset.preset === "" && document.querySelector('#idle').value === "500"`, &ok, chromedp.WithPollingTimeout(waitLong)),
		chromedp.SetValue("#burst-count", "5", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('#burst-count').dispatchEvent(new Event('change', {bubbles: true}))`, &ok),
		chromedp.Click("#add-burst", chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#message').textContent.includes("Added 5 tasks")`, &ok, chromedp.WithPollingTimeout(waitLong)),
		chromedp.Evaluate(setSpeed, &ok),
	)
	var link string
	b.run(t, "waiting for the run to finish",
		chromedp.Poll(`document.querySelector('#stats').dataset.finished === "true"`, &ok, chromedp.WithPollingTimeout(waitLong)))
	b.run(t, "copying the link",
		chromedp.Click("#copy-link", chromedp.ByQuery),
		chromedp.Poll(`(() => {
			const el = document.querySelector('#share-link');
			return el && el.value.includes(document.querySelector('#stats').dataset.link) && el.value;
		})()`,
			&link, chromedp.WithPollingTimeout(waitLong)),
	)
	first := b.stats(t)
	hash := link[strings.Index(link, "#s=")+3:]
	sc, err := sim.Decode(hash)
	if err != nil {
		t.Fatalf("the copied link %q does not decode: %v", link, err)
	}
	if sc.Primitive != sim.Keyed || sc.IdleMS != 500 || sc.Speed != 10 {
		t.Errorf("the link holds %+v, want the keyed preset with a 500 ms idle timeout at 10×", sc)
	}
	if all := sc.AllBursts(); len(all) == 0 || all[len(all)-1].Count != 5 {
		t.Errorf("the link's bursts are %+v, want the last to be the 5 tasks added", all)
	}
	if !strings.HasPrefix(link, base+"/?v=") {
		t.Errorf("link %q does not carry ?v=", link)
	}

	// Open it again, as a reload or a person given the link would.
	b.run(t, "opening the link",
		chromedp.Navigate("about:blank"),
		chromedp.Navigate(link),
		chromedp.WaitVisible(mounted),
	)
	again := b.waitFinished(t, "", totalTasks(sc))
	if again.Link != first.Link {
		t.Errorf("the reopened page holds scenario %q, want %q", again.Link, first.Link)
	}
	var idle string
	b.run(t, "reading the setup", chromedp.Value("#idle", &idle, chromedp.ByQuery))
	if idle != "500" {
		t.Errorf("idle timeout field = %q, want 500", idle)
	}
	checkRun(t, again, sc)
	b.checkClean(t)
}

// TestTrace downloads a run's trace, loads it back to replay it, and loads
// a file that is not a trace.
func TestTrace(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	dir := t.TempDir()
	var ok bool
	ps, _ := sim.PresetByID("consumers")
	b.run(t, "running a preset",
		cdpbrowser.SetDownloadBehavior(cdpbrowser.SetDownloadBehaviorBehaviorAllow).WithDownloadPath(dir),
		openPreset(ps.ID),
		chromedp.Evaluate(setSpeed, &ok),
	)
	live := b.waitFinished(t, ps.ID, totalTasks(ps.Scenario))
	b.run(t, "downloading the trace",
		chromedp.Click("#download-trace", chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#message').textContent.includes("Saved")`, &ok, chromedp.WithPollingTimeout(waitLong)),
	)
	file := waitFile(t, filepath.Join(dir, "sluice-consume-*.json"))
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := trace.ReadJSON(f)
	f.Close()
	if err != nil {
		t.Fatalf("the downloaded trace does not read back: %v", err)
	}
	if st := rec.Snapshot(time.Time{}).Stats; int(st.Succeeded) != live.Succeeded || int(st.Failed) != live.Failed {
		t.Errorf("the downloaded trace holds %d succeeded and %d failed, the run %d and %d", st.Succeeded, st.Failed, live.Succeeded, live.Failed)
	}

	b.run(t, "loading the trace back",
		chromedp.SetUploadFiles("#load-trace", []string{file}, chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#playground').dataset.phase === "replay"`, &ok, chromedp.WithPollingTimeout(waitLong)),
		chromedp.WaitVisible("#back-to-live", chromedp.ByQuery),
	)
	replay := b.stats(t)
	if replay.Succeeded != live.Succeeded || replay.Failed != live.Failed || replay.MaxRunning != live.MaxRunning {
		t.Errorf("the replay shows %d succeeded, %d failed, %d max in flight; the run had %d, %d, %d",
			replay.Succeeded, replay.Failed, replay.MaxRunning, live.Succeeded, live.Failed, live.MaxRunning)
	}
	b.screenshot(t, "replay.png")
	b.run(t, "going back to live",
		chromedp.Click("#back-to-live", chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#playground').dataset.phase !== "replay"`, &ok, chromedp.WithPollingTimeout(waitLong)),
	)

	bad := filepath.Join(t.TempDir(), "notes.json")
	if err := os.WriteFile(bad, []byte("{this is not a trace"), 0o644); err != nil {
		t.Fatal(err)
	}
	b.run(t, "loading a file that is not a trace",
		chromedp.SetUploadFiles("#load-trace", []string{bad}, chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#message').dataset.kind === "error"`, &ok, chromedp.WithPollingTimeout(waitLong)),
	)
	if s := b.stats(t); !strings.Contains(s.Message, "notes.json") || s.Phase == "replay" {
		t.Errorf("after a bad file: message %q, phase %q; want the file named and the run shown", s.Message, s.Phase)
	}
	b.checkClean(t)
}

// waitFile waits for a file matching pattern to appear, complete, and
// returns its name.
func waitFile(t *testing.T, pattern string) string {
	t.Helper()
	deadline := time.Now().Add(waitLong)
	for {
		if m, _ := filepath.Glob(pattern); len(m) > 0 {
			if b, err := os.ReadFile(m[0]); err == nil && len(b) > 0 && strings.HasSuffix(strings.TrimSpace(string(b)), "}") {
				return m[0]
			}
		}
		if time.Now().After(deadline) {
			var names []string
			ents, _ := os.ReadDir(filepath.Dir(pattern))
			for _, e := range ents {
				info, _ := e.Info()
				names = append(names, fmt.Sprintf("%s (%v bytes)", e.Name(), info.Size()))
			}
			t.Fatalf("no file %s within %v; the directory holds %q", pattern, waitLong, names)
		}
		time.Sleep(50 * time.Millisecond) // polling the file system, not timing the page
	}
}

// TestBadInput opens a malformed link and asks for a burst beyond the
// limits: the page says what is wrong and keeps working.
func TestBadInput(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	var ok bool
	b.run(t, "opening a malformed link",
		chromedp.Navigate(base+"/?v=1#s=not*a%20scenario"),
		chromedp.WaitVisible(mounted),
		chromedp.WaitVisible(`#message[data-kind="error"]`),
	)
	s := b.stats(t)
	if !strings.Contains(s.Message, "link") {
		t.Errorf("message = %q, want it to speak of the link", s.Message)
	}
	if first := sim.Presets()[0].ID; s.Preset != first {
		t.Errorf("after a malformed link the page shows preset %q, want the first, %q", s.Preset, first)
	}
	b.run(t, "the page keeps running", chromedp.Poll(
		`Number(document.querySelector('#stats').dataset.nowMs) > 300`, &ok, chromedp.WithPollingTimeout(waitLong)))

	// The form refuses the value at once, or Add burst does.
	b.run(t, "asking for 50,000 tasks",
		chromedp.Click("#dismiss", chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#message').dataset.kind === "none"`, &ok, chromedp.WithPollingTimeout(waitLong)),
		chromedp.Evaluate(`(() => { const el = document.querySelector('#burst-count'); el.value = "50000";
			el.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`, &ok),
		chromedp.Evaluate(`document.querySelector('#message').dataset.kind === "error" || (document.querySelector('#add-burst').click(), true)`, &ok),
		chromedp.Poll(`document.querySelector('#message').dataset.kind === "error"`, &ok, chromedp.WithPollingTimeout(waitLong)),
	)
	s = b.stats(t)
	if !strings.Contains(s.Message, "10,000") {
		t.Errorf("message = %q, want it to say the limit of 10,000 tasks", s.Message)
	}
	b.screenshot(t, "bad-input.png")
	b.checkClean(t)
}

func TestEmbed(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	var ok bool
	// Pause and play again while the first run is going; the run ends.
	b.run(t, "loading the embed and pausing it",
		chromedp.Navigate(base+"/embed"),
		chromedp.WaitVisible(mounted),
		chromedp.WaitVisible(`#timeline[data-interactive="true"]`),
		chromedp.Click("#play", chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#playground').dataset.phase === "paused"`, &ok, chromedp.WithPollingTimeout(waitLong)),
		chromedp.Click("#play", chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#playground').dataset.phase === "playing"`, &ok, chromedp.WithPollingTimeout(waitLong)),
		chromedp.Evaluate(setSpeed, &ok),
	)
	first := sim.Presets()[0]
	checkRun(t, b.waitFinished(t, first.ID, totalTasks(first.Scenario)), first.Scenario)

	var chrome, registrations int
	b.run(t, "inspecting the embed",
		chromedp.Evaluate(`document.querySelectorAll('.site-head, .site-foot, .notes, .side').length`, &chrome),
		chromedp.Evaluate(`navigator.serviceWorker.getRegistrations().then(r => r.length)`, &registrations, awaitPromise),
	)
	if chrome != 0 {
		t.Errorf("the embed shows %d page chrome elements, want 0", chrome)
	}
	if registrations != 0 {
		t.Errorf("the embed registered %d service workers, want 0", registrations)
	}
	b.screenshot(t, "embed.png")

	// A host's bad command is the host's problem: the embed answers it
	// (to the host) and shows the reader nothing.
	b.run(t, "sending a bad command from the page itself",
		chromedp.Evaluate(`window.postMessage({sluice: "load", preset: "nope"}, "*"), window.postMessage({sluice: "play"}, "*"), true`, &ok),
		chromedp.Poll(`document.querySelector('#playground').dataset.phase === "playing"`, &ok, chromedp.WithPollingTimeout(waitLong)),
	)
	if s := b.stats(t); s.Kind == "error" || strings.Contains(s.Message, "nope") {
		t.Errorf("the embed shows the host's error to the reader: %q", s.Message)
	}
	b.checkClean(t)
}

// TestEmbedInFrame loads /embed in an iframe of a page from another origin:
// the server must let it be framed; the embed reports its height and
// answers the host's messages.
func TestEmbedInFrame(t *testing.T) {
	t.Parallel()
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!DOCTYPE html><title>host</title>
<script>
window.heights = [];
window.replies = [];
window.addEventListener("message", (e) => {
  if (e.origin !== %q || !e.data || !e.data.sluice) return;
  if (e.data.sluice === "height") {
    heights.push(e.data.height);
    document.getElementById("embed").height = e.data.height;
  } else {
    replies.push(e.data);
  }
});
window.send = (msg) => document.getElementById("embed").contentWindow.postMessage(msg, "*");
window.last = (kind) => replies.filter((r) => r.sluice === kind).pop();
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
	var pong struct {
		Version int    `json:"version"`
		Phase   string `json:"phase"`
	}
	b.run(t, "pinging the embed", chromedp.Poll(`(send({sluice: "ping"}), last("pong"))`, &pong,
		chromedp.WithPollingTimeout(waitLong), chromedp.WithPollingInterval(200*time.Millisecond)))
	if pong.Version != sim.Version {
		t.Errorf("pong version = %d, want %d", pong.Version, sim.Version)
	}
	var state struct {
		Phase  string `json:"phase"`
		Preset string `json:"preset"`
	}
	var ok bool
	b.run(t, "pausing the embed",
		chromedp.Evaluate(`send({sluice: "pause"}), true`, &ok),
		chromedp.Poll(`last("state") && last("state").phase === "paused" && last("state")`, &state, chromedp.WithPollingTimeout(waitLong)),
	)
	b.run(t, "loading a preset in the embed",
		chromedp.Evaluate(`send({sluice: "load", preset: "consumers"}), true`, &ok),
		chromedp.Poll(`last("state") && last("state").preset === "consumers" && last("state")`, &state, chromedp.WithPollingTimeout(waitLong)),
	)
	if state.Phase != "playing" {
		t.Errorf("phase after load = %q, want playing", state.Phase)
	}
	var problem string
	b.run(t, "sending a bad command",
		chromedp.Evaluate(`send({sluice: "load", scenario: "!!!"}), true`, &ok),
		chromedp.Poll(`last("error") && last("error").message`, &problem, chromedp.WithPollingTimeout(waitLong)),
	)
	if !strings.Contains(problem, "link") {
		t.Errorf("error message = %q, want it to explain the bad scenario", problem)
	}

	// The reported height follows the content down as well as up: twelve
	// worker slots, then two.
	wide := sim.Scenario{V: sim.Version, Primitive: sim.WorkQueue, Seed: 1, Limit: 12, Speed: 1,
		Bursts: []sim.Burst{{Count: 24, MinMS: 200, MaxMS: 400}}}
	var tall, short int
	b.run(t, "loading twelve slots",
		chromedp.Evaluate(fmt.Sprintf(`replies.length = 0, heights.length = 0, send({sluice: "load", scenario: %q}), true`, wide.Encode()), &ok),
		chromedp.Poll(`(last("error") && "error: " + last("error").message) || (last("state") && last("state").primitive === "workqueue" && "ok")`,
			&problem, chromedp.WithPollingTimeout(waitLong)),
	)
	if problem != "ok" {
		t.Fatalf("loading twelve slots: %s", problem)
	}
	b.run(t, "measuring twelve slots",
		chromedp.Poll(`heights.length > 0 && heights[heights.length - 1]`, &tall, chromedp.WithPollingTimeout(waitLong)),
	)
	b.run(t, "loading two slots",
		chromedp.Evaluate(`heights.length = 0, send({sluice: "load", preset: "priority-semaphore"}), true`, &ok),
		chromedp.Poll(fmt.Sprintf(`heights.length > 0 && heights[heights.length - 1] < %d && heights[heights.length - 1]`, tall-50),
			&short, chromedp.WithPollingTimeout(waitLong)),
	)
	var frameHeight int
	b.run(t, "reading the frame", chromedp.Evaluate(`Number(document.getElementById("embed").height)`, &frameHeight))
	if frameHeight != short {
		t.Errorf("the host's iframe is %d px, want the last height reported, %d", frameHeight, short)
	}
	b.screenshot(t, "embed-in-frame.png")
	b.checkErrors(t)
}

// TestStaticExport exports the playground as a static site, serves it
// with a plain file server, and loads both pages.
func TestStaticExport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	export := exec.Command(serverBin, "-export", dir)
	export.Dir = root
	if out, err := export.CombinedOutput(); err != nil {
		t.Fatalf("exporting: %v\n%s", err, out)
	}
	static := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer static.Close()

	b := newBrowser(t)
	for _, path := range []string{"/", "/embed", "/embed.html", "/index.html"} {
		var phase string
		b.run(t, "loading the exported "+path,
			chromedp.Navigate(static.URL+path),
			chromedp.WaitVisible(mounted),
			chromedp.Poll(`Number(document.querySelector('#stats').dataset.nowMs) > 0 && document.querySelector('#playground').dataset.phase`,
				&phase, chromedp.WithPollingTimeout(waitLong)),
		)
		var side int
		b.run(t, "inspecting "+path, chromedp.Evaluate(`document.querySelectorAll('.side').length`, &side))
		if embed := strings.HasPrefix(path, "/embed"); embed != (side == 0) {
			t.Errorf("%s shows the side panel: %v, want %v", path, side != 0, !embed)
		}
	}
	b.mu.Lock()
	for _, u := range b.requests {
		if !strings.HasPrefix(u, static.URL+"/") {
			t.Errorf("the static site requested %s", u)
		}
	}
	b.mu.Unlock()
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
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		// The playground's budget for what a browser downloads (make perf
		// reports it).
		const limit = 2_700_000
		if len(body) > limit {
			t.Errorf("app.wasm as served is %d bytes gzip-encoded, over the budget of %d", len(body), limit)
		}
		zr, err := gzip.NewReader(bytes.NewReader(body))
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

// TestLimitsLevelsAndKeys opens a link with a limit far above the old
// cap, priority levels of its own and named keys, runs it to the end, and
// types a bad priority list.
func TestLimitsLevelsAndKeys(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	sc := sim.Scenario{V: sim.Version, Primitive: sim.Keyed, Seed: 3, Limit: 500, IdleMS: 200, Speed: 10,
		Bursts: []sim.Burst{
			{Count: 300, MinMS: 50, MaxMS: 400, Levels: []int{5, -3, 100}, KeyNames: []string{"eu-west", "us-east", "東京"}},
			{AtMS: 100, Count: 200, MinMS: 50, MaxMS: 100, Keys: 300},
		}}
	var ok bool
	b.run(t, "opening the link",
		chromedp.Navigate(base+"/?v=1#s="+sc.Encode()),
		chromedp.WaitVisible(mounted),
	)
	s := b.waitFinished(t, "", totalTasks(sc))
	checkRun(t, s, sc)
	if s.Kind == "error" {
		t.Errorf("a good link shows an error: %s", s.Message)
	}
	if s.Succeeded != 500 || s.MaxRunning <= 64 || s.MaxLimit != 500 {
		t.Errorf("succeeded %d, max running %d, limit %d; want 500, more than 64, 500", s.Succeeded, s.MaxRunning, s.MaxLimit)
	}
	var waits string
	b.run(t, "reading the waits", chromedp.Text("#waits", &waits, chromedp.ByQuery))
	for _, want := range []string{"priority 100", "priority 5", "priority -3"} {
		if !strings.Contains(waits, want) {
			t.Errorf("the waits table %q lacks %q", waits, want)
		}
	}
	b.screenshot(t, "levels-keys.png")

	b.run(t, "typing a bad priority list",
		chromedp.SetValue("#burst-levels", "5, high", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('#burst-levels').dispatchEvent(new Event('change', {bubbles: true}))`, &ok),
		chromedp.Poll(`document.querySelector('#message').dataset.kind === "error"`, &ok, chromedp.WithPollingTimeout(waitLong)),
	)
	if s := b.stats(t); !strings.Contains(s.Message, `"high" is not a whole number`) {
		t.Errorf("message = %q, want it to say the list is not whole numbers", s.Message)
	}
	b.checkClean(t)
}

// openPreset opens the playground and chooses the preset id, until the
// page shows it.
func openPreset(id string) chromedp.Tasks {
	var ok bool
	return chromedp.Tasks{
		chromedp.Navigate(base + "/"),
		chromedp.WaitVisible(mounted),
		chromedp.Click("#preset-"+id, chromedp.ByQuery),
		chromedp.Poll(fmt.Sprintf(`document.querySelector('#playground').dataset.preset === %q`, id), &ok, chromedp.WithPollingTimeout(waitLong)),
	}
}

// eachSize runs test as the subtests desktop and phone, each in a browser
// of its own at that size.
func eachSize(t *testing.T, test func(t *testing.T, b *browser, size string)) {
	for _, size := range []string{"desktop", "phone"} {
		t.Run(size, func(t *testing.T) {
			b := newBrowser(t)
			if size == "phone" {
				b.phone(t)
			}
			test(t, b, size)
		})
	}
}
