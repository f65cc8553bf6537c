//go:build !(js && wasm)

package ui

import (
	"fmt"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// startLoop does nothing outside the browser: tests move the session and
// draw frames themselves.
func startLoop(app.Context, *Play) func() { return nil }

// onDownload writes the trace; outside the browser there is nowhere to
// save it, so it only reports its size.
func (p *Play) onDownload(ctx app.Context, e app.Event) {
	if p.sess == nil {
		return
	}
	ctx = pageContext{ctx, p} // SharePanel's handler
	ctx.Async(func() {
		data, name, err := p.traceBytes()
		ctx.Dispatch(func(app.Context) {
			if err != nil {
				p.fail(err)
				return
			}
			p.notice = notice{fmt.Sprintf("Saved %s (%d bytes).", name, len(data)), "ok"}
		})
	})
}

// onLoadTrace needs a browser's file input.
func (p *Play) onLoadTrace(ctx app.Context, e app.Event) {}
