package rabbitmq_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"sluice/rabbitmq"
)

// reconnectWaits publishes to a port where nothing listens, in a synctest
// bubble (time only moves when every goroutine waits), and returns the
// waits between the failed dials that OnConnectionError reports.
func reconnectWaits(t *testing.T, opts ...rabbitmq.Option) []time.Duration {
	var mu sync.Mutex
	var at []time.Time
	opts = append(opts, rabbitmq.OnConnectionError(func(error) {
		mu.Lock()
		at = append(at, time.Now())
		mu.Unlock()
	}))
	p := rabbitmq.NewPublisher("amqp://guest:guest@127.0.0.1:1/", opts...)
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	p.Publish(ctx, "", "q", amqp.Publishing{})
	mu.Lock()
	defer mu.Unlock()
	var waits []time.Duration
	for i := 1; i < len(at); i++ {
		waits = append(waits, at[i].Sub(at[i-1]))
	}
	return waits
}

// TestBackoffJitter: the waits between reconnection attempts double from
// WithBackoff's min up to its max; with jitter (the default) each is drawn
// from [b/2, b], without it each is b.
func TestBackoffJitter(t *testing.T) {
	t.Run("without jitter", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			waits := reconnectWaits(t, rabbitmq.WithBackoff(100*time.Millisecond, 400*time.Millisecond), rabbitmq.WithJitter(false))
			want := []time.Duration{100, 200, 400, 400}
			for i := range want {
				want[i] *= time.Millisecond
			}
			if len(waits) < len(want) || !slices.Equal(waits[:len(want)], want) {
				t.Errorf("waits: got %v, want %v first", waits, want)
			}
		})
	})
	t.Run("with jitter", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			const b = 100 * time.Millisecond
			waits := reconnectWaits(t, rabbitmq.WithBackoff(b, b))
			if len(waits) < 10 {
				t.Fatalf("waits: got %v, want at least 10 in 2 s", waits)
			}
			distinct := map[time.Duration]bool{}
			for _, w := range waits {
				if w < b/2 || w > b {
					t.Errorf("wait %v: want within [%v, %v]", w, b/2, b)
				}
				distinct[w] = true
			}
			if len(distinct) < 2 {
				t.Errorf("waits: got %v, want them drawn at random, not all equal", waits)
			}
		})
	})
}
