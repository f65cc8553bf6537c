package rabbitmq_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"sluice/rabbitmq"
)

// TestRetryDelay: with WithRetryDelay, a failed message's second attempt
// is a copy that went through the delay queue (it carries the retry
// header and is not marked redelivered), and its second failure
// dead-letters it; the other messages are handled once.
func TestRetryDelay(t *testing.T) {
	b := dial(t)
	dlq := b.queue("retry.dlq", nil)
	q := b.queue("retry", amqp.Table{"x-dead-letter-exchange": "", "x-dead-letter-routing-key": dlq})
	b.publish(q, 5) // bodies 0..4: 2 fails twice, 3 fails once
	var mu sync.Mutex
	attempts := map[string][]string{} // body -> "redelivered/retried" per attempt
	seen := newTally()
	c := rabbitmq.NewConsumer(node.URL, q, func(ctx context.Context, d amqp.Delivery) error {
		_, retried := d.Headers["x-sluice-retry"]
		mu.Lock()
		attempts[string(d.Body)] = append(attempts[string(d.Body)], fmtBools([]bool{d.Redelivered, retried}))
		n := len(attempts[string(d.Body)])
		mu.Unlock()
		defer seen.add(string(d.Body))
		switch {
		case string(d.Body) == "2", string(d.Body) == "3" && n == 1:
			return errors.New("down")
		}
		return nil
	}, rabbitmq.WithRetryDelay(200*time.Millisecond), rabbitmq.WithConcurrency(2))
	errc := run(context.Background(), c.Run)
	seen.wait(t, 15*time.Second, "every message, the failing ones twice", func() bool { return seen.count() >= 7 })
	deadline := time.Now().Add(10 * time.Second)
	for b.depth(dlq) < 1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if err := c.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := result(t, errc, 10*time.Second); err != nil {
		t.Fatalf("Run: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	for body, want := range map[string]string{
		"0": "[[false false]]",
		"2": "[[false false] [false true]]",
		"3": "[[false false] [false true]]",
	} {
		if got := "[" + strings.Join(attempts[body], " ") + "]"; got != want {
			t.Errorf("message %s: attempts (redelivered, retried) got %s, want %s", body, got, want)
		}
	}
	if got := b.depth(dlq); got != 1 {
		t.Errorf("dead-lettered: got %d, want 1 (message 2)", got)
	}
	if got := b.depth(q) + b.depth("retry.retry"); got != 0 {
		t.Errorf("left in the queue and its delay queue: got %d, want 0", got)
	}
}

// TestConsumerTagAndArgs: the deliveries carry the consumer tag's prefix,
// and the arguments reach the broker (an invalid x-priority is refused).
func TestConsumerTagAndArgs(t *testing.T) {
	b := dial(t)
	q := b.queue("tagged", nil)
	b.publish(q, 1)
	tags := make(chan string, 1)
	c := rabbitmq.NewConsumer(node.URL, q, func(ctx context.Context, d amqp.Delivery) error {
		tags <- d.ConsumerTag
		return nil
	}, rabbitmq.WithConsumerTag("billing"), rabbitmq.WithConsumerArgs(amqp.Table{"x-priority": int32(5)}))
	errc := run(context.Background(), c.Run)
	select {
	case tag := <-tags:
		if !strings.HasPrefix(tag, "billing-") {
			t.Errorf("consumer tag: got %q, want the prefix billing-", tag)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no delivery")
	}
	if err := c.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := result(t, errc, 10*time.Second); err != nil {
		t.Fatalf("Run: %v", err)
	}
	err := rabbitmq.Consume(context.Background(), node.URL, q, nop, rabbitmq.WithConsumerArgs(amqp.Table{"x-priority": "high"}))
	var ae *amqp.Error
	if !errors.As(err, &ae) || ae.Code != amqp.PreconditionFailed {
		t.Errorf("Run with x-priority \"high\": got %v, want PRECONDITION_FAILED", err)
	}
}

// TestQuorumPartitions: a keyed consumer declares its partitions as quorum
// queues (declaring one as a classic queue then fails), and handles their
// messages.
func TestQuorumPartitions(t *testing.T) {
	const exchange, partitions, n = "keyed.quorum", 2, 20
	b := dial(t)
	seen := newTally()
	subscribed := make(chan struct{}, 1)
	c := rabbitmq.NewKeyedConsumer(node.URL, exchange, partitions, func(ctx context.Context, d amqp.Delivery) error {
		seen.add(string(d.Body))
		return nil
	}, rabbitmq.WithPartitionDeclare(rabbitmq.Quorum()), rabbitmq.WithObserver(readyOnce(subscribed)))
	errc := run(context.Background(), c.Run)
	select {
	case <-subscribed:
	case err := <-errc:
		t.Fatalf("Run: %v", err)
	}
	b.publishTo(exchange, func(i int) string { return strings.Repeat("k", i%5+1) }, n)
	seen.wait(t, 15*time.Second, "every message", func() bool { return seen.distinct() >= n })
	if err := c.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := result(t, errc, 10*time.Second); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := rabbitmq.DeclarePartitions(b.ch, exchange, partitions); err == nil {
		t.Errorf("declaring the partitions as classic queues: got nil, want PRECONDITION_FAILED")
	}
	b = dial(t)
	if err := rabbitmq.DeclareQueue(b.ch, "quorum.plain", rabbitmq.Quorum(), rabbitmq.QueueArgs(amqp.Table{"x-delivery-limit": int32(3)})); err != nil {
		t.Errorf("DeclareQueue quorum: %v", err)
	}
	if err := rabbitmq.DeclareQueue(b.ch, "quorum.plain"); err == nil {
		t.Errorf("declaring it again as a classic queue: got nil, want PRECONDITION_FAILED")
	}
}
