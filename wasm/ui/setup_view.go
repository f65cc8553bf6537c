package ui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/wasm/sim"
)

// SetupPanel is the fields of a scenario's setup: run A's, the Setup card
// of the side column, or with ForB a comparison's run B's, the fields of
// the "Compare with…" card (renderCompareForm), which edit the draft of
// run B, whose IDs start "compare-" and whose labels "Run B's", which
// offer the primitives that take A's work, and which have no idle
// timeout, seed, colour, or groups added or removed: B runs A's work.
//
// It is a child component of Play: go-app renders it again only when one
// of its fields changes, not at each refresh of the counters. It has no
// state of its own: a change goes to the page (setupHost), which runs the
// scenario again and renders the panel with it. A value the page refuses
// gives way, in its field, to the value in effect.
type SetupPanel struct {
	app.Compo

	Scenario sim.Scenario // the setup shown (its work is not read): run A's, or run B's draft
	A        sim.Scenario // with ForB: run A, whose work run B runs
	ForB     bool
	Live     bool // the page runs: the fields take input
	Host     setupHost
}

// setupHost is what SetupPanel asks of the page. An interface value
// holding a pointer, so that go-app finds SetupPanel's fields unchanged.
type setupHost interface {
	// editSetup changes run A's setup and runs it again, or with forB
	// changes the draft of run B; it reports whether the change was
	// refused (the notice says why).
	editSetup(ctx app.Context, forB bool, change func(*sim.Scenario)) (refused bool)
	// setColorBy colours the timeline's bars by "priority" or "key".
	setColorBy(ctx app.Context, by string)
	// fail shows err as the page's notice.
	fail(err error)
}

// setupOnly returns sc without its work (bursts, actions, the person's
// log): what the setup's fields and the burst's check read, which a burst
// added does not change.
func setupOnly(sc sim.Scenario) sim.Scenario {
	sc.Bursts, sc.Actions, sc.Log = nil, nil, nil
	return sc
}

func (s *SetupPanel) Render() app.UI {
	fields := app.Div().Class("fields").Body(s.fields()...)
	if s.ForB {
		return fields
	}
	return app.Section().Class("card").Body(
		app.H2().Class("card-title").Text("Setup"),
		app.P().Class("muted small").Text("Changing the setup restarts the run with the same work."),
		fields,
	)
}

// edit hands change to the page and reports whether it was refused.
func (s *SetupPanel) edit(ctx app.Context, change func(*sim.Scenario)) bool {
	if s.Host == nil {
		return false
	}
	return s.Host.editSetup(ctx, s.ForB, change)
}

func (s *SetupPanel) fail(err error) {
	if s.Host != nil {
		s.Host.fail(err)
	}
}

func (s *SetupPanel) fields() []app.UI {
	sc := s.Scenario
	pre, label := "", func(s string) string { return s }
	if s.ForB {
		pre = "compare-"
		label = func(s string) string { return "Run B's " + strings.ToLower(s) }
	}
	var prims []app.UI
	for _, k := range sim.Kinds() {
		if !s.ForB || k.ID == s.A.Primitive || sim.Fits(s.A, k.ID) {
			prims = append(prims, option(k.ID, k.Title, k.ID == sc.Primitive))
		}
	}
	fields := []app.UI{
		app.Label().Class("field").Body(
			app.Span().Class("field-label").Text(label("Primitive")),
			app.Select().ID(pre+"primitive").Class("select").Disabled(!s.Live).OnChange(func(ctx app.Context, e app.Event) {
				v := ctx.JSSrc().Get("value").String()
				refused := s.edit(ctx, func(sc *sim.Scenario) {
					sc.Primitive = v
					if k := sim.KindOf(v); k != nil && sc.Limit < k.MinLimit {
						// From the keyed queue's "no limit".
						sc.Limit = k.MinLimit
					}
				})
				if refused {
					ctx.JSSrc().Set("value", s.Scenario.Primitive)
				}
			}, pre+"primitive").Body(prims...),
		),
	}
	k := sim.KindOf(sc.Primitive)
	fields = append(fields, s.numField(pre+"limit", label(k.LimitLabel), k.LimitHint, k.MinLimit, sim.MaxLimit,
		func(sc sim.Scenario) int { return sc.Limit },
		func(ctx app.Context, n int) bool { return s.edit(ctx, func(sc *sim.Scenario) { sc.Limit = n }) }))
	if k.Aging {
		fields = append(fields, s.numField(pre+"aging", label("Aging step (ms)"), "WithAging: a waiter rises one priority level per step; 0: off", 0, sim.MaxAgingMS,
			func(sc sim.Scenario) int { return sc.AgingMS },
			func(ctx app.Context, n int) bool { return s.edit(ctx, func(sc *sim.Scenario) { sc.AgingMS = n }) }))
	}
	if k.CapacityLabel != "" {
		fields = append(fields, s.numField(pre+"capacity", label(k.CapacityLabel), k.CapacityHint, 0, sim.MaxCapacity,
			func(sc sim.Scenario) int { return sc.Capacity },
			func(ctx app.Context, n int) bool { return s.edit(ctx, func(sc *sim.Scenario) { sc.Capacity = n }) }))
	}
	if s.ForB {
		if k.HasGroups() {
			fields = append(fields, s.consumers(pre))
		}
		return fields
	}
	if k.Idle {
		fields = append(fields, s.numField("idle", "Idle timeout (ms)", "WithIdleTimeout: a key's lane is evicted after this long idle; 0: 30 s", 0, sim.MaxIdleMS,
			func(sc sim.Scenario) int { return sc.IdleMS },
			func(ctx app.Context, n int) bool { return s.edit(ctx, func(sc *sim.Scenario) { sc.IdleMS = n }) }))
	}
	if k.HasGroups() {
		fields = append(fields, s.consumers(""))
	}
	return append(fields,
		s.numField("seed", "Random seed", "the same seed draws the same tasks", 0, 1<<53,
			func(sc sim.Scenario) int { return int(min(sc.Seed, 1<<53)) },
			func(ctx app.Context, n int) bool {
				if n < 0 {
					s.fail(fmt.Errorf("the seed must be 0 or more; it is %d", n))
					return true
				}
				return s.edit(ctx, func(sc *sim.Scenario) { sc.Seed = uint64(n) })
			}),
		app.Label().Class("field").Body(
			app.Span().Class("field-label").Text("Colour bars by"),
			app.Select().ID("color-by").Class("select").Disabled(!s.Live).OnChange(func(ctx app.Context, e app.Event) {
				if s.Host != nil {
					s.Host.setColorBy(ctx, ctx.JSSrc().Get("value").String())
				}
			}, "color-by").Body(
				option("priority", "priority", sc.ColorBy != "key"),
				option("key", "key / consumer", sc.ColorBy == "key"),
			),
		),
	)
}

// numField is a labelled number input of the setup, showing what value
// reads from it; its change calls set with the number, or says that it
// is not one. A value refused (set reports it) gives way to the value of
// the setup in effect, so that nothing refused stays in the form.
//
// go-app keeps the handler the input was first mounted with (its scope
// is id), so the handler reads the setup in effect from the panel when it
// runs, not from the render that made it.
func (s *SetupPanel) numField(id, label, hint string, lo, hi int, value func(sim.Scenario) int, set func(ctx app.Context, n int) (refused bool)) app.UI {
	return numInput(id, label, hint, value(s.Scenario), lo, hi, "", s.Live, func(ctx app.Context, e app.Event) {
		v := strings.TrimSpace(ctx.JSSrc().Get("value").String())
		n, err := strconv.Atoi(v)
		refused := err != nil
		if refused {
			s.fail(fmt.Errorf("%s must be a whole number; %q is not one", strings.ToLower(label), truncate(v, 20)))
		} else {
			refused = set(ctx, n)
		}
		if refused {
			ctx.JSSrc().Set("value", value(s.Scenario))
		}
	})
}

// consumers draws the list of consumers (consume) or work queues
// (shared) that share the semaphore: each one's concurrency or
// parallelism, and its priority.
//
// pre starts the IDs of its fields: run A's (""), or a comparison's run
// B's ("compare-"), whose groups cannot be added or removed, since run B
// runs run A's work.
func (s *SetupPanel) consumers(pre string) app.UI {
	sc := s.Scenario
	k := sim.KindOf(sc.Primitive)
	unit, size, sizeTitle, label := k.Groups, k.GroupSize, k.GroupSizeTitle, k.GroupsLabel
	var rows []app.UI
	for i, c := range sc.Consumers {
		name := k.GroupName(i)
		rows = append(rows, app.Div().Class("consumer-row").Body(
			app.Span().Class("consumer-name").Text(name),
			app.Input().Type("number").ID(fmt.Sprintf("%s%s-%d-%s", pre, unit, i+1, size)).Class("input input-small").
				Min(1).Max(sim.MaxConcurrency).Value(c.Concurrency).Title("%s", sizeTitle).
				Aria("label", strings.Replace(pre, "compare-", "Run B's ", 1)+name+" "+size).Disabled(!s.Live).
				OnChange(func(ctx app.Context, e app.Event) {
					n, err := strconv.Atoi(strings.TrimSpace(ctx.JSSrc().Get("value").String()))
					if err != nil {
						s.fail(fmt.Errorf("a %s's %s must be a whole number", unit, size))
						s.keepGroupField(ctx, i, func(c sim.Consumer) int { return c.Concurrency })
						return
					}
					if s.edit(ctx, func(sc *sim.Scenario) {
						if i < len(sc.Consumers) {
							sc.Consumers[i].Concurrency = n
						}
					}) {
						s.keepGroupField(ctx, i, func(c sim.Consumer) int { return c.Concurrency })
					}
				}, "conc", unit, i), // the unit too: a handler is kept while its scope is the same
			app.Input().Type("number").ID(fmt.Sprintf("%s%s-%d-priority", pre, unit, i+1)).Class("input input-small").
				Step(1).Value(c.Priority).Title("%s", "WithPriority: any whole number; 1 High, 0 Normal, -1 Low").
				Aria("label", strings.Replace(pre, "compare-", "Run B's ", 1)+name+" priority").Disabled(!s.Live).
				OnChange(func(ctx app.Context, e app.Event) {
					v := strings.TrimSpace(ctx.JSSrc().Get("value").String())
					n, err := strconv.Atoi(v)
					if err != nil {
						s.fail(fmt.Errorf("a %s's priority must be a whole number, such as 1 (High), 0 (Normal), -1 (Low) or 100; %q is not one", unit, truncate(v, 20)))
						s.keepGroupField(ctx, i, func(c sim.Consumer) int { return c.Priority })
						return
					}
					if s.edit(ctx, func(sc *sim.Scenario) {
						if i < len(sc.Consumers) {
							sc.Consumers[i].Priority = n
						}
					}) {
						s.keepGroupField(ctx, i, func(c sim.Consumer) int { return c.Priority })
					}
				}, "prio", unit, i),
			app.If(pre == "", app.Button().Class("btn btn-small").Disabled(!s.Live || len(sc.Consumers) <= 1).Aria("label", "Remove "+name).Text("×").
				OnClick(func(ctx app.Context, e app.Event) {
					s.edit(ctx, func(sc *sim.Scenario) {
						if i < len(sc.Consumers) && len(sc.Consumers) > 1 {
							sc.Consumers = append(sc.Consumers[:i], sc.Consumers[i+1:]...)
						}
					})
				}, "remove", i)),
		))
	}
	return app.Div().Class("field").Body(
		app.Span().Class("field-label").Text(label),
		app.Div().Class("consumers").Body(rows...),
		app.If(pre == "", app.Button().ID("add-"+unit).Class("btn btn-small").Disabled(!s.Live || len(sc.Consumers) >= sim.MaxConsumers).
			Text("+ "+unit).OnClick(func(ctx app.Context, e app.Event) {
			s.edit(ctx, func(sc *sim.Scenario) {
				if len(sc.Consumers) < sim.MaxConsumers {
					sc.Consumers = append(sc.Consumers, sim.Consumer{Concurrency: 2})
				}
			})
		})),
	)
}

// keepGroupField puts back, in the group field whose change was refused,
// the value in effect for group i.
func (s *SetupPanel) keepGroupField(ctx app.Context, i int, value func(sim.Consumer) int) {
	if cs := s.Scenario.Consumers; i < len(cs) {
		ctx.JSSrc().Set("value", value(cs[i]))
	}
}

// numInput is a labelled number input, marked invalid for problem bad
// (shown under it) when bad is not "", whose change calls change.
func numInput(id, label, hint string, value, lo, hi int, bad string, live bool, change app.EventHandler) app.UI {
	in := app.Input().Type("number").ID(id).Class("input").Min(lo).Max(hi).Step(1).Value(value).
		Disabled(!live).OnChange(change, id)
	return field(label, in, id, bad, hint)
}

// field labels input in (whose ID is id), marked invalid for problem bad
// (shown under it) when bad is not "", with hint under it if not "".
func field(label string, in app.HTMLInput, id, bad, hint string) app.UI {
	in = in.Aria("invalid", bad != "")
	if bad != "" {
		in = in.Aria("describedby", id+"-error")
	}
	var hintUI app.UI
	if hint != "" {
		hintUI = app.Span().Class("field-hint").Text(hint)
	}
	return app.Label().Class("field").Body(
		app.Span().Class("field-label").Text(label),
		in,
		fieldError(id, bad),
		hintUI,
	)
}

// fieldError is the problem of input id, shown under it, or nothing.
func fieldError(id, problem string) app.UI {
	if problem == "" {
		return nil
	}
	return app.Span().ID(id + "-error").Class("field-error").Text(problem)
}

// pageContext is the context of a child component's event handler as the
// page (Play) uses it when the child calls back into it: what the page
// dispatches from it (ctx.Dispatch, ctx.Defer) has the page as its
// source, so that the page renders again once it ran, as after its own
// handlers, and it runs even if the element used has left the page
// meanwhile (go-app drops what is dispatched from an element no longer in
// the page).
type pageContext struct {
	app.Context
	page app.UI
}

func (c pageContext) Dispatch(fn func(app.Context)) {
	c.Dispatcher().Dispatch(app.Dispatch{Mode: app.Update, Source: c.page, Function: fn})
}

func (c pageContext) Defer(fn func(app.Context)) {
	c.Dispatcher().Dispatch(app.Dispatch{Mode: app.Defer, Source: c.page, Function: fn})
}
