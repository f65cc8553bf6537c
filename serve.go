// Command sluice serves the playground: it builds web/app.wasm when it is
// missing or older than its sources, then serves the pages, the wasm and the
// static assets on a loopback address until interrupted.
//
// Usage, from the module root:
//
//	go run .                      # build if stale, serve on http://127.0.0.1:8000
//	go run . -addr 127.0.0.1:0    # any free port; the URL is printed
//	go run . -build               # rebuild web/app.wasm, web/app.wasm.gz and web/gotrace.wasm, exit
//	go run . -export dist         # write the playground as a static site, exit
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"sluice/wasm/ui"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8000", "`host:port` to serve on")
	build := flag.Bool("build", false, "rebuild web/app.wasm, web/app.wasm.gz and web/gotrace.wasm, then exit")
	export := flag.String("export", "", "write the playground as a static site to `dir`, then exit")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("sluice: ")

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *addr, *build, *export); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, addr string, forceBuild bool, export string) error {
	tc, err := checkRoot(".")
	if err != nil {
		return err
	}
	if forceBuild {
		if err := buildWasm(".", tc); err != nil {
			return err
		}
		return buildWorkerWasm(".", tc)
	}
	if err := ensureWasm(".", tc); err != nil {
		return err
	}
	if err := ensureWorkerWasm(".", tc); err != nil {
		return err
	}
	ui.Routes()
	if export != "" {
		return exportStatic(".", export, tc)
	}
	site, err := newSite(".", tc)
	if err != nil {
		return err
	}
	defer site.Close()
	return serve(ctx, addr, site.Handler())
}

// serve listens on addr, prints the playground's URL and serves h until ctx
// ends, then shuts down gracefully.
func serve(ctx context.Context, addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
	}
	fmt.Printf("Sluice playground: http://%s\n", ln.Addr())

	done := make(chan error, 1) // the Serve goroutine's result, read once
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	log.Print("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = srv.Shutdown(shutdownCtx)
	if serveErr := <-done; !errors.Is(serveErr, http.ErrServerClosed) {
		return serveErr
	}
	return err
}
