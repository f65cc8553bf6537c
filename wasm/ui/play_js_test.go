//go:build js && wasm

package ui_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/wasm/sim"
	"sluice/wasm/ui"
)

// In the browser the playground runs its own frame loop on
// requestAnimationFrame: this test mounts it and lets it run on the wall
// clock, at 10×, until the run finishes. It asserts on outcomes only,
// never on timing.
func TestPlayInBrowser(t *testing.T) {
	ps, _ := sim.PresetByID("priority-semaphore")
	sc := ps.Scenario
	sc.Speed = 10
	ui.SetLocation("/?v=" + strconv.Itoa(sim.Version) + sim.LinkPrefix + sc.Encode())
	p := &ui.Play{}
	disp := app.NewClientTester(p)
	defer disp.Close()

	sess := ui.PlaySession(p)
	if sess == nil {
		t.Fatal("the playground did not mount")
	}
	deadline := time.Now().Add(time.Minute)
	for !sess.Panel().Finished {
		if time.Now().After(deadline) {
			t.Fatalf("the run did not finish within a minute: %+v", sess.Panel())
		}
		time.Sleep(20 * time.Millisecond) // lets the browser run animation frames
	}
	pn := sess.Panel()
	checkEnded(t, pn, totalTasks(sc))
	frames, _ := strconv.Atoi(ui.CanvasData(p, "frames"))
	for i := 0; frames == 0 && i < 100; i++ {
		time.Sleep(20 * time.Millisecond)
		frames, _ = strconv.Atoi(ui.CanvasData(p, "frames"))
	}
	if frames == 0 {
		t.Errorf("the canvas reports no frames drawn")
	}
	if got := ui.CanvasData(p, "interactive"); got != "true" {
		t.Errorf("canvas data-interactive = %q, want true", got)
	}
	// The counters in the DOM follow a few times a second.
	var html string
	for {
		disp.Consume()
		html = app.HTMLString(p)
		if attr(t, html, "stats", "data-finished") == "true" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("#stats data-finished is still %q", attr(t, html, "stats", "data-finished"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got, want := attr(t, html, "c-done", "data-value"), strconv.Itoa(pn.Succeeded); got != want {
		t.Errorf("done counter = %s, want %s", got, want)
	}
}
