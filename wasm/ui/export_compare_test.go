package ui

import (
	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/wasm/sim"
)

// Hooks for the comparison's external tests.

// PlayRunB returns the session of run B of the comparison a mounted Play
// shows, or nil.
func PlayRunB(p *Play) *Session { return p.cmp.sess }

// DiffRows returns the diff table a mounted Play shows.
func DiffRows(p *Play) []DiffRow { return p.cmp.rows }

// DiffTableOf builds the diff table of two sessions' panels now.
func DiffTableOf(a, b *Session) []DiffRow {
	return diffTable(a.Panel(), b.Panel(), a.keyTable(), b.keyTable())
}

// StepBoth steps a comparison's two runs to the earlier of their next
// events.
func StepBoth(a, b *Session) bool { return stepBoth(a, b) }

// StepBackBoth steps a comparison's two runs back.
func StepBackBoth(a, b *Session) bool { return stepBackBoth(a, b) }

// PlayBoth plays or pauses a comparison's two runs.
func PlayBoth(a, b *Session, on bool) error { return setPlayingBoth(a, b, on) }

// ComparisonOf returns the comparison two sessions run.
func ComparisonOf(a, b *Session) sim.Comparison { return comparison(a, b) }

// ApplyCompareLimit sets run B's limit in the "Compare with…" form and
// clicks its button.
func ApplyCompareLimit(disp interface {
	Dispatch(app.Dispatch)
}, p *Play, n int) {
	Act(disp.(app.Dispatcher), p, func(ctx app.Context) {
		p.setDraft(func(d *sim.Scenario) { d.Limit = n })
		p.onCompareStart(ctx, app.Event{})
	})
}

// CancelIn cancels a task in one run of a comparison, as the Cancel of
// that run's details sheet does.
func CancelIn(on, other *Session, name string) error { return cancelIn(on, other, name) }
