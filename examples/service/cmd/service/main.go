// Command service runs the example service (sluice/examples/service) and,
// with -load, a load generator against it.
//
//	go run ./cmd/service -addr 127.0.0.1:8080 -snapshots /tmp/snaps -load 30s
//
// Then open a snapshot (trace-N.out) in the playground, go tool trace or
// gotraceui, and scrape http://127.0.0.1:8080/metrics.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	"sluice/examples/service"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	snaps := flag.String("snapshots", "", "directory for flight-recorder snapshots; empty: no flight recorder")
	threshold := flag.Duration("threshold", 100*time.Millisecond, "a wait longer than this writes a snapshot")
	load := flag.Duration("load", 0, "run a load generator for this long, then exit; 0: serve until interrupted")
	clients := flag.Int("clients", 16, "the load generator's concurrent clients")
	flag.Parse()

	svc, err := service.New(service.Config{SnapshotDir: *snaps, WaitThreshold: *threshold, SnapshotDelay: time.Second})
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: svc.Handler()}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Printf("serving on http://%s\n", ln.Addr())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *load > 0 {
		lctx, cancel := context.WithTimeout(ctx, *load)
		st := service.Load(lctx, http.DefaultClient, "http://"+ln.Addr().String(), service.LoadConfig{Clients: *clients})
		cancel()
		fmt.Printf("load: %d requests, by status %v\n", st.Requests, st.ByStatus)
	} else {
		<-ctx.Done()
	}
	srv.Shutdown(context.Background())
	<-served
	svc.Close()
	for _, s := range svc.Snapshots() {
		fmt.Println("snapshot:", s)
	}
}
