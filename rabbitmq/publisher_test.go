package rabbitmq_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"sluice/rabbitmq"
)

// TestPublisherBrokerKilled: four goroutines publish 2,000 persistent
// messages through one Publisher while the broker is killed with SIGKILL
// and restarted. Every Publish returns nil in the end, the publisher
// reports the loss, and every message whose Publish returned nil is
// consumed at least once.
func TestPublisherBrokerKilled(t *testing.T) {
	b := dial(t)
	q := b.queue("pub.killed", nil)
	b.close()
	if err := node.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	const n, workers = 2000, 4
	lost := newConnErrors()
	p := rabbitmq.NewPublisher(node.URL, rabbitmq.WithBackoff(50*time.Millisecond, 500*time.Millisecond),
		rabbitmq.OnConnectionError(lost.add), rabbitmq.WithDeclare(func(ch *amqp.Channel) error {
			_, err := ch.QueueDeclare(q, true, false, false, false, nil)
			return err
		}))
	defer p.Close()
	var confirmed sync.Map // body -> true, once Publish returned nil
	var count atomic.Int64
	var mu sync.Mutex
	var errs []error
	halfway := make(chan struct{})
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				err := p.Publish(ctx, "", q, amqp.Publishing{DeliveryMode: amqp.Persistent, Body: []byte(strconv.Itoa(i))})
				cancel()
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					continue
				}
				confirmed.Store(strconv.Itoa(i), true)
				if count.Add(1) == n/4 {
					close(halfway)
				}
			}
		}()
	}
	<-halfway
	node.Kill()
	beforeKill := count.Load()
	if err := node.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Errorf("Publish errors: %v", errs)
	}
	if got := count.Load(); got != n {
		t.Errorf("Publish calls that returned nil: got %d, want %d", got, n)
	}
	lost.wait(t, time.Second, "")

	seen := newTally()
	c := rabbitmq.NewConsumer(node.URL, q, func(ctx context.Context, d amqp.Delivery) error {
		seen.add(string(d.Body))
		return nil
	}, rabbitmq.WithConcurrency(8))
	errc := run(context.Background(), c.Run)
	var lastMissing []int
	missing := func() int {
		lastMissing = lastMissing[:0]
		confirmed.Range(func(k, _ any) bool {
			seen.mu.Lock()
			if seen.seen[k.(string)] == 0 {
				i, _ := strconv.Atoi(k.(string))
				lastMissing = append(lastMissing, i)
			}
			seen.mu.Unlock()
			return true
		})
		return len(lastMissing)
	}
	defer func() {
		if t.Failed() && len(lastMissing) > 0 {
			slices.Sort(lastMissing)
			out, _ := node.Ctl(context.Background(), "list_queues", "name", "messages_ready", "messages_unacknowledged", "consumers")
			t.Logf("missing (first 20 of %d): %v; published before the kill: %v; queues:\n%s", len(lastMissing), lastMissing[:min(20, len(lastMissing))], beforeKill, out)
		}
	}()
	seen.wait(t, 30*time.Second, "every confirmed message", func() bool {
		if missing() == 0 {
			return true
		}
		return false
	})
	if err := c.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := result(t, errc, 10*time.Second); err != nil {
		t.Fatalf("consumer Run: %v", err)
	}
	t.Logf("%d confirmed, %d consumed (%d distinct): %d published twice; connection errors %v",
		count.Load(), seen.count(), seen.distinct(), seen.count()-seen.distinct(), lost.all())
}

// TestPublisherKeyed: PublishKeyed declares the consistent-hash exchange;
// a keyed consumer reads its partitions and handles each key's messages in
// the order they were published.
func TestPublisherKeyed(t *testing.T) {
	const (
		exchange   = "pub.keyed"
		partitions = 4
		keys, per  = 10, 20
	)
	p := rabbitmq.NewPublisher(node.URL)
	defer p.Close()
	ctx := context.Background()
	// The partitions are declared by the consumer; publish once it runs.
	var mu sync.Mutex
	order := map[string][]int{}
	seen := newTally()
	subscribed := make(chan struct{}, 1)
	c := rabbitmq.NewKeyedConsumer(node.URL, exchange, partitions, func(ctx context.Context, d amqp.Delivery) error {
		i, _ := strconv.Atoi(string(d.Body))
		mu.Lock()
		order[d.RoutingKey] = append(order[d.RoutingKey], i)
		mu.Unlock()
		seen.add(string(d.Body))
		return nil
	}, rabbitmq.WithConcurrency(4), rabbitmq.WithObserver(readyOnce(subscribed)))
	errc := run(ctx, c.Run)
	<-subscribed
	for i := range keys * per {
		if err := p.PublishKeyed(ctx, exchange, "k"+strconv.Itoa(i%keys), amqp.Publishing{Body: []byte(strconv.Itoa(i))}); err != nil {
			t.Fatalf("PublishKeyed %d: %v", i, err)
		}
	}
	seen.wait(t, 15*time.Second, "every message", func() bool { return seen.distinct() >= keys*per })
	if err := c.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if err := result(t, errc, 10*time.Second); err != nil {
		t.Fatalf("Run: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	for k, is := range order {
		if !slices.IsSorted(is) || len(is) != per {
			t.Errorf("key %s: handled %v, want %d messages in order", k, is, per)
		}
	}
}

// TestPublisherErrors: what Publish returns when it cannot publish.
func TestPublisherErrors(t *testing.T) {
	ctx := context.Background()
	msg := amqp.Publishing{Body: []byte("x")}
	t.Run("no such exchange", func(t *testing.T) {
		p := rabbitmq.NewPublisher(node.URL)
		defer p.Close()
		err := p.Publish(ctx, "no-such-exchange", "k", msg)
		var ae *amqp.Error
		if !errors.As(err, &ae) || ae.Code != amqp.NotFound || !strings.Contains(err.Error(), `"no-such-exchange"`) {
			t.Errorf("got %v, want NOT_FOUND naming the exchange", err)
		}
		// The publisher still works.
		if err := p.Publish(ctx, "", "no-queue-needed", msg); err != nil {
			t.Errorf("Publish after: %v", err)
		}
	})
	t.Run("closed", func(t *testing.T) {
		p := rabbitmq.NewPublisher(node.URL)
		if err := p.Publish(ctx, "", "q", msg); err != nil {
			t.Fatal(err)
		}
		p.Close()
		if err := p.Publish(ctx, "", "q", msg); !errors.Is(err, rabbitmq.ErrClosed) {
			t.Errorf("Publish after Close: got %v, want ErrClosed", err)
		}
	})
	t.Run("canceled", func(t *testing.T) {
		p := rabbitmq.NewPublisher(node.URL)
		defer p.Close()
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if err := p.Publish(cctx, "", "q", msg); !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want context.Canceled", err)
		}
	})
	t.Run("silent broker", func(t *testing.T) {
		url, _ := silentBroker(t)
		p := rabbitmq.NewPublisher(url)
		defer p.Close()
		cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		if err := p.Publish(cctx, "", "q", msg); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("got %v, want context.DeadlineExceeded", err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("Publish returned after %v, want soon after its context ended", d)
		}
	})
	t.Run("no broker, retried until ctx ends", func(t *testing.T) {
		var lost atomic.Int64
		p := rabbitmq.NewPublisher("amqp://guest:guest@127.0.0.1:1/", rabbitmq.WithBackoff(10*time.Millisecond, 20*time.Millisecond),
			rabbitmq.OnConnectionError(func(error) { lost.Add(1) }))
		defer p.Close()
		cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		if err := p.Publish(cctx, "", "q", msg); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("got %v, want context.DeadlineExceeded", err)
		}
		if lost.Load() < 2 {
			t.Errorf("connection errors reported: %d, want several (retried)", lost.Load())
		}
	})
}

// TestPublisherConfirmTimeout: on a frozen broker no confirm comes; past
// WithConfirmTimeout the publisher drops its connection, reports it, and
// publishes again, so that Publish returns nil once the broker answers
// again, and the message is there.
func TestPublisherConfirmTimeout(t *testing.T) {
	b := dial(t)
	q := b.queue("pub.frozen", nil)
	lost := newConnErrors()
	p := rabbitmq.NewPublisher(node.URL, rabbitmq.WithConfirmTimeout(300*time.Millisecond),
		rabbitmq.WithBackoff(10*time.Millisecond, 50*time.Millisecond), rabbitmq.OnConnectionError(lost.add))
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.Publish(ctx, "", q, amqp.Publishing{Body: []byte("first")}); err != nil {
		t.Fatal(err)
	}
	node.Freeze()
	thawed := false
	defer func() {
		if !thawed {
			node.Thaw()
		}
	}()
	errc := make(chan error, 1)
	go func() { errc <- p.Publish(ctx, "", q, amqp.Publishing{Body: []byte("second")}) }()
	lost.wait(t, 10*time.Second, "no confirm within the confirm timeout")
	node.Thaw()
	thawed = true
	if err := <-errc; err != nil {
		t.Fatalf("Publish across the freeze: got %v, want nil", err)
	}
	b = dial(t)
	if got := b.depth(q); got < 2 {
		t.Errorf("messages in the queue: got %d, want at least 2", got)
	}
}
