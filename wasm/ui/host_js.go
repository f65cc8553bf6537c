//go:build js && wasm

package ui

import (
	"errors"

	"github.com/hack-pad/safejs"
)

// watchHeight reports the document's height to the page that frames this
// one, now and whenever it changes, so that the host can size its iframe: it
// posts {sluice: "height", height: N} to window.parent. It does nothing when
// the page is not framed. The observer's callback only reads the height and
// posts a message; it never blocks. stop ends the watch.
func watchHeight() (stop func(), err error) {
	win := safejs.Global()
	parent, err := win.Get("parent")
	if err != nil {
		return nil, err
	}
	if parent.Equal(win) {
		return func() {}, nil
	}
	doc, err := win.Get("document")
	if err != nil {
		return nil, err
	}
	root, err := doc.Get("documentElement")
	if err != nil {
		return nil, err
	}
	post := func() error {
		h, err := root.Get("scrollHeight")
		if err != nil {
			return err
		}
		height, err := h.Int()
		if err != nil {
			return err
		}
		msg, err := safejs.ValueOf(map[string]any{"sluice": "height", "height": height})
		if err != nil {
			return err
		}
		_, err = parent.Call("postMessage", msg, "*")
		return err
	}
	fn, err := safejs.FuncOf(func(safejs.Value, []safejs.Value) any {
		post() // a failed post is retried on the next resize
		return nil
	})
	if err != nil {
		return nil, err
	}
	ctor, err := win.Get("ResizeObserver")
	if err != nil || ctor.IsUndefined() {
		fn.Release()
		return nil, errors.Join(errors.New("ResizeObserver is not available"), err)
	}
	observer, err := ctor.New(fn.Value())
	if err == nil {
		_, err = observer.Call("observe", root)
	}
	if err != nil {
		fn.Release()
		return nil, err
	}
	return func() {
		observer.Call("disconnect")
		fn.Release()
	}, post()
}
