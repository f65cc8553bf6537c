//go:build !(js && wasm)

package ui_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/wasm/sim"
	"sluice/wasm/ui"
)

// Outside the browser there is no frame loop: these tests mount the
// playground with a client tester and run its frames themselves.

// mount opens the playground at url and returns it mounted.
func mount(t *testing.T, url string, embed bool) (*ui.Play, app.ClientDispatcher) {
	t.Helper()
	ui.SetLocation(url)
	p := &ui.Play{Embed: embed}
	disp := app.NewClientTester(p)
	t.Cleanup(disp.Close)
	return p, disp
}

func link(sc sim.Scenario) string {
	return "/?v=" + strconv.Itoa(sim.Version) + sim.LinkPrefix + sc.Encode()
}

// frames runs frames of 100 ms until the page says the run finished.
func frames(t *testing.T, p *ui.Play, disp app.ClientDispatcher) string {
	t.Helper()
	for range 2000 {
		ui.PlayFrame(disp, p, 100*time.Millisecond)
		disp.Consume()
		html := app.HTMLString(p)
		if attr(t, html, "stats", "data-finished") == "true" && attr(t, html, "playground", "data-phase") == "finished" {
			return html
		}
	}
	t.Fatalf("the run did not finish")
	return ""
}

func TestPlayRunsEveryPreset(t *testing.T) {
	for _, ps := range sim.Presets() {
		t.Run(ps.ID, func(t *testing.T) {
			sc := ps.Scenario
			sc.Speed = 10
			p, disp := mount(t, link(sc), false)
			html := app.HTMLString(p)
			if got := attr(t, html, "playground", "data-mounted"); got != "true" {
				t.Fatalf("data-mounted = %q", got)
			}
			if got := attr(t, html, "playground", "data-primitive"); got != sc.Primitive {
				t.Errorf("data-primitive = %q, want %q", got, sc.Primitive)
			}
			if got := attr(t, html, "message", "data-kind"); got != "none" {
				t.Errorf("a notice shows on a good link: %s", text(t, html, "message"))
			}
			html = frames(t, p, disp)
			num := func(name string) int {
				n, err := strconv.Atoi(attr(t, html, "stats", "data-"+name))
				if err != nil {
					t.Fatalf("data-%s: %v", name, err)
				}
				return n
			}
			tasks := totalTasks(sc)
			if got := num("tasks"); got != tasks {
				t.Errorf("data-tasks = %d, want %d", got, tasks)
			}
			ended := num("succeeded") + num("failed") + num("canceled") + num("panicked") + num("refused") + num("withdrawn")
			if ended != tasks || num("running") != 0 || num("waiting") != 0 {
				t.Errorf("ended %d of %d, %d running, %d waiting", ended, tasks, num("running"), num("waiting"))
			}
			if limit := num("max-limit"); limit > 0 && num("max-running") > limit {
				t.Errorf("max running %d over the limit %d", num("max-running"), limit)
			}
			if got, want := attr(t, html, "c-done", "data-value"), strconv.Itoa(num("succeeded")); got != want {
				t.Errorf("done counter = %s, want %s", got, want)
			}
			if !strings.Contains(text(t, html, "stats"), "max in flight") {
				t.Errorf("the counters lack max in flight")
			}
		})
	}
}

func TestPlayBadLinks(t *testing.T) {
	first := sim.Presets()[0]
	good := first.Scenario
	for _, tc := range []struct {
		name, url, want string
	}{
		{"not base64", "/#s=!!!", "not base64url"},
		{"cut short", link(good)[:len(link(good))-12], "link"},
		{"too long", "/#s=" + strings.Repeat("A", sim.MaxLinkLen+1), "too long"},
		{"newer version", "/?v=99" + sim.LinkPrefix + good.Encode(), "newer playground"},
		{"not a version", "/?v=abc" + sim.LinkPrefix + good.Encode(), "version"},
		{"invalid scenario", link(sim.Scenario{V: 1, Primitive: "mutex", Limit: 1}), "unknown primitive"},
		{"comparison not base64", "/?v=2#c=!!!", "comparison link could not be opened"},
		{"comparison cut short", "/?v=2" + sim.ComparePrefix + compareText(t)[:40], "comparison link could not be opened"},
		{"unknown kind of link", "/?v=2#z=AAAA", "cannot read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, disp := mount(t, tc.url, false)
			html := app.HTMLString(p)
			if got := attr(t, html, "message", "data-kind"); got != "error" {
				t.Fatalf("#message data-kind = %q, want error", got)
			}
			if msg := text(t, html, "message"); !strings.Contains(msg, tc.want) {
				t.Errorf("message %q does not say %q", msg, tc.want)
			}
			// The person's link stays in the address bar, for a reload.
			if _, hash, _ := strings.Cut(tc.url, "#"); !strings.HasSuffix(ui.PageURL(), "#"+hash) {
				t.Errorf("the address bar holds %q, want the link opened, %q", ui.PageURL(), tc.url)
			}
			// The page keeps working: it runs the first preset.
			if got := attr(t, html, "playground", "data-preset"); got != first.ID {
				t.Errorf("data-preset = %q, want the first preset %q", got, first.ID)
			}
			ui.PlayFrame(disp, p, 100*time.Millisecond)
			disp.Consume()
			if got := attr(t, app.HTMLString(p), "playground", "data-phase"); got != "playing" {
				t.Errorf("data-phase = %q after a bad link, want playing", got)
			}
		})
	}
}

// compareText returns a comparison preset's link text.
func compareText(t *testing.T) string {
	ps := sim.ComparePresets()[0]
	c, err := sim.Compare(ps.Scenario, *ps.Compare)
	if err != nil {
		t.Fatal(err)
	}
	return c.Encode()
}

func TestPlayComposeErrors(t *testing.T) {
	p, disp := mount(t, "/", false)
	for _, tc := range []struct {
		b    sim.Burst
		want string
	}{
		{sim.Burst{Count: 10_001, MinMS: 10, MaxMS: 20}, "at most 10,000 tasks"},
		{sim.Burst{Count: 5, MinMS: 50, MaxMS: 10}, "longest duration"},
		{sim.Burst{Count: 0, MinMS: 10, MaxMS: 20}, "at least one task"},
	} {
		ui.ClickAddBurst(disp, p, tc.b)
		disp.Consume()
		html := app.HTMLString(p)
		if got := attr(t, html, "message", "data-kind"); got != "error" {
			t.Errorf("burst %+v: notice kind %q, want error", tc.b, got)
		}
		if msg := text(t, html, "message"); !strings.Contains(msg, tc.want) {
			t.Errorf("burst %+v: notice %q, want it to say %q", tc.b, msg, tc.want)
		}
	}
	ui.ClickAddBurst(disp, p, sim.Burst{Count: 7, MinMS: 10, MaxMS: 20})
	disp.Consume()
	html := app.HTMLString(p)
	if msg := text(t, html, "message"); !strings.Contains(msg, "Added 7 tasks") {
		t.Errorf("notice after a good burst = %q", msg)
	}
	// The burst is in the link, at the time it was added.
	sc, err := sim.Decode(attr(t, html, "stats", "data-link"))
	if err != nil {
		t.Fatal(err)
	}
	if bs := sc.LogBursts(); len(bs) == 0 || bs[len(bs)-1].Count != 7 {
		t.Errorf("the link's log holds the bursts %+v, want the 7 tasks added last", bs)
	}
}

func TestPlayPresetAndHost(t *testing.T) {
	p, disp := mount(t, "/embed", true)
	ui.ClickPreset(disp, p, "consumers")
	disp.Consume()
	html := app.HTMLString(p)
	if got := attr(t, html, "playground", "data-preset"); got != "consumers" {
		t.Errorf("data-preset = %q after choosing consumers", got)
	}
	if got := attr(t, html, "playground", "data-primitive"); got != sim.Consume {
		t.Errorf("data-primitive = %q", got)
	}
	ui.Host(disp, p, "pause", "", "")
	disp.Consume()
	if got := attr(t, app.HTMLString(p), "playground", "data-phase"); got != "paused" {
		t.Errorf("data-phase = %q after the host paused it", got)
	}
	ui.Host(disp, p, "load", "semaphore", "")
	disp.Consume()
	html = app.HTMLString(p)
	if got := attr(t, html, "playground", "data-preset"); got != "semaphore" {
		t.Errorf("data-preset = %q after the host loaded semaphore", got)
	}
	if got := attr(t, html, "playground", "data-phase"); got != "playing" {
		t.Errorf("data-phase = %q after load, want playing", got)
	}
	ui.Host(disp, p, "load", "nope", "")
	disp.Consume()
	html = app.HTMLString(p)
	// The host's mistake is posted back to the host, not shown to the
	// reader.
	if msg := text(t, html, "message"); strings.Contains(msg, `no preset "nope"`) {
		t.Errorf("notice after the host loaded an unknown preset = %q, want none: the error goes to the host", msg)
	}
	if got := attr(t, html, "playground", "data-preset"); got != "semaphore" {
		t.Errorf("a bad load changed the preset to %q", got)
	}
}

func TestPlayBigLimitLevelsAndKeys(t *testing.T) {
	sc := sim.Scenario{V: sim.Version, Primitive: sim.Keyed, Seed: 3, Limit: 500, IdleMS: 200, Speed: 10,
		Bursts: []sim.Burst{
			{Count: 300, MinMS: 50, MaxMS: 400, Levels: []int{5, -3, 100}, KeyNames: []string{"eu-west", "us-east", "東京"}},
			{AtMS: 100, Count: 200, MinMS: 50, MaxMS: 100, Keys: 300},
		}}
	p, disp := mount(t, link(sc), false)
	html := app.HTMLString(p)
	if got := attr(t, html, "message", "data-kind"); got != "none" {
		t.Fatalf("a notice shows on a good link: %s", text(t, html, "message"))
	}
	html = frames(t, p, disp)
	num := func(name string) int {
		n, err := strconv.Atoi(attr(t, html, "stats", "data-"+name))
		if err != nil {
			t.Fatalf("data-%s: %v", name, err)
		}
		return n
	}
	if num("tasks") != 500 || num("succeeded") != 500 || num("limit") != 500 {
		t.Errorf("tasks %d, succeeded %d, limit %d; want 500, 500, 500", num("tasks"), num("succeeded"), num("limit"))
	}
	if num("max-running") <= 64 || num("max-running") > 500 {
		t.Errorf("max running = %d, want more than 64 and at most 500", num("max-running"))
	}
	for _, want := range []string{"priority 5", "priority -3", "priority 100", "Normal"} {
		if !strings.Contains(text(t, html, "waits"), want) {
			t.Errorf("the waits table lacks %q: %s", want, text(t, html, "waits"))
		}
	}
	// Per key, never two at once.
	last := make(map[string]time.Duration)
	for _, ti := range ui.SessionTasks(ui.PlaySession(p)) {
		if ti.Started < last[ti.Key] {
			t.Errorf("%s (key %s) started at %v, before the key's previous task ended at %v", ti.Name, ti.Key, ti.Started, last[ti.Key])
		}
		last[ti.Key] = ti.Ended
	}
	for _, k := range []string{"eu-west", "us-east", "東京"} {
		if _, ok := last[k]; !ok {
			t.Errorf("no task ran on key %q", k)
		}
	}
}

func TestPlayComposeLists(t *testing.T) {
	sc := sim.Scenario{V: sim.Version, Primitive: sim.Keyed, Seed: 3, Limit: 0, Speed: 10,
		Bursts: []sim.Burst{{Count: 1, MinMS: 10, MaxMS: 10, Keys: 1}}}
	p, disp := mount(t, link(sc), false)
	ui.TypeList(disp, p, "burst-levels", "5, high")
	disp.Consume()
	html := app.HTMLString(p)
	if got, msg := attr(t, html, "message", "data-kind"), text(t, html, "message"); got != "error" || !strings.Contains(msg, `"high" is not a whole number`) {
		t.Errorf("notice after a bad list = %s %q", got, msg)
	}
	ui.ClickAddForm(disp, p, 5)
	disp.Consume()
	if msg := text(t, app.HTMLString(p), "message"); !strings.Contains(msg, "fix it before adding work") {
		t.Errorf("notice after adding with a bad list = %q", msg)
	}
	ui.TypeList(disp, p, "burst-levels", "5, -3, 100")
	ui.TypeList(disp, p, "burst-key-names", "eu-west, us-east")
	disp.Consume()
	ui.ClickAddForm(disp, p, 20)
	disp.Consume()
	html = app.HTMLString(p)
	if msg := text(t, html, "message"); !strings.Contains(msg, "Added 20 tasks") {
		t.Fatalf("notice after a good burst = %q", msg)
	}
	got, err := sim.Decode(attr(t, html, "stats", "data-link"))
	if err != nil {
		t.Fatal(err)
	}
	bs := got.LogBursts()
	if len(bs) == 0 {
		t.Fatalf("the link's log holds no burst: %+v", got.Log)
	}
	b := bs[len(bs)-1]
	if fmt.Sprint(b.Levels, b.KeyNames, b.Keys, b.Priority) != "[5 -3 100] [eu-west us-east] 0 {0 0 0}" {
		t.Errorf("the link's burst = %+v, want levels [5 -3 100] and keys eu-west, us-east", b)
	}
	frames(t, p, disp)
}

// TestPreRenderSelects renders the page as the server does, before the
// wasm mounts: no option says selected="false", which HTML reads as
// selected, so that every select shows its chosen option while the page
// loads.
func TestPreRenderSelects(t *testing.T) {
	for _, page := range []app.UI{&ui.Playground{}, &ui.Embed{}} {
		html := app.HTMLString(page)
		if strings.Contains(html, `selected="false"`) {
			i := strings.Index(html, `selected="false"`)
			t.Errorf("%T pre-renders an option with selected=\"false\": …%s…", page, html[max(i-120, 0):i+20])
		}
		if !strings.Contains(html, `selected`) {
			t.Errorf("%T pre-renders no selected option", page)
		}
	}
}

// TestPresetTextKeptAfterABurst adds a burst to a preset: the view still
// says what to watch in it, marked changed, rather than "Custom scenario".
func TestPresetTextKeptAfterABurst(t *testing.T) {
	p, disp := mount(t, "/", false)
	ps := sim.Presets()[0]
	ui.ClickAddBurst(disp, p, sim.Burst{Count: 3, MinMS: 10, MaxMS: 20})
	disp.Consume()
	html := app.HTMLString(p)
	if got := text(t, html, "scenario-title"); !strings.HasPrefix(got, ps.Title+" (changed)") {
		t.Errorf("title after a burst = %q, want %q", got, ps.Title+" (changed)")
	}
	if got := text(t, html, "scenario-desc"); !strings.Contains(got, ps.Description) {
		t.Errorf("description after a burst = %q, want the preset's", got)
	}
}
