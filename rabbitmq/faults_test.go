package rabbitmq_test

import (
	"context"
	"errors"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"sluice/core"
	"sluice/rabbitmq"
)

// connErrors records the errors given to OnConnectionError and wakes a
// waiter on each.
type connErrors struct {
	mu     sync.Mutex
	errs   []error
	notify chan struct{}
}

func newConnErrors() *connErrors { return &connErrors{notify: make(chan struct{}, 1)} }

func (c *connErrors) add(err error) {
	c.mu.Lock()
	c.errs = append(c.errs, err)
	c.mu.Unlock()
	select {
	case c.notify <- struct{}{}:
	default:
	}
}

func (c *connErrors) all() []error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]error(nil), c.errs...)
}

// wait blocks until an error containing want was reported, or fails the
// test after timeout.
func (c *connErrors) wait(t *testing.T, timeout time.Duration, want string) {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		for _, err := range c.all() {
			if strings.Contains(err.Error(), want) {
				return
			}
		}
		select {
		case <-c.notify:
		case <-deadline.C:
			t.Fatalf("no connection error containing %q reported within %v (got %v)", want, timeout, c.all())
		}
	}
}

// noRun fails the test if Run returned.
func noRun(t *testing.T, errc <-chan error) {
	t.Helper()
	select {
	case err := <-errc:
		t.Fatalf("Run returned %v while the consumer should have gone on", err)
	default:
	}
}

// TestChannelExceptionRetried: a handler acknowledges its own delivery, so
// the consumer's acknowledgement is refused (PRECONDITION_FAILED, unknown
// delivery tag) and the broker closes the channel. The consumer reports it
// and goes on: every message is handled, Run ends only with Drain.
func TestChannelExceptionRetried(t *testing.T) {
	b := dial(t)
	q := b.queue("exception", nil)
	const n = 20
	b.publish(q, n)
	seen := newTally()
	var once sync.Once
	lost := newConnErrors()
	c := rabbitmq.NewConsumer(node.URL, q, func(ctx context.Context, d amqp.Delivery) error {
		if string(d.Body) == "3" {
			once.Do(func() { d.Ack(false) })
		}
		seen.add(string(d.Body))
		return nil
	}, rabbitmq.WithConcurrency(2), rabbitmq.WithBackoff(10*time.Millisecond, 100*time.Millisecond),
		rabbitmq.OnConnectionError(lost.add))
	errc := run(context.Background(), c.Run)
	lost.wait(t, 10*time.Second, "PRECONDITION_FAILED")
	seen.wait(t, 20*time.Second, "every message", func() bool { return seen.distinct() >= n })
	noRun(t, errc)
	if err := c.Drain(context.Background()); err != nil {
		t.Fatalf("Drain: %v", err)
	}
	if err := result(t, errc, 10*time.Second); err != nil {
		t.Fatalf("Run after Drain: got %v, want nil", err)
	}
	if got := b.depth(q); got != 0 {
		t.Errorf("left in the queue: got %d, want 0", got)
	}
}

// TestHeartbeatOff: on a node whose heartbeat is off, WithHeartbeat(0)
// makes a connection without heartbeats, where the default proposes one
// (the broker's tools show each connection's timeout).
func TestHeartbeatOff(t *testing.T) {
	n := configured(t)
	conn, err := amqp.Dial(n.URL)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"hb.off", "hb.default"} {
		if _, err := ch.QueueDeclare(q, false, false, false, false, nil); err != nil {
			t.Fatal(err)
		}
	}
	conn.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var errcs []<-chan error
	for _, c := range []*rabbitmq.Consumer{
		rabbitmq.NewConsumer(n.URL, "hb.off", nop, rabbitmq.WithHeartbeat(0), rabbitmq.WithConsumerTag("hb-off")),
		rabbitmq.NewConsumer(n.URL, "hb.default", nop, rabbitmq.WithConsumerTag("hb-default")),
	} {
		errcs = append(errcs, run(ctx, c.Run))
	}
	// Both connections are up once the broker lists two.
	var out string
	deadline := time.Now().Add(15 * time.Second)
	for {
		out, err = n.Ctl(ctx, "list_connections", "-q", "timeout")
		if err != nil {
			t.Fatal(err)
		}
		if len(strings.Fields(out)) >= 3 || time.Now().After(deadline) {
			break
		}
	}
	got := strings.Fields(out)
	slices.Sort(got)
	if want := []string{"0", "10", "timeout"}; !slices.Equal(got, want) {
		t.Errorf("connections' heartbeat timeouts: got %v, want %v (off, and the default 10 s)", got, want)
	}
	cancel()
	for _, errc := range errcs {
		if err := result(t, errc, 10*time.Second); !errors.Is(err, context.Canceled) {
			t.Errorf("Run: got %v, want context.Canceled", err)
		}
	}
}

// TestConsumerTimeout: on a node whose consumer_timeout is one second, a
// handler that takes longer makes the broker close the channel. The
// consumer reports it, cancels that handler's context, reconnects and
// handles every message; Run ends only with Drain.
func TestConsumerTimeout(t *testing.T) {
	slow := configured(t)
	conn, err := amqp.Dial(slow.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	const q, n = "timeout", 30
	if _, err := ch.QueueDeclare(q, true, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := ch.PublishWithContext(context.Background(), "", q, false, false, amqp.Publishing{Body: []byte(strconv.Itoa(i))}); err != nil {
			t.Fatal(err)
		}
	}
	seen := newTally()
	var first atomic.Bool
	var cause atomic.Value
	lost := newConnErrors()
	c := rabbitmq.NewConsumer(slow.URL, q, func(ctx context.Context, d amqp.Delivery) error {
		if string(d.Body) == "0" && first.CompareAndSwap(false, true) {
			// Longer than the consumer timeout; cut short by the loss.
			if err := work(ctx, 20*time.Second); err != nil {
				cause.Store(context.Cause(ctx))
				return err
			}
		}
		seen.add(string(d.Body))
		return nil
	}, rabbitmq.WithConcurrency(2), rabbitmq.WithBackoff(10*time.Millisecond, 100*time.Millisecond),
		rabbitmq.OnConnectionError(lost.add))
	errc := run(context.Background(), c.Run)
	lost.wait(t, 15*time.Second, "PRECONDITION_FAILED")
	seen.wait(t, 15*time.Second, "every message", func() bool { return seen.distinct() >= n })
	noRun(t, errc)
	if err := c.Drain(context.Background()); err != nil {
		t.Fatalf("Drain: %v", err)
	}
	if err := result(t, errc, 10*time.Second); err != nil {
		t.Fatalf("Run after Drain: got %v, want nil", err)
	}
	if err, _ := cause.Load().(error); err == nil || !strings.Contains(err.Error(), "PRECONDITION_FAILED") {
		t.Errorf("the slow handler's context cause: got %v, want the channel's PRECONDITION_FAILED", err)
	}
}

// TestLossCancelsHandlers: when the channel is lost with handlers in
// flight that wait for their context, the consumer reports the loss and
// reconnects without waiting for them, and cancels their context with the
// loss as its cause; their messages are handled again on the new channel.
func TestLossCancelsHandlers(t *testing.T) {
	b := dial(t)
	q := b.queue("loss", nil)
	const n = 8
	b.publish(q, n)
	release := make(chan struct{}) // closed at the end: never leaves a handler blocked
	defer close(release)
	seen := newTally()
	var canceled atomic.Int64
	var mu sync.Mutex
	var causes []error
	var once sync.Once
	lost := newConnErrors()
	c := rabbitmq.NewConsumer(node.URL, q, func(ctx context.Context, d amqp.Delivery) error {
		switch {
		case string(d.Body) == "0" && !d.Redelivered:
			once.Do(func() { d.Ack(false) }) // the consumer's ack then closes the channel
			return nil
		case strings.Contains("123", string(d.Body)) && !d.Redelivered:
			// In flight when the channel is lost.
			select {
			case <-ctx.Done():
				canceled.Add(1)
				mu.Lock()
				causes = append(causes, context.Cause(ctx))
				mu.Unlock()
				return ctx.Err()
			case <-release:
				return errors.New("released")
			}
		}
		seen.add(string(d.Body))
		return nil
	}, rabbitmq.WithConcurrency(4), rabbitmq.WithBackoff(10*time.Millisecond, 100*time.Millisecond),
		rabbitmq.OnConnectionError(lost.add))
	errc := run(context.Background(), c.Run)
	lost.wait(t, 10*time.Second, "PRECONDITION_FAILED")
	seen.wait(t, 20*time.Second, "the messages handled again", func() bool { return seen.distinct() >= n-1 })
	if err := c.Drain(context.Background()); err != nil {
		t.Fatalf("Drain: %v", err)
	}
	if err := result(t, errc, 10*time.Second); err != nil {
		t.Fatalf("Run after Drain: got %v, want nil", err)
	}
	if got := canceled.Load(); got != 3 {
		t.Errorf("handlers canceled by the loss: got %d, want 3 (the others in flight)", got)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, err := range causes {
		if !strings.Contains(err.Error(), "connection lost") {
			t.Errorf("a canceled handler's cause: got %v, want the loss", err)
		}
	}
}

// silentBroker accepts TCP connections and never answers, as a hung
// broker; accepted receives once per connection.
func silentBroker(t *testing.T) (url string, accepted <-chan struct{}) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	acc := make(chan struct{}, 16)
	var conns []net.Conn
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
			acc <- struct{}{}
		}
	}()
	t.Cleanup(func() {
		l.Close()
		wg.Wait()
		for _, c := range conns {
			c.Close()
		}
	})
	return "amqp://guest:guest@" + l.Addr().String() + "/", acc
}

// TestRunHonoursContext: Run checks its context before it dials, while it
// waits for the handshake, and after Drain while the broker does not
// answer.
func TestRunHonoursContext(t *testing.T) {
	t.Run("canceled before Run", func(t *testing.T) {
		b := dial(t)
		q := b.queue("precanceled", nil)
		b.publish(q, 10)
		var declares atomic.Int64
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err := rabbitmq.Consume(ctx, node.URL, q, nop, rabbitmq.WithDeclare(func(*amqp.Channel) error {
			declares.Add(1)
			return nil
		}))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run: got %v, want context.Canceled", err)
		}
		if got := declares.Load(); got != 0 {
			t.Errorf("declarations: got %d, want 0 (no connection)", got)
		}
		// No message was delivered, so none is marked redelivered.
		for range 10 {
			d, ok, err := b.ch.Get(q, true)
			if err != nil || !ok {
				t.Fatalf("get: %v, %v", ok, err)
			}
			if d.Redelivered {
				t.Errorf("message %s: redelivered, want a first delivery", d.Body)
			}
		}
	})
	t.Run("canceled during the handshake", func(t *testing.T) {
		url, accepted := silentBroker(t)
		ctx, cancel := context.WithCancel(context.Background())
		errc := run(ctx, rabbitmq.NewConsumer(url, "q", nop).Run)
		<-accepted
		cancel()
		if err := result(t, errc, 3*time.Second); !errors.Is(err, context.Canceled) {
			t.Errorf("Run: got %v, want context.Canceled", err)
		}
	})
	t.Run("drained during the handshake", func(t *testing.T) {
		url, accepted := silentBroker(t)
		c := rabbitmq.NewConsumer(url, "q", nop)
		errc := run(context.Background(), c.Run)
		<-accepted
		if err := c.Drain(context.Background()); err != nil {
			t.Errorf("Drain: %v", err)
		}
		if err := result(t, errc, 3*time.Second); err != nil {
			t.Errorf("Run: got %v, want nil", err)
		}
	})
	t.Run("canceled after Drain on a frozen broker", func(t *testing.T) {
		b := dial(t)
		q := b.queue("frozen.drain", nil)
		subscribed := make(chan struct{}, 1)
		c := rabbitmq.NewConsumer(node.URL, q, nop, rabbitmq.WithObserver(func(e core.Event) {
			if e.Kind == core.Resized && e.Weight > 0 {
				subscribed <- struct{}{}
			}
		}))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		errc := run(ctx, c.Run)
		<-subscribed
		node.Freeze()
		defer node.Thaw()
		dctx, dcancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer dcancel()
		if err := c.Drain(dctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Drain on a frozen broker: got %v, want context.DeadlineExceeded", err)
		}
		cancel()
		if err := result(t, errc, 3*time.Second); !errors.Is(err, context.Canceled) {
			t.Errorf("Run: got %v, want context.Canceled", err)
		}
	})
	t.Run("nil context", func(t *testing.T) {
		var declares atomic.Int64
		c := rabbitmq.NewConsumer(node.URL, "q", nop, rabbitmq.WithDeclare(func(*amqp.Channel) error {
			declares.Add(1)
			return nil
		}))
		func() {
			defer func() {
				if v, _ := recover().(string); !strings.HasPrefix(v, "rabbitmq: ") {
					t.Errorf("Run(nil): got panic %q, want one prefixed rabbitmq:", v)
				}
			}()
			c.Run(nil) //lint:ignore SA1012 the nil context is the point
		}()
		if got := declares.Load(); got != 0 {
			t.Errorf("declarations: got %d, want 0 (it panics before connecting)", got)
		}
	})
}

// TestFrozenBroker: a broker that stops answering (SIGSTOP) is found by
// the heartbeat; the consumer reports it, and resumes once the broker
// answers again.
func TestFrozenBroker(t *testing.T) {
	b := dial(t)
	q := b.queue("frozen", nil)
	b.close()
	seen := newTally()
	lost := newConnErrors()
	subscribed := make(chan struct{}, 1)
	c := rabbitmq.NewConsumer(node.URL, q, func(ctx context.Context, d amqp.Delivery) error {
		seen.add(string(d.Body))
		return nil
	}, rabbitmq.WithHeartbeat(time.Second), rabbitmq.WithBackoff(50*time.Millisecond, 200*time.Millisecond),
		rabbitmq.OnConnectionError(lost.add), rabbitmq.WithObserver(func(e core.Event) {
			if e.Kind == core.Resized && e.Weight > 0 {
				select {
				case subscribed <- struct{}{}:
				default:
				}
			}
		}))
	errc := run(context.Background(), c.Run)
	<-subscribed
	node.Freeze()
	thawed := false
	defer func() {
		if !thawed {
			node.Thaw()
		}
	}()
	lost.wait(t, 10*time.Second, "connection lost")
	node.Thaw()
	thawed = true
	b = dial(t)
	b.publish(q, 10)
	seen.wait(t, 20*time.Second, "the messages published after the thaw", func() bool { return seen.distinct() >= 10 })
	if err := c.Drain(context.Background()); err != nil {
		t.Fatalf("Drain: %v", err)
	}
	if err := result(t, errc, 10*time.Second); err != nil {
		t.Fatalf("Run: %v", err)
	}
}

// TestServerClose: the broker closes the consumer's connection
// (rabbitmqctl close_all_connections, as an operator would); the consumer
// reports it and resumes.
func TestServerClose(t *testing.T) {
	b := dial(t)
	q := b.queue("closed", nil)
	b.close()
	seen := newTally()
	lost := newConnErrors()
	c := rabbitmq.NewConsumer(node.URL, q, func(ctx context.Context, d amqp.Delivery) error {
		seen.add(string(d.Body))
		return nil
	}, rabbitmq.WithBackoff(10*time.Millisecond, 100*time.Millisecond), rabbitmq.OnConnectionError(lost.add),
		rabbitmq.WithConsumerTag("closed-test"))
	errc := run(context.Background(), c.Run)
	b = dial(t)
	b.publish(q, 5)
	seen.wait(t, 10*time.Second, "the first messages", func() bool { return seen.distinct() >= 5 })
	if _, err := node.Ctl(context.Background(), "close_all_connections", "test"); err != nil {
		t.Fatal(err)
	}
	lost.wait(t, 10*time.Second, "CONNECTION_FORCED")
	b = dial(t)
	b.publish(q, 10)
	seen.wait(t, 10*time.Second, "the messages published after the close", func() bool { return seen.distinct() >= 10 })
	if err := c.Drain(context.Background()); err != nil {
		t.Fatalf("Drain: %v", err)
	}
	if err := result(t, errc, 10*time.Second); err != nil {
		t.Fatalf("Run: %v", err)
	}
}
