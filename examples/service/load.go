package service

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// LoadConfig shapes a load generator's traffic.
type LoadConfig struct {
	Clients   int           // concurrent clients; default 8
	Customers int           // distinct customers of /orders; default 20
	MaxWork   time.Duration // a request's work is uniform in [0, MaxWork); default 20 ms
	Seed      uint64        // of the random choices
}

// LoadStats counts what a load generator sent and how it was answered.
type LoadStats struct {
	Requests int
	ByStatus map[int]int
}

// Load sends requests to the service at base (such as
// "http://127.0.0.1:8080") until ctx ends: each client in turn posts a job
// (a quarter high priority, a quarter low) or an order of a random
// customer, and waits for the answer. It returns what was sent, and
// blocks until every client has stopped.
func Load(ctx context.Context, client *http.Client, base string, cfg LoadConfig) LoadStats {
	if cfg.Clients <= 0 {
		cfg.Clients = 8
	}
	if cfg.Customers <= 0 {
		cfg.Customers = 20
	}
	if cfg.MaxWork <= 0 {
		cfg.MaxWork = 20 * time.Millisecond
	}
	var (
		mu    sync.Mutex
		stats = LoadStats{ByStatus: map[int]int{}}
		wg    sync.WaitGroup
	)
	for c := range cfg.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(cfg.Seed, uint64(c)))
			for ctx.Err() == nil {
				ms := rng.Int64N(int64(cfg.MaxWork/time.Millisecond) + 1)
				var u string
				if rng.IntN(2) == 0 {
					prio := [...]string{"high", "normal", "normal", "low"}[rng.IntN(4)]
					u = fmt.Sprintf("%s/jobs?priority=%s&ms=%d", base, prio, ms)
				} else {
					u = fmt.Sprintf("%s/orders?customer=%s&ms=%d", base, url.QueryEscape(fmt.Sprint("c", rng.IntN(cfg.Customers))), ms)
				}
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, nil)
				if err != nil {
					return
				}
				resp, err := client.Do(req)
				status := 0
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					status = resp.StatusCode
				}
				if ctx.Err() != nil {
					return
				}
				mu.Lock()
				stats.Requests++
				stats.ByStatus[status]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return stats
}
