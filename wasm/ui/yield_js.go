//go:build js && wasm

package ui

import (
	"sync"
	"time"

	"github.com/hack-pad/safejs"
)

// yieldToBrowser hands the page's thread to the browser, which runs what
// waits (input, a frame, the page's render), and returns as soon as it
// has: a message posted to a MessageChannel is a task of its own, which
// nothing delays, where a timer set from a timer waits at least 4 ms
// (HTML's clamp of nested timers), a third of each 10 ms slice of a
// trace's reading. Without a MessageChannel it sleeps a millisecond.
func yieldToBrowser() {
	yield.once.Do(yield.init)
	if yield.port.IsUndefined() {
		time.Sleep(time.Millisecond)
		return
	}
	if _, err := yield.port.Call("postMessage", 0); err != nil {
		time.Sleep(time.Millisecond)
		return
	}
	<-yield.back
}

var yield yielder

// yielder is a MessageChannel whose one port's messages come back on
// back, through the other's onmessage.
type yielder struct {
	once sync.Once
	port safejs.Value // where to post; undefined if there is no MessageChannel
	back chan struct{}
}

func (y *yielder) init() {
	y.back = make(chan struct{}, 64) // a message each yield in flight
	ctor, err := safejs.Global().Get("MessageChannel")
	if err != nil || ctor.Type() != safejs.TypeFunction {
		return
	}
	mc, err := ctor.New()
	if err != nil {
		return
	}
	in, err1 := mc.Get("port1")
	out, err2 := mc.Get("port2")
	if err1 != nil || err2 != nil {
		return
	}
	fn, err := safejs.FuncOf(func(safejs.Value, []safejs.Value) any {
		y.back <- struct{}{}
		return nil
	})
	if err != nil {
		return
	}
	if err := in.Set("onmessage", fn); err != nil {
		return
	}
	y.port = out
}
