package rabbitmq_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"go.uber.org/goleak"

	"sluice/core"

	"sluice/rabbitmq/rabbittest"
)

// node is the broker every test of this binary shares, started by TestMain.
var node *rabbittest.Node

// TestMain starts one throwaway broker for the whole binary, or, when the
// binary was started as a child process by TestKeyedTwoProcesses, runs the
// child's consumer instead.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(childMain())
	}
	var err error
	node, err = rabbittest.Start(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "the rabbitmq tests need a broker:", err)
		os.Exit(1)
	}
	code := m.Run()
	node.Stop()
	if other.node != nil {
		other.node.Stop()
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// broker is a test's connection and channel to the shared node, in
// confirm mode, closed at the end of the test.
type broker struct {
	t    *testing.T
	conn *amqp.Connection
	ch   *amqp.Channel
}

func dial(t *testing.T) *broker {
	t.Helper()
	conn, err := amqp.Dial(node.URL)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	ch, err := conn.Channel()
	if err != nil {
		t.Fatalf("channel: %v", err)
	}
	if err := ch.Confirm(false); err != nil {
		t.Fatalf("confirm mode: %v", err)
	}
	b := &broker{t: t, conn: conn, ch: ch}
	t.Cleanup(b.close)
	return b
}

func (b *broker) close() { b.conn.Close() }

// queue declares a fresh durable queue named after the test, with args.
func (b *broker) queue(name string, args amqp.Table) string {
	b.t.Helper()
	if _, err := b.ch.QueueDelete(name, false, false, false); err != nil {
		b.t.Fatalf("delete queue %s: %v", name, err)
	}
	if _, err := b.ch.QueueDeclare(name, true, false, false, false, args); err != nil {
		b.t.Fatalf("declare queue %s: %v", name, err)
	}
	return name
}

// publish publishes persistent messages with bodies 0..n-1 to the default
// exchange with routing key queue, and waits for the broker's confirms.
func (b *broker) publish(queue string, n int) {
	b.t.Helper()
	b.publishTo("", func(int) string { return queue }, n)
}

// publishTo publishes persistent messages with bodies 0..n-1 to exchange,
// message i with routing key key(i), and waits for every confirm.
func (b *broker) publishTo(exchange string, key func(int) string, n int) {
	b.t.Helper()
	b.publishFrom(exchange, key, 0, n)
}

// publishFrom is publishTo for bodies from..from+n-1.
func (b *broker) publishFrom(exchange string, key func(int) string, from, n int) {
	b.t.Helper()
	ctx := context.Background()
	confs := make([]*amqp.DeferredConfirmation, 0, n)
	for i := from; i < from+n; i++ {
		c, err := b.ch.PublishWithDeferredConfirmWithContext(ctx, exchange, key(i), true, false,
			amqp.Publishing{DeliveryMode: amqp.Persistent, Body: []byte(strconv.Itoa(i))})
		if err != nil {
			b.t.Fatalf("publish %d: %v", i, err)
		}
		confs = append(confs, c)
	}
	for i, c := range confs {
		if ok, err := c.WaitContext(ctx); !ok || err != nil {
			b.t.Fatalf("publish %d: confirmed %v, %v", i, ok, err)
		}
	}
}

// depth returns the number of ready messages in queue.
func (b *broker) depth(queue string) int {
	b.t.Helper()
	q, err := b.ch.QueueDeclarePassive(queue, true, false, false, false, nil)
	if err != nil {
		b.t.Fatalf("inspect queue %s: %v", queue, err)
	}
	return q.Messages
}

// tally counts the deliveries a handler saw, by body.
type tally struct {
	mu     sync.Mutex
	seen   map[string]int
	total  int
	notify chan struct{} // receives after each count; size one: a wake-up, not a count
}

func newTally() *tally {
	return &tally{seen: make(map[string]int), notify: make(chan struct{}, 1)}
}

func (t *tally) add(body string) {
	t.mu.Lock()
	t.seen[body]++
	t.total++
	t.mu.Unlock()
	select {
	case t.notify <- struct{}{}:
	default:
	}
}

func (t *tally) distinct() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.seen)
}

func (t *tally) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total
}

// wait blocks until cond holds, or fails the test after timeout.
func (t *tally) wait(tb testing.TB, timeout time.Duration, what string, cond func() bool) {
	tb.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for !cond() {
		select {
		case <-t.notify:
		case <-deadline.C:
			tb.Fatalf("timed out after %v waiting for %s (%d deliveries, %d distinct)", timeout, what, t.count(), t.distinct())
		}
	}
}

// run starts c.Run(ctx) and returns a channel that receives its error.
func run(ctx context.Context, run func(context.Context) error) <-chan error {
	errc := make(chan error, 1)
	go func() { errc <- run(ctx) }()
	return errc
}

// result waits for Run's error, failing the test after timeout.
func result(t *testing.T, errc <-chan error, timeout time.Duration) error {
	t.Helper()
	select {
	case err := <-errc:
		return err
	case <-time.After(timeout):
		t.Fatalf("Run did not return within %v", timeout)
		return nil
	}
}

// readyOnce returns an observer that sends on ready when the consumer
// first subscribed (a Resized event with a positive weight).
func readyOnce(ready chan<- struct{}) func(core.Event) {
	var once sync.Once
	return func(e core.Event) {
		if e.Kind == core.Resized && e.Weight > 0 {
			once.Do(func() { ready <- struct{}{} })
		}
	}
}

// other is a second node, configured otherwise: a consumer timeout of one
// second (checked every 100 ms) and heartbeats off. The first test that
// needs it starts it; TestMain stops it.
var other struct {
	once sync.Once
	node *rabbittest.Node
	err  error
}

func configured(t *testing.T) *rabbittest.Node {
	t.Helper()
	other.once.Do(func() {
		other.node, other.err = rabbittest.Start(context.Background(),
			rabbittest.Conf("consumer_timeout = 1000\nheartbeat = 0"),
			rabbittest.Advanced("[{rabbit, [{channel_tick_interval, 100}]}]."))
	})
	if other.err != nil {
		t.Fatal(other.err)
	}
	return other.node
}
