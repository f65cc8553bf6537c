package ui

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/core"
)

// The semaphore demo's shape: DemoTasks tasks share a semaphore of
// DemoLimit tokens, each holding one token for a random time between
// minTask and maxTask.
const (
	DemoLimit = 2
	DemoTasks = 6
	minTask   = 300 * time.Millisecond
	maxTask   = 1500 * time.Millisecond
)

// Demo runs DemoTasks tasks through a real core.Semaphore with DemoLimit
// tokens, in the browser, and shows each task's state as it changes. It
// starts a run when mounted and again on "Run again".
//
// Its state changes only on the UI goroutine: the run's goroutines report
// through ctx.Dispatch. The DOM carries stable hooks for tests: #demo has
// data-mounted and data-phase ("running", then "done"), each task is
// #task-N with data-state, and the counters are #running, #max-running and
// #done.
type Demo struct {
	app.Compo

	// Everything below is UI state; it is unexported so that a parent's
	// re-render never resets it.
	mounted    bool
	run        int // the current run's number; reports from older runs are dropped
	finished   bool
	tasks      []taskView
	maxRunning int
	cancel     context.CancelFunc
}

type taskView struct {
	state      State
	length     time.Duration
	start, end time.Duration
}

// OnMount starts the first run. It is called on the client only.
func (d *Demo) OnMount(ctx app.Context) {
	d.mounted = true
	d.start(ctx)
}

// OnDismount cancels the run in progress.
func (d *Demo) OnDismount() {
	if d.cancel != nil {
		d.cancel()
		d.cancel = nil
	}
}

func (d *Demo) onRunAgain(ctx app.Context, e app.Event) {
	d.start(ctx)
}

// start begins a new run, cancelling the one in progress. It runs on the UI
// goroutine and does not block: the run happens in ctx.Async.
func (d *Demo) start(ctx app.Context) {
	if d.cancel != nil {
		d.cancel()
	}
	d.run++
	run := d.run
	d.finished = false
	d.maxRunning = 0
	durations := randomDurations(DemoTasks)
	d.tasks = make([]taskView, len(durations))
	for i, l := range durations {
		d.tasks[i] = taskView{state: Waiting, length: l}
	}

	runCtx, cancel := context.WithCancel(ctx)
	d.cancel = cancel
	sem := core.NewSemaphore(DemoLimit)
	ctx.Async(func() {
		defer cancel()
		RunTasks(runCtx, sem, durations, func(u Update) {
			ctx.Dispatch(func(app.Context) { d.apply(run, u) })
		})
		ctx.Dispatch(func(app.Context) {
			if d.run == run {
				d.finished = true
			}
		})
	})
}

// apply records u, unless it belongs to an older run.
func (d *Demo) apply(run int, u Update) {
	if run != d.run || u.Task < 0 || u.Task >= len(d.tasks) {
		return
	}
	t := &d.tasks[u.Task]
	t.state = u.State
	switch u.State {
	case Running:
		t.start = u.At
	case Done, Canceled:
		t.end = u.At
	}
	d.maxRunning = max(d.maxRunning, u.MaxRunning, d.count(Running))
}

func (d *Demo) count(s State) int {
	n := 0
	for _, t := range d.tasks {
		if t.state == s {
			n++
		}
	}
	return n
}

func randomDurations(n int) []time.Duration {
	ds := make([]time.Duration, n)
	for i := range ds {
		d := minTask + rand.N(maxTask-minTask)
		ds[i] = d.Round(10 * time.Millisecond)
	}
	return ds
}

// Render draws the demo. Before the wasm mounts (server-side pre-rendering)
// it shows the empty frame only.
func (d *Demo) Render() app.UI {
	phase := "loading"
	switch {
	case d.finished:
		phase = "done"
	case d.mounted:
		phase = "running"
	}
	return app.Section().
		ID("demo").
		Class("demo").
		DataSet("mounted", strconv.FormatBool(d.mounted)).
		DataSet("phase", phase).
		DataSet("run", d.run).
		Body(
			app.Header().Class("demo-head").Body(
				app.Div().Body(
					app.H2().Text("Semaphore"),
					app.P().Class("muted").Text(fmt.Sprintf(
						"core.NewSemaphore(%d): %d tasks, each holding one token for %v to %v.",
						DemoLimit, DemoTasks, minTask, maxTask)),
				),
				app.Button().
					ID("run-again").
					Class("button").
					Disabled(!d.mounted).
					Text("Run again").
					OnClick(d.onRunAgain),
			),
			app.Div().Class("counters").Body(
				counter("running", "running", d.count(Running), fmt.Sprintf("of %d", DemoLimit)),
				counter("max-running", "max running", d.maxRunning, fmt.Sprintf("limit %d", DemoLimit)),
				counter("done", "done", d.count(Done), fmt.Sprintf("of %d", DemoTasks)),
			),
			app.Ol().ID("tasks").Class("tasks").Body(
				app.Range(d.tasks).Slice(func(i int) app.UI {
					t := d.tasks[i]
					return app.Li().
						ID(fmt.Sprintf("task-%d", i+1)).
						Class("task", "task-"+string(t.state)).
						DataSet("state", string(t.state)).
						DataSet("ms", t.length.Milliseconds()).
						Body(
							app.Span().Class("task-name").Text(fmt.Sprintf("task %d", i+1)),
							app.Span().Class("task-length").Text(t.length.String()),
							app.Span().Class("task-bar").Body(app.Span().Class("task-fill")),
							app.Span().Class("task-state").Text(string(t.state)),
							app.Span().Class("task-times").Text(t.times()),
						)
				}),
			),
		)
}

func (t taskView) times() string {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2fs", d.Seconds()) }
	switch t.state {
	case Running:
		return "started " + ms(t.start)
	case Done:
		return ms(t.start) + " → " + ms(t.end)
	case Canceled:
		return "canceled " + ms(t.end)
	}
	return ""
}

func counter(id, label string, value int, of string) app.UI {
	return app.Div().Class("counter").Body(
		app.Span().ID(id).Class("counter-value").DataSet("value", value).Text(value),
		app.Span().Class("counter-label").Text(label),
		app.Span().Class("counter-of").Text(of),
	)
}
