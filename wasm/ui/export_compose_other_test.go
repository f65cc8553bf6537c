//go:build !(js && wasm)

package ui

import (
	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/wasm/sim"
)

// SubmitBurst sets the composer's burst to b and presses "Add burst", as
// a person would; the caller consumes the dispatch.
func SubmitBurst(disp app.Dispatcher, p *Play, b sim.Burst) {
	actComposer(disp, p, func(ctx app.Context, c *Composer) {
		c.form = b
		c.onAddBurst(ctx, app.Event{})
	})
}

// ToggleCompose presses "Burst settings"; the caller consumes the
// dispatch.
func ToggleCompose(disp app.Dispatcher, p *Play) {
	actComposer(disp, p, func(ctx app.Context, c *Composer) { c.onToggle(ctx, app.Event{}) })
}
