package ui

import (
	"sync"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// progress is the note on a trace being read, shared by the notes that
// show it. Each note is a component of its own: a progress update
// re-renders the notes alone, not the page, whose render (the code view,
// the link) takes longer than a frame may.
type progress struct {
	mu    sync.Mutex
	text  string
	notes map[*progressNote]app.Context // the mounted notes
}

// set changes the text and updates the notes. Any goroutine may call it.
func (pr *progress) set(text string) {
	pr.mu.Lock()
	pr.text = text
	ctxs := make([]app.Context, 0, len(pr.notes))
	for _, ctx := range pr.notes {
		ctxs = append(ctxs, ctx)
	}
	pr.mu.Unlock()
	for _, ctx := range ctxs {
		ctx.Dispatch(func(app.Context) {})
	}
}

func (pr *progress) get() string {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.text
}

// progressNote shows a progress's text. Its fields are unexported, so
// that a render of the page keeps the mounted note as it is.
type progressNote struct {
	app.Compo
	src     *progress
	id, cls string
	overlay bool // the note over the timeline, with a spinner
}

func (n *progressNote) OnMount(ctx app.Context) {
	n.src.mu.Lock()
	defer n.src.mu.Unlock()
	if n.src.notes == nil {
		n.src.notes = map[*progressNote]app.Context{}
	}
	n.src.notes[n] = ctx
}

func (n *progressNote) OnDismount() {
	n.src.mu.Lock()
	defer n.src.mu.Unlock()
	delete(n.src.notes, n)
}

func (n *progressNote) Render() app.UI {
	text := n.src.get()
	if n.overlay {
		return app.Div().ID(n.id).Class(n.cls).Role("%s", "status").Body(
			app.Span().Class("spinner").Aria("hidden", true),
			app.Span().Text(text),
		)
	}
	return app.P().ID(n.id).Class(n.cls).Text(text)
}
