//go:build js && wasm

package ui

import "github.com/hack-pad/safejs"

// CanvasData returns a data attribute of the Play's timeline canvas, as
// the frame loop publishes it.
func CanvasData(p *Play, key string) string {
	root := safejs.Safe(appJSValue(p))
	canvas, err := root.Call("querySelector", "canvas.timeline")
	if err != nil || canvas.IsNull() {
		return ""
	}
	ds, err := canvas.Get("dataset")
	if err != nil {
		return ""
	}
	v, err := ds.Get(key)
	if err != nil || v.IsUndefined() {
		return ""
	}
	s, _ := v.String()
	return s
}
