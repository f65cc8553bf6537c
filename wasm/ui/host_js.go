//go:build js && wasm

package ui

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"time"

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
	// The content's height, not the document's: the document is at
	// least as tall as the iframe, so its height would only ever grow.
	root, err := doc.Call("querySelector", "#playground")
	if err != nil || root.IsNull() {
		if root, err = doc.Get("body"); err != nil {
			return nil, err
		}
	}
	last := -1
	post := func() error {
		rect, err := root.Call("getBoundingClientRect")
		if err != nil {
			return err
		}
		bottom, scrollY := num(rect, "bottom"), num(win, "scrollY")
		height := int(math.Ceil(bottom + scrollY + 1))
		if height == last {
			return nil
		}
		last = height
		return postToParent(map[string]any{"sluice": "height", "height": height})
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

// postToParent posts msg to the page that frames this one, whatever its
// origin: the messages say nothing private. It does nothing when the page
// is not framed.
func postToParent(msg map[string]any) error {
	win := safejs.Global()
	parent, err := win.Get("parent")
	if err != nil || parent.Equal(win) {
		return err
	}
	v, err := safejs.ValueOf(msg)
	if err != nil {
		return err
	}
	_, err = parent.Call("postMessage", v, "*")
	return err
}

// listenHost calls handle with each command the framing page posts: an
// object {sluice: kind, ...}. Other messages are ignored. The listener
// only reads the message; handle must not block. stop ends the listening.
func listenHost(handle func(hostMessage)) (stop func(), err error) {
	win := safejs.Global()
	fn, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		if len(args) == 0 {
			return nil
		}
		data, err := args[0].Get("data")
		if err != nil || data.Type() != safejs.TypeObject || data.IsNull() {
			return nil
		}
		var m hostMessage
		m.Kind = stringField(data, "sluice")
		if m.Kind == "" || m.Kind == "height" || m.Kind == "pong" || m.Kind == "state" || m.Kind == "error" {
			return nil // not a command, or the embed's own message echoed
		}
		m.Preset = stringField(data, "preset")
		m.Scenario = stringField(data, "scenario")
		if v, err := data.Get("speed"); err == nil && v.Type() == safejs.TypeNumber {
			m.Speed, _ = v.Float()
		}
		handle(m)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if _, err := win.Call("addEventListener", "message", fn); err != nil {
		fn.Release()
		return nil, err
	}
	return func() {
		win.Call("removeEventListener", "message", fn)
		fn.Release()
	}, nil
}

// stringField returns v[name] if it is a string no longer than a link may
// be, else "".
func stringField(v safejs.Value, name string) string {
	f, err := v.Get(name)
	if err != nil || f.Type() != safejs.TypeString {
		return ""
	}
	s, err := f.String()
	if err != nil || len(s) > 1<<16 {
		return ""
	}
	return s
}

// focusTimeline gives the keyboard focus back to the timeline's canvas.
func focusTimeline() {
	doc, err := safejs.Global().Get("document")
	if err != nil {
		return
	}
	c, err := doc.Call("querySelector", "canvas.timeline")
	if err == nil && !c.IsNull() {
		c.Call("focus")
	}
}

// revealElement scrolls the element with the given ID into view, as
// little as it takes, and focuses it if focus.
func revealElement(id string, focus bool) {
	doc, err := safejs.Global().Get("document")
	if err != nil {
		return
	}
	el, err := doc.Call("getElementById", id)
	if err != nil || el.IsNull() {
		return
	}
	opts, err := safejs.ValueOf(map[string]any{"block": "nearest", "behavior": "auto"})
	if err != nil {
		return
	}
	el.Call("scrollIntoView", opts)
	if focus {
		el.Call("focus")
	}
}

// location returns the page's path, query and hash (with "#").
func location() (path, query, hash string) {
	loc, err := safejs.Global().Get("location")
	if err != nil {
		return "/", "", ""
	}
	get := func(name string) string {
		v, err := loc.Get(name)
		if err != nil {
			return ""
		}
		s, _ := v.String()
		return s
	}
	return get("pathname"), get("search"), get("hash")
}

// origin returns the page's origin, such as http://127.0.0.1:8000.
func origin() string {
	loc, err := safejs.Global().Get("location")
	if err != nil {
		return ""
	}
	v, err := loc.Get("origin")
	if err != nil {
		return ""
	}
	s, _ := v.String()
	return s
}

// replaceURL replaces the page's URL in the history without navigating.
func replaceURL(url string) {
	h, err := safejs.Global().Get("history")
	if err == nil {
		h.Call("replaceState", safejs.Null(), "", url)
	}
}

// copyText puts s on the clipboard. It does not block: done is called with
// the outcome, from a promise callback, and must not block either.
func copyText(s string, done func(error)) {
	fail := func(err error) { done(fmt.Errorf("the browser refused to copy: %v", err)) }
	nav, err := safejs.Global().Get("navigator")
	if err != nil {
		fail(err)
		return
	}
	clip, err := nav.Get("clipboard")
	if err != nil || clip.IsUndefined() || clip.IsNull() {
		fail(errors.New("no clipboard"))
		return
	}
	p, err := clip.Call("writeText", s)
	if err != nil {
		fail(err)
		return
	}
	then(p, func(safejs.Value) { done(nil) }, func(v safejs.Value) {
		msg, _ := v.Call("toString")
		text, _ := msg.String()
		fail(errors.New(text))
	})
}

// then calls ok or fail, once, when promise p settles, and releases the
// callbacks. The callbacks run as JS callbacks: they must not block.
func then(p safejs.Value, ok, fail func(safejs.Value)) {
	var okFn, failFn safejs.Func
	release := func() {
		okFn.Release()
		failFn.Release()
	}
	okFn, _ = safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		release()
		ok(arg0(args))
		return nil
	})
	failFn, _ = safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		release()
		fail(arg0(args))
		return nil
	})
	if _, err := p.Call("then", okFn, failFn); err != nil {
		release()
		fail(safejs.Undefined())
	}
}

func arg0(args []safejs.Value) safejs.Value {
	if len(args) == 0 {
		return safejs.Undefined()
	}
	return args[0]
}

// await blocks until promise p settles and returns its value or an error.
// It must be called from a goroutine of its own, never from a JS callback
// or an event handler.
func await(p safejs.Value) (safejs.Value, error) {
	type result struct {
		v   safejs.Value
		err error
	}
	ch := make(chan result, 1) // written once by a callback that must not block
	then(p, func(v safejs.Value) { ch <- result{v: v} }, func(v safejs.Value) {
		msg := "the browser refused"
		if s, err := v.Call("toString"); err == nil {
			msg, _ = s.String()
		}
		ch <- result{err: errors.New(msg)}
	})
	r := <-ch
	return r.v, r.err
}

// download offers data to the person as a file named name.
func download(name, mime string, data []byte) error {
	win := safejs.Global()
	u8, err := win.Get("Uint8Array")
	if err != nil {
		return err
	}
	arr, err := u8.New(len(data))
	if err != nil {
		return err
	}
	if _, err := safejs.CopyBytesToJS(arr, data); err != nil {
		return err
	}
	blobCtor, err := win.Get("Blob")
	if err != nil {
		return err
	}
	opts, err := safejs.ValueOf(map[string]any{"type": mime})
	if err != nil {
		return err
	}
	parts, err := safejs.ValueOf([]any{safejs.Unsafe(arr)})
	if err != nil {
		return err
	}
	blob, err := blobCtor.New(parts, opts)
	if err != nil {
		return err
	}
	urlAPI, err := win.Get("URL")
	if err != nil {
		return err
	}
	href, err := urlAPI.Call("createObjectURL", blob)
	if err != nil {
		return err
	}
	doc, _ := win.Get("document")
	a, err := doc.Call("createElement", "a")
	if err != nil {
		return err
	}
	a.Set("href", href)
	a.Set("download", name)
	body, _ := doc.Get("body")
	body.Call("appendChild", a)
	a.Call("click")
	body.Call("removeChild", a)
	// The browser reads the object URL after click returns: it is let go
	// at the next download instead of now.
	lastDownload.Lock()
	defer lastDownload.Unlock()
	if lastDownload.set {
		urlAPI.Call("revokeObjectURL", lastDownload.href)
	}
	lastDownload.href, lastDownload.set = href, true
	return nil
}

// lastDownload is the object URL of the last download.
var lastDownload struct {
	sync.Mutex
	href safejs.Value
	set  bool
}

// fileOf returns the first file chosen in a file input, its name and size.
func fileOf(input safejs.Value) (file safejs.Value, name string, size int64, ok bool) {
	files, err := input.Get("files")
	if err != nil || files.IsNull() || files.IsUndefined() {
		return safejs.Undefined(), "", 0, false
	}
	n, err := files.Length()
	if err != nil || n == 0 {
		return safejs.Undefined(), "", 0, false
	}
	f, err := files.Index(0)
	if err != nil {
		return safejs.Undefined(), "", 0, false
	}
	nv, _ := f.Get("name")
	name, _ = nv.String()
	sv, _ := f.Get("size")
	sz, _ := sv.Float()
	return f, name, int64(sz), true
}

// fileReader reads a browser File in slices, yielding to the browser
// between them, so that reading and parsing a large file never freezes
// the tab. It must be used from a goroutine of its own.
type fileReader struct {
	file       safejs.Value
	off, size  int64
	buf        []byte
	progress   func(read, size int64)
	lastYield  time.Time
	chunkBytes int64
}

func newFileReader(file safejs.Value, size int64, progress func(read, size int64)) *fileReader {
	return &fileReader{file: file, size: size, progress: progress, chunkBytes: 4 << 20}
}

// Len returns how many bytes are left to read, so that a reader of the
// whole file (trace.ReadJSON) holds it in one buffer of its size.
func (r *fileReader) Len() int { return int(r.size-r.off) + len(r.buf) }

// Read reads the next slice of the file, into p itself when it has room,
// so that the file is not copied twice.
func (r *fileReader) Read(p []byte) (int, error) {
	if len(r.buf) == 0 {
		if r.off >= r.size {
			return 0, io.EOF
		}
		end := min(r.off+r.chunkBytes, r.size)
		blob, err := r.file.Call("slice", float64(r.off), float64(end))
		if err != nil {
			return 0, err
		}
		promise, err := blob.Call("arrayBuffer")
		if err != nil {
			return 0, err
		}
		ab, err := await(promise)
		if err != nil {
			return 0, fmt.Errorf("reading the file: %v", err)
		}
		u8, err := safejs.Global().Get("Uint8Array")
		if err != nil {
			return 0, err
		}
		arr, err := u8.New(ab)
		if err != nil {
			return 0, err
		}
		dst := p
		if int64(len(p)) < end-r.off {
			r.buf = make([]byte, end-r.off)
			dst = r.buf
		}
		n, err := safejs.CopyBytesToGo(dst, arr)
		if err != nil {
			r.buf = nil
			return 0, err
		}
		r.off = end
		if r.progress != nil {
			r.progress(r.off, r.size)
		}
		// Awaiting the slice let the browser run; parsing what was read
		// does not, so it yields too.
		yieldToBrowser()
		if len(r.buf) == 0 {
			return n, nil
		}
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// perfNow returns performance.now(), in milliseconds.
func perfNow() float64 {
	perf, err := safejs.Global().Get("performance")
	if err != nil {
		return 0
	}
	v, err := perf.Call("now")
	if err != nil {
		return 0
	}
	f, _ := v.Float()
	return f
}

// perfMark records a performance mark, for the perf probe.
func perfMark(name string) {
	if perf, err := safejs.Global().Get("performance"); err == nil {
		perf.Call("mark", name)
	}
}

// embedURL returns the URL of the embed next to the current page, for a
// snippet: /embed on the server, embed.html beside a static export's
// .html pages.
func embedURL(path string) string {
	dir := path[:strings.LastIndexByte(path, '/')+1]
	if strings.HasSuffix(path, ".html") {
		return origin() + dir + "embed.html"
	}
	if strings.HasSuffix(strings.TrimSuffix(path, "/"), "/embed") {
		return origin() + strings.TrimSuffix(path, "/")
	}
	return origin() + dir + "embed"
}

// GuardLink repairs the page's link before go-app reads it, and again
// before go-app reads each history change: a "%" of the fragment that
// starts no escape would make go-app's URL parse fail and the page crash
// on start (see repairLink). The repaired link replaces the page's in
// the history, without navigating, and the page says the link was
// damaged. Call it once, before app.RunWhenOnBrowser: its popstate
// listener must come before go-app's.
func GuardLink() {
	guard := func() {
		loc, err := safejs.Global().Get("location")
		if err != nil {
			return
		}
		v, err := loc.Get("href")
		if err != nil {
			return
		}
		href, err := v.String()
		if err != nil {
			return
		}
		if fixed, changed := repairLink(href); changed {
			linkRepaired.Store(true)
			replaceURL(fixed)
		}
	}
	guard()
	fn, err := safejs.FuncOf(func(safejs.Value, []safejs.Value) any {
		guard() // reads and rewrites the location only: never blocks
		return nil
	})
	if err != nil {
		return
	}
	// Never released: the listener lives as long as the page.
	safejs.Global().Call("addEventListener", "popstate", fn)
}
