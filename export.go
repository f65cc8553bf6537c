package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"sluice/wasm/ui"
)

// exportStatic writes the playground to dir as a static site: one HTML file
// per page (index.html, embed.html and embed/index.html), go-app's scripts with the same fixes
// the server applies, the toolchain's wasm_exec.js, and web/ with app.wasm.
// A static host sends its own headers: the Content-Security-Policy and
// gzip encoding are then up to it.
func exportStatic(root, dir string, tc toolchain) error {
	s, err := newSite(root, tc)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := app.GenerateStaticWebsite(dir, s.app, ui.Paths...); err != nil {
		return fmt.Errorf("exporting the static site: %v", err)
	}
	for _, page := range []string{"index.html", "embed.html"} {
		if err := zoomableFile(filepath.Join(dir, page)); err != nil {
			return err
		}
	}
	// Static servers map /embed to embed/index.html (through a redirect to
	// /embed/), not to embed.html: the embed is there too.
	embed, err := os.ReadFile(filepath.Join(dir, "embed.html"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "embed"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "embed", "index.html"), embed, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "app.js"), s.appJS, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "wasm_exec.js"), s.wasmExec, 0o644); err != nil {
		return err
	}
	if err := s.copyWebFiles(filepath.Join(dir, "web")); err != nil {
		return err
	}
	fmt.Printf("Sluice playground exported to %s\n", dir)
	return nil
}
