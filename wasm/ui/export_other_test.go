//go:build !(js && wasm)

package ui

import (
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// PlayFrame runs one frame of a mounted Play as the browser's loop would,
// drawing on a TestPainter, and dispatches its panel; the caller consumes
// the dispatch. Outside the browser there is no frame loop.
func PlayFrame(disp app.Dispatcher, p *Play, real time.Duration) {
	var tp TestPainter
	p.drv.tick(&tp, real, float64(time.Now().UnixMilli()), 960, 300, Point{}, false)
	show := p.takePanels()
	disp.Dispatch(app.Dispatch{Mode: app.Update, Source: p, Function: func(app.Context) { show() }})
}

// PlayLogLen is how many events the page's event log shows.
func PlayLogLen(p *Play) int { return len(p.panel.Log) }
