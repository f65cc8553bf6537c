// Package ui is the playground's front end: go-app components, the driver
// that runs them against core, and the route table. It is imported by the
// wasm program (wasm/main.go), which renders the pages in the browser, and by
// the server (serve.go), which pre-renders the same pages and must know the
// same routes.
package ui

import "github.com/maxence-charriere/go-app/v9/pkg/app"

// The playground's pages.
const (
	PathPlayground = "/"      // the full playground
	PathEmbed      = "/embed" // the same with minimal chrome, for iframes
)

// Paths lists every page route, for the server and the static export.
var Paths = []string{PathPlayground, PathEmbed}

// Static file servers show the exported pages under other paths too:
// index.html and embed.html, and embed/, a directory holding a copy of
// embed.html that servers reach from /embed. They are routed by pattern,
// so that the static export does not write them again.
const (
	staticPlayground = `^/index\.html$`
	staticEmbed      = `^/embed(\.html|/|/index\.html)$`
)

// Routes registers the playground's pages with go-app. Both the wasm
// program and the server call it once, before serving or running.
func Routes() {
	app.RouteFunc(PathPlayground, func() app.Composer { return &Playground{} })
	app.RouteFunc(PathEmbed, func() app.Composer { return &Embed{} })
	app.RouteWithRegexpFunc(staticPlayground, func() app.Composer { return &Playground{} })
	app.RouteWithRegexpFunc(staticEmbed, func() app.Composer { return &Embed{} })
}
