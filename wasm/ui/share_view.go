package ui

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/wasm/sim"
)

// SharePanel is the "Share and trace" card: Copy link and Copy embed
// snippet, which put the scenario's link, or an iframe that embeds it, on
// the clipboard and show it in the card, so that it can be copied by hand
// when the browser refuses; Download trace; Load trace. It is a child
// component of Play that keeps the link and the snippet last copied (its
// own state); go-app renders it again only when one of its fields
// changes. The page copies, saves and reads files (shareHost).
type SharePanel struct {
	app.Compo

	Live     bool      // the page runs: the buttons work
	Linkable bool      // a scenario is shown, not a loaded trace: it has a link
	Link     string    // the encoded scenario in the address bar
	Prefix   string    // what starts it in a link: sim.LinkPrefix, or sim.ComparePrefix for a comparison
	Moment   string    // the moment in the address bar ("&t=…"), or ""
	Reading  string    // the name of a trace file being read, or ""
	Progress *progress // the note on its reading
	Host     shareHost

	share   string // the link shown after "Copy link"
	snippet string // the snippet shown after "Copy embed snippet"
}

// shareHost is what SharePanel asks of the page. An interface value
// holding a pointer, so that go-app finds SharePanel's fields unchanged.
type shareHost interface {
	copier
	// onDownload saves the run's trace; onLoadTrace reads the file its
	// event's input holds as a trace and shows it.
	onDownload(ctx app.Context, e app.Event)
	onLoadTrace(ctx app.Context, e app.Event)
}

func (s *SharePanel) Render() app.UI {
	live := s.Live
	// A loaded trace has no scenario to link to or embed: the link and the
	// snippet would open the live scenario, not what the timeline shows.
	linkable := live && s.Linkable
	var out []app.UI
	if !linkable && live {
		out = append(out, app.P().ID("share-replay").Class("muted").Text(
			"A loaded trace has no link or embed snippet: they carry a scenario, and a trace is a recording. "+
				"Download trace saves it again; Back to live returns to your scenario and its link."))
	}
	if s.share != "" && linkable {
		out = append(out, app.Label().Class("field field-wide").Body(
			app.Span().Class("field-label").Text("Link to this scenario"),
			app.Input().Type("text").ID("share-link").Class("mono").ReadOnly(true).Value(s.share),
		))
	}
	if s.snippet != "" && linkable {
		out = append(out, app.Label().Class("field field-wide").Body(
			app.Span().Class("field-label").Text("Embed snippet"),
			app.Textarea().ID("embed-snippet").Class("mono").ReadOnly(true).Rows(8).Text(s.snippet),
		))
	}
	if s.Reading != "" && s.Progress != nil {
		out = append(out, &progressNote{src: s.Progress, id: "reading", cls: "muted"})
	}
	return app.Section().Class("card share").Body(
		app.H2().Class("card-title").Text("Share and trace"),
		app.Div().Class("share-buttons").Body(
			app.Button().ID("copy-link").Class("btn").Disabled(!linkable).Text("Copy link").OnClick(s.onCopyLink),
			app.Button().ID("copy-embed").Class("btn").Disabled(!linkable).Text("Copy embed snippet").OnClick(s.onCopyEmbed),
			app.Button().ID("download-trace").Class("btn").Disabled(!live).
				Title("%s", "Chrome Trace Event JSON: open it in ui.perfetto.dev or chrome://tracing").
				Text("Download trace").OnClick(s.onDownload),
			app.Label().Class("btn file-btn").For("load-trace").Body(
				app.Text("Load trace…"),
				app.Input().Type("file").ID("load-trace").Class("file-input").Accept("%s", ".json,.out,.trace,application/json,application/octet-stream").
					Disabled(!live).OnChange(s.onLoadTrace),
			),
		),
		app.P().Class("muted small").Text("The link holds the whole scenario, your bursts and clicks included, so it replays the run. "+
			"A trace opens in Perfetto; a trace loaded here replays read-only."),
		app.Div().Class("share-out").Body(out...),
	)
}

// query is what follows a page's path in the scenario's link: its
// version, its moment and the scenario.
func (s *SharePanel) query() string {
	return "?v=" + strconv.Itoa(sim.Version) + s.Moment + s.Prefix + s.Link
}

func (s *SharePanel) onCopyLink(ctx app.Context, e app.Event) {
	path, _, _ := location()
	s.share = origin() + path + s.query()
	if s.Host != nil {
		s.Host.copy(ctx, s.share, "Link copied: it opens this scenario as it is now.")
	}
}

func (s *SharePanel) onCopyEmbed(ctx app.Context, e app.Event) {
	path, _, _ := location()
	s.snippet = embedSnippet(embedURL(path) + s.query())
	if s.Host != nil {
		s.Host.copy(ctx, s.snippet, "Embed snippet copied: paste it into a documentation page.")
	}
}

func (s *SharePanel) onDownload(ctx app.Context, e app.Event) {
	if s.Host != nil {
		s.Host.onDownload(ctx, e)
	}
}

func (s *SharePanel) onLoadTrace(ctx app.Context, e app.Event) {
	if s.Host != nil {
		s.Host.onLoadTrace(ctx, e)
	}
}
