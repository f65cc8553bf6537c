package rabbitmq_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"sluice/core"
	"sluice/rabbitmq"
)

func nop(context.Context, amqp.Delivery) error { return nil }

// TestBadInput: bad input ends Run at once with an error that says what is
// wrong, and leaves nothing running.
func TestBadInput(t *testing.T) {
	ctx := context.Background()
	t.Run("unknown queue", func(t *testing.T) {
		err := result(t, run(ctx, func(ctx context.Context) error {
			return rabbitmq.Consume(ctx, node.URL, "no-such-queue", nop)
		}), 10*time.Second)
		var ae *amqp.Error
		if !errors.As(err, &ae) || ae.Code != amqp.NotFound || !strings.Contains(err.Error(), `"no-such-queue"`) {
			t.Errorf("got %v, want a NOT_FOUND error naming the queue", err)
		}
	})
	t.Run("nil handler", func(t *testing.T) {
		if err := rabbitmq.Consume(ctx, node.URL, "q", nil); !errors.Is(err, rabbitmq.ErrNilHandler) {
			t.Errorf("got %v, want ErrNilHandler", err)
		}
		if err := rabbitmq.NewKeyedConsumer(node.URL, "x", 1, nil).Run(ctx); !errors.Is(err, rabbitmq.ErrNilHandler) {
			t.Errorf("keyed: got %v, want ErrNilHandler", err)
		}
	})
	t.Run("closed channel", func(t *testing.T) {
		// The channel the consumer is about to subscribe on is closed
		// under it.
		err := result(t, run(ctx, func(ctx context.Context) error {
			return rabbitmq.Consume(ctx, node.URL, "q", nop, rabbitmq.WithDeclare(func(ch *amqp.Channel) error {
				return ch.Close()
			}))
		}), 10*time.Second)
		if !errors.Is(err, amqp.ErrClosed) {
			t.Errorf("got %v, want amqp.ErrClosed", err)
		}
	})
	t.Run("queue deleted while consuming", func(t *testing.T) {
		b := dial(t)
		q := b.queue("deleted", nil)
		var lost []error
		errc := run(ctx, rabbitmq.NewConsumer(node.URL, q, nop,
			rabbitmq.WithBackoff(10*time.Millisecond, 10*time.Millisecond),
			rabbitmq.OnConnectionError(func(err error) { lost = append(lost, err) })).Run)
		// Wait until the consumer is subscribed, then delete its queue:
		// the broker cancels the subscription, and subscribing again finds
		// no queue.
		deadline := time.Now().Add(10 * time.Second)
		for {
			q, err := b.ch.QueueDeclarePassive(q, true, false, false, false, nil)
			if err != nil {
				t.Fatal(err)
			}
			if q.Consumers == 1 || time.Now().After(deadline) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if _, err := b.ch.QueueDelete(q, false, false, false); err != nil {
			t.Fatal(err)
		}
		err := result(t, errc, 10*time.Second)
		var ae *amqp.Error
		if !errors.As(err, &ae) || ae.Code != amqp.NotFound {
			t.Errorf("Run: got %v, want NOT_FOUND", err)
		}
		if len(lost) != 1 || !strings.Contains(lost[0].Error(), "cancelled the subscription") {
			t.Errorf("connection errors reported: got %v, want the cancelled subscription", lost)
		}
	})
	t.Run("no broker", func(t *testing.T) {
		err := result(t, run(ctx, func(ctx context.Context) error {
			return rabbitmq.Consume(ctx, "amqp://guest:guest@127.0.0.1:1/", "q", nop)
		}), 15*time.Second)
		if err == nil || !strings.Contains(err.Error(), "rabbitmq: dial") {
			t.Errorf("got %v, want a dial error", err)
		}
	})
	t.Run("run twice", func(t *testing.T) {
		b := dial(t)
		q := b.queue("twice", nil)
		subscribed := make(chan struct{}, 1) // one session: one send
		c := rabbitmq.NewConsumer(node.URL, q, nop, rabbitmq.WithObserver(func(e core.Event) {
			if e.Kind == core.Resized && e.Weight > 0 {
				subscribed <- struct{}{}
			}
		}))
		errc := run(ctx, c.Run)
		<-subscribed
		if err := result(t, run(ctx, c.Run), 10*time.Second); !errors.Is(err, rabbitmq.ErrRunning) {
			t.Errorf("second Run: got %v, want ErrRunning", err)
		}
		if err := c.Drain(ctx); err != nil {
			t.Errorf("Drain: %v", err)
		}
		if err := result(t, errc, 10*time.Second); err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	t.Run("drain before run", func(t *testing.T) {
		c := rabbitmq.NewConsumer(node.URL, "q", nop)
		if err := c.Drain(ctx); err != nil {
			t.Errorf("Drain: %v", err)
		}
		if err := result(t, run(ctx, c.Run), 10*time.Second); err != nil {
			t.Errorf("Run after Drain: got %v, want nil", err)
		}
	})
	t.Run("options", func(t *testing.T) {
		for name, f := range map[string]func(){
			"concurrency 0":  func() { rabbitmq.WithConcurrency(0) },
			"backoff 0":      func() { rabbitmq.WithBackoff(0, time.Second) },
			"partitions 0":   func() { rabbitmq.NewKeyedConsumer(node.URL, "x", 0, nop) },
			"retry delay -1": func() { rabbitmq.WithRetryDelay(-1) },
			"heartbeat -1":   func() { rabbitmq.WithHeartbeat(-1) },
			"confirm 0":      func() { rabbitmq.WithConfirmTimeout(0) },
		} {
			func() {
				defer func() {
					if v := recover(); v == nil || !strings.HasPrefix(v.(string), "rabbitmq: ") {
						t.Errorf("%s: got panic %v, want one prefixed rabbitmq:", name, v)
					}
				}()
				f()
			}()
		}
	})
}
