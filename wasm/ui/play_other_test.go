//go:build !(js && wasm)

package ui_test

import (
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
	if last := sc.Bursts[len(sc.Bursts)-1]; last.Count != 7 {
		t.Errorf("the link's last burst = %+v, want the 7 tasks added", last)
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
	if msg := text(t, html, "message"); !strings.Contains(msg, `no preset "nope"`) {
		t.Errorf("notice after loading an unknown preset = %q", msg)
	}
	if got := attr(t, html, "playground", "data-preset"); got != "semaphore" {
		t.Errorf("a bad load changed the preset to %q", got)
	}
}
