// Command wasm is the playground's front end, built with GOOS=js
// GOARCH=wasm into web/app.wasm. The pages live in package ui, which the
// server imports too.
package main

import (
	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/wasm/ui"
)

func main() {
	ui.Routes()
	ui.GuardLink() // before go-app reads the URL
	app.RunWhenOnBrowser()
}
