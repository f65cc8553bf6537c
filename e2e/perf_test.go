//go:build e2e && perf

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/profiler"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"sluice/wasm/gotrace"
	"sluice/wasm/gotrace/gotracetest"
	"sluice/wasm/sim"
)

// TestPerf reports, without asserting, what the playground costs: the size
// of app.wasm as served (gzip), the time from navigation to the first
// interactive frame, and the time a frame takes (model update and canvas
// drawing) with 1,000 tasks live. make perf runs it.
func TestPerf(t *testing.T) {
	// app.wasm as served to a browser that accepts gzip.
	req, err := http.NewRequest(http.MethodGet, base+"/web/app.wasm", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	served, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := strconv.ParseInt(resp.Header.Get("X-Wasm-Content-Length"), 10, 64)
	report("app.wasm as served (%s): %.3f MB (%.2f MB uncompressed); target <= 2.7 MB",
		resp.Header.Get("Content-Encoding"), mb(served), mb(raw))

	// Navigation to the first interactive frame, in a fresh browser
	// context each time (nothing cached).
	var loads []float64
	for range 3 {
		b := newBrowser(t)
		var ms float64
		b.run(t, "loading the playground",
			chromedp.Navigate(base+"/"),
			chromedp.Poll(`(() => {
				const m = performance.getEntriesByName("sluice-interactive");
				return m.length > 0 && m[0].startTime;
			})()`, &ms, chromedp.WithPollingTimeout(waitLong), chromedp.WithPollingInterval(10*time.Millisecond)),
			// The page would go on playing, and take the CPU the next
			// measurements need.
			chromedp.Navigate("about:blank"),
		)
		loads = append(loads, ms)
	}
	slices.Sort(loads)
	report("navigation to first interactive frame: median %.0f ms of %d cold loads (%.0f to %.0f ms); target <= 1500 ms",
		loads[len(loads)/2], len(loads), loads[0], loads[len(loads)-1])

	// Frame time with 1,000 tasks live: a semaphore of 50 tokens and 1,000
	// tasks of 30 to 60 s, so that all of them wait or run while frames
	// are measured.
	sc := sim.Scenario{V: sim.Version, Primitive: sim.Semaphore, Seed: 1, Limit: 50, Speed: 1,
		Bursts: []sim.Burst{{Count: 1000, MinMS: 30_000, MaxMS: 60_000, Priority: sim.PriorityMix{Low: 1, Normal: 2, High: 1}}}}
	b := newBrowser(t)
	f := b.liveFrames(t, "loading 1,000 live tasks", base+"/?v=1"+sim.LinkPrefix+sc.Encode(),
		`Number(document.querySelector('#stats').dataset.running) + Number(document.querySelector('#stats').dataset.waiting) === 1000`)
	report("frame time (model update + canvas draw) with %d tasks live, %d bars drawn: mean %.2f ms over %d frames, p95 %.2f ms (last 120), worst %.2f ms; target <= 8 ms",
		f.after.Live, f.after.Bars, f.mean(), f.n(), f.after.P95, f.after.Max)
	b.checkErrors(t)
	b.run(t, "leaving the page", chromedp.Navigate("about:blank"))

	// The same with a comparison: two runs of those 1,000 tasks, 50
	// tokens against 100, drawn one above the other.
	comparePerf(t, sc)
}

// TestPerfTraces reports the time to load a trace of 200,000 tasks, the
// longest task on the page's thread meanwhile, and the frames over it.
func TestPerfTraces(t *testing.T) {
	// A trace of 200,000 tasks: the time to load it, and the frames,
	// zoomed out, while the pointer moves over it.
	// Written by another tool, and by a service's Recorder (Sluice's own
	// format, as Export writes it).
	const big = 200_000
	for _, tr := range []struct{ kind, profile, file string }{
		{"another tool's", "SLUICE_PERF_PROFILE_FOREIGN", foreignTrace(t, big, 8, 5_000_000, 50, 40)},
		{"a Recorder's", "SLUICE_PERF_PROFILE_OWN", ownTrace(t, big, 8, time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC), 6250*time.Nanosecond, 30*time.Microsecond, 40*time.Microsecond)},
	} {
		var size int64
		if fi, err := os.Stat(tr.file); err == nil {
			size = fi.Size()
		}
		lb := newBrowser(t)
		ld := lb.loadProbe(t, tr.profile, tr.file, fmt.Sprintf(`Number(document.querySelector('#timeline').dataset.tasks) === %d`, big))
		lb.profileStart(t, "SLUICE_PERF_PROFILE_TRACE_FRAMES")
		fs := lb.measureFrames(t, 130)
		lb.profileStop(t, "SLUICE_PERF_PROFILE_TRACE_FRAMES")
		report("%s trace of %s tasks (%.1f MB): loaded in %.2f s (target <= 3 s), longest main-thread task %.0f ms (target <= 50 ms), %d progress updates; zoomed out, frame p95 %.2f ms (last 120), worst %.2f ms; target <= 16 ms",
			tr.kind, "200,000", mb(size), ld.took.Seconds(), ld.longest, ld.updates, fs.P95, fs.Max)
		lb.profileStart(t, "SLUICE_PERF_PROFILE_ZOOM")
		zp95, zmax, zn := lb.zoomFrames(t, 24)
		lb.profileStop(t, "SLUICE_PERF_PROFILE_ZOOM")
		report("%s trace, zooming in and out with the wheel: time between animation frames p95 %.1f ms, worst %.1f ms over %d frames; target <= 17 ms (60 frames a second)",
			tr.kind, zp95, zmax, zn)
		lb.checkErrors(t)
		lb.run(t, "leaving the page", chromedp.Navigate("about:blank"))
	}
}

// A Go execution trace of 1,000,000 events, written by running real
// queues while tracing: the time to open it, and the longest task on the
// page's thread meanwhile.
func TestPerfGoTrace(t *testing.T) {
	const events = 1_000_000
	data, err := gotracetest.Write(events)
	if err != nil {
		t.Fatal(err)
	}
	res, err := gotrace.ConvertBytes(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "million.trace")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t)
	ld := b.loadProbe(t, "SLUICE_PERF_PROFILE", file, fmt.Sprintf(`document.querySelector('#stats').dataset.traceTasks === "%d"`, res.Tasks))
	report("Go execution trace of %s events (%.1f MB, %s sluice tasks): opened in %.2f s (target <= 5 s), longest main-thread task %.0f ms (target <= 50 ms), %d progress updates",
		formatInt(res.Events), mb(int64(len(data))), formatInt(res.Tasks), ld.took.Seconds(), ld.longest, ld.updates)
	b.checkErrors(t)
	b.run(t, "leaving the page", chromedp.Navigate("about:blank"))
}

// frameSample is what the page says of its frames at one moment: frames
// drawn, their total time, the 95th percentile and worst of the last 120
// (ms), the bars drawn, and the tasks live (running or waiting); B's for
// a comparison's second run.
type frameSample struct {
	N     int     `json:"n"`
	Sum   float64 `json:"sum"`
	P95   float64 `json:"p95"`
	Max   float64 `json:"max"`
	Live  int     `json:"live"`
	Bars  int     `json:"bars"`
	LiveB int     `json:"liveB"`
	BarsB int     `json:"barsB"`
}

const readFrameSample = `(() => {
	const d = document.querySelector('#timeline').dataset;
	const s = document.querySelector('#stats').dataset;
	const tb = document.querySelector('#timeline-b');
	const v = (sel) => { const el = document.querySelector(sel); return el ? Number(el.dataset.value) : 0; };
	return {n: Number(d.frames || 0), sum: Number(d.frameSumMs || 0), p95: Number(d.frameP95Ms || 0),
		max: Number(d.frameMaxMs || 0), bars: Number(d.bars || 0), live: Number(s.running) + Number(s.waiting),
		barsB: tb ? Number(tb.dataset.bars || 0) : 0, liveB: v('#c-b-running') + v('#c-b-waiting')};
})()`

// frameWindow is what liveFrames measured: the page's frame statistics
// before and after 180 frames.
type frameWindow struct{ before, after frameSample }

func (w frameWindow) n() int { return w.after.N - w.before.N }

// mean is the mean time of the frames between before and after, in ms.
func (w frameWindow) mean() float64 {
	return (w.after.Sum - w.before.Sum) / float64(max(w.n(), 1))
}

// liveFrames opens url and, once ready (a JavaScript condition) holds and
// 30 frames are drawn, has the page draw 180 more: the frame statistics
// then cover no frame of the loading.
func (b *browser) liveFrames(t *testing.T, what, url, ready string) frameWindow {
	t.Helper()
	var w frameWindow
	var ok bool
	b.run(t, what,
		chromedp.Navigate(url),
		chromedp.WaitVisible(mounted),
		chromedp.Poll(`(`+ready+`) && Number(document.querySelector('#timeline').dataset.frames) > 30`, &ok, chromedp.WithPollingTimeout(waitLong)),
		chromedp.Evaluate(readFrameSample, &w.before),
	)
	b.profileStart(t, "SLUICE_PERF_PROFILE_FRAMES")
	b.run(t, "drawing frames",
		chromedp.Poll(fmt.Sprintf(`Number(document.querySelector('#timeline').dataset.frames) >= %d`, w.before.N+180),
			&ok, chromedp.WithPollingTimeout(waitLong)),
		chromedp.Evaluate(readFrameSample, &w.after),
	)
	b.profileStop(t, "SLUICE_PERF_PROFILE_FRAMES")
	return w
}

// loaded is what loadProbe measured.
type loaded struct {
	took    time.Duration
	longest float64 // ms, the longest task on the page's thread until 1 s after the load (the Long Tasks API sees those over 50 ms)
	updates int     // distinct progress notes shown
}

// loadProbe opens the playground, paused, and loads file, until done (a
// JavaScript condition) holds in replay. With the environment variable
// profileEnv set ($SLUICE_PERF_PROFILE for a Go execution trace,
// $SLUICE_PERF_PROFILE_FOREIGN and $SLUICE_PERF_PROFILE_OWN for the JSON
// traces of TestPerfTraces), it writes there the page's CPU profile (Chrome DevTools' format) of the
// load: wasm functions appear by index unless app.wasm is built with its
// name section (without -ldflags=-s).
func (b *browser) loadProbe(t *testing.T, profileEnv, file, done string) loaded {
	t.Helper()
	var ok bool
	b.run(t, "loading the playground, paused",
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(mounted),
		chromedp.WaitVisible(`#timeline[data-interactive="true"]`),
		chromedp.Click("#play", chromedp.ByQuery),
		chromedp.Evaluate(`(() => {
			window.sluiceLongest = 0;
			window.sluiceLongTasks = [];
			new PerformanceObserver((l) => {
				for (const e of l.getEntries()) {
					window.sluiceLongest = Math.max(window.sluiceLongest, e.duration);
					window.sluiceLongTasks.push([e.startTime, e.duration]);
				}
			}).observe({type: "longtask"});
			window.sluiceNotes = new Set();
			new MutationObserver(() => {
				const r = document.querySelector('#reading-progress');
				if (r) window.sluiceNotes.add(r.textContent);
			}).observe(document.body, {subtree: true, childList: true, characterData: true});
			return true;
		})()`, &ok),
	)
	b.profileStart(t, profileEnv)
	start := time.Now()
	b.run(t, "loading the trace",
		chromedp.SetUploadFiles("#load-trace", []string{file}, chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#playground').dataset.phase === "replay" && `+done,
			&ok, chromedp.WithPollingTimeout(waitLong), chromedp.WithPollingInterval(20*time.Millisecond)),
	)
	ld := loaded{took: time.Since(start)}
	// What the load leaves to do just after (a collection of its garbage,
	// the first frames of the trace) counts too.
	b.run(t, "drawing the loaded trace", chromedp.Sleep(time.Second))
	b.profileStop(t, profileEnv)
	b.run(t, "reading the longest task",
		chromedp.Evaluate(`window.sluiceLongest`, &ld.longest),
		chromedp.Evaluate(`window.sluiceNotes.size`, &ld.updates))
	return ld
}

// profileStart starts Chromium's CPU profiler, sampling every 200 µs, if
// the environment variable env names a file; profileStop writes the profile
// there (a .cpuprofile that Chromium's DevTools open), and next to it, in
// a file named as it with .tasks added, the page's long tasks seen so far
// (loadProbe's), as [start, duration] in ms of the page's clock, with the
// page's time when the profile started (t0), to find them in the profile.
func (b *browser) profileStart(t *testing.T, env string) {
	if os.Getenv(env) == "" {
		return
	}
	b.run(t, "profiling", chromedp.ActionFunc(func(ctx context.Context) error {
		if err := profiler.Enable().Do(ctx); err != nil {
			return err
		}
		if err := profiler.SetSamplingInterval(200).Do(ctx); err != nil {
			return err
		}
		if err := profiler.Start().Do(ctx); err != nil {
			return err
		}
		// A few milliseconds in a function of its own name mark in the
		// profile the moment sluiceProfileT0 is, which the long tasks'
		// times are read against.
		var ok bool
		return chromedp.Evaluate(`(function sluiceProfileMark() {
			const t0 = performance.now();
			while (performance.now() - t0 < 3) {}
			window.sluiceProfileT0 = t0;
			return true;
		})()`, &ok).Do(ctx)
	}))
}

func (b *browser) profileStop(t *testing.T, env string) {
	if os.Getenv(env) == "" {
		return
	}
	b.run(t, "profiling", chromedp.Sleep(300*time.Millisecond), chromedp.ActionFunc(func(ctx context.Context) error {
		prof, err := profiler.Stop().Do(ctx)
		if err != nil {
			return err
		}
		data, _ := json.Marshal(prof)
		if err := os.WriteFile(os.Getenv(env), data, 0o644); err != nil {
			return err
		}
		var tasks json.RawMessage
		if err := chromedp.Evaluate(`JSON.stringify({t0: window.sluiceProfileT0, tasks: window.sluiceLongTasks || []})`, &tasks).Do(ctx); err != nil {
			return err
		}
		var text string
		if err := json.Unmarshal(tasks, &text); err != nil {
			return err
		}
		return os.WriteFile(os.Getenv(env)+".tasks", []byte(text), 0o644)
	}))
}

func formatInt(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func mb(n int64) float64 { return float64(n) / 1e6 }

func report(format string, args ...any) {
	fmt.Printf("perf: "+format+"\n", args...)
}

// zoomFrames turns the wheel over the timeline n times in, then n times
// out, a notch an animation frame, and returns the p95 and the worst of
// the time between animation frames meanwhile (all the page's thread
// does: finding and drawing each window's bars, and the browser's own
// work), and how many there were.
func (b *browser) zoomFrames(t *testing.T, n int) (p95, worst float64, frames int) {
	t.Helper()
	var c struct{ Left, Top, Width, Height float64 }
	b.run(t, "finding the canvas", chromedp.Evaluate(`(() => {
		window.scrollTo(0, 0);
		const r = document.querySelector('#timeline').getBoundingClientRect();
		return {left: r.left, top: r.top, width: r.width, height: r.height};
	})()`, &c), chromedp.Evaluate(`(() => {
		window.sluiceGaps = [];
		let last = 0;
		const tick = (ts) => {
			if (!window.sluiceGaps) return;
			if (last) window.sluiceGaps.push(ts - last);
			last = ts;
			requestAnimationFrame(tick);
		};
		requestAnimationFrame(tick);
		return true;
	})()`, new(bool)))
	x, y := c.Left+c.Width*0.6, c.Top+80
	for i := range 2 * n {
		dy := -120.0
		if i >= n {
			dy = 120
		}
		b.run(t, "turning the wheel", input.DispatchMouseEvent(input.MouseWheel, x, y).WithDeltaX(0).WithDeltaY(dy),
			chromedp.Evaluate(`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`, new(bool), awaitPromise))
	}
	var gaps []float64
	b.run(t, "reading the frames", chromedp.Evaluate(`(() => { const g = window.sluiceGaps; window.sluiceGaps = null; return g; })()`, &gaps))
	if len(gaps) == 0 {
		t.Fatal("no animation frames while zooming")
	}
	slices.Sort(gaps)
	return gaps[len(gaps)*95/100], gaps[len(gaps)-1], len(gaps)
}
