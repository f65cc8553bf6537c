package rabbitmq_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"sluice/core"
	"sluice/core/trace"
	"sluice/rabbitmq"
)

// work stands for a handler's real work: it takes d, unless ctx ends first.
func work(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TestConsumeAck: every message is handled once and acknowledged, so the
// queue is empty once the consumer drained, and the observer saw each
// delivery start and finish.
func TestConsumeAck(t *testing.T) {
	b := dial(t)
	q := b.queue("ack", nil)
	const n = 200
	b.publish(q, n)

	seen := newTally()
	var events sync.Map // task id -> terminal kinds seen
	var terminal atomic.Int64
	rec := trace.NewRecorder(trace.Config{})
	c := rabbitmq.NewConsumer(node.URL, q, func(ctx context.Context, d amqp.Delivery) error {
		seen.add(string(d.Body))
		return nil
	}, rabbitmq.WithConcurrency(4), rabbitmq.WithObserver(func(e core.Event) {
		rec.Observe(e)
		if e.Kind.Terminal() {
			if _, dup := events.LoadOrStore(e.Task, e.Kind); dup {
				t.Errorf("task %d: a second terminal event %v", e.Task, e.Kind)
			}
			terminal.Add(1)
		}
	}))
	errc := run(context.Background(), c.Run)
	seen.wait(t, 30*time.Second, "every message", func() bool { return seen.count() >= n })
	if err := c.Drain(context.Background()); err != nil {
		t.Fatalf("Drain: got %v, want nil", err)
	}
	if err := result(t, errc, 10*time.Second); err != nil {
		t.Fatalf("Run after Drain: got %v, want nil", err)
	}
	if got := seen.distinct(); got != n {
		t.Errorf("distinct messages handled: got %d, want %d", got, n)
	}
	if got := seen.count(); got != n {
		t.Errorf("deliveries handled: got %d, want %d (each once)", got, n)
	}
	if got := b.depth(q); got != 0 {
		t.Errorf("messages left in the queue: got %d, want 0 (each acknowledged)", got)
	}
	if got := terminal.Load(); got != n {
		t.Errorf("terminal observer events: got %d, want %d", got, n)
	}
	st := rec.Snapshot(time.Now()).Stats
	if st.Succeeded != n || st.Limit != 4 {
		t.Errorf("trace recorder: succeeded %d, limit %d; want %d, 4", st.Succeeded, st.Limit, n)
	}
}

// TestRequeueOnceThenReject: a failing handler's message is requeued once,
// then rejected to the queue's dead-letter exchange; a panicking handler is
// a failure; the others are acknowledged.
func TestRequeueOnceThenReject(t *testing.T) {
	b := dial(t)
	dlq := b.queue("reject.dlq", nil)
	q := b.queue("reject", amqp.Table{"x-dead-letter-exchange": "", "x-dead-letter-routing-key": dlq})
	const n = 10
	b.publish(q, n) // bodies 0..9: 3 fails, 7 panics

	seen := newTally()
	var mu sync.Mutex
	redelivered := map[string][]bool{}
	var reported []string
	c := rabbitmq.NewConsumer(node.URL, q, func(ctx context.Context, d amqp.Delivery) error {
		mu.Lock()
		redelivered[string(d.Body)] = append(redelivered[string(d.Body)], d.Redelivered)
		mu.Unlock()
		defer seen.add(string(d.Body))
		switch string(d.Body) {
		case "3":
			return errors.New("three fails")
		case "7":
			panic("seven panics")
		}
		return nil
	}, rabbitmq.WithConcurrency(2), rabbitmq.OnError(func(d amqp.Delivery, err error) {
		mu.Lock()
		reported = append(reported, string(d.Body)+": "+err.Error())
		mu.Unlock()
	}))
	errc := run(context.Background(), c.Run)
	seen.wait(t, 30*time.Second, "each message, and the failing ones twice", func() bool { return seen.count() >= n+2 })
	// The dead-lettered messages reach the DLQ shortly after the reject.
	deadline := time.Now().Add(10 * time.Second)
	for b.depth(dlq) < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if err := c.Drain(context.Background()); err != nil {
		t.Fatalf("Drain: %v", err)
	}
	if err := result(t, errc, 10*time.Second); err != nil {
		t.Fatalf("Run: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	for i := range n {
		body := strconv.Itoa(i)
		want := "[false]"
		if body == "3" || body == "7" {
			want = "[false true]"
		}
		if got := fmtBools(redelivered[body]); got != want {
			t.Errorf("message %s: deliveries (redelivered flags) got %s, want %s", body, got, want)
		}
	}
	if got := b.depth(dlq); got != 2 {
		t.Errorf("dead-lettered: got %d, want 2", got)
	}
	if got := b.depth(q); got != 0 {
		t.Errorf("left in the queue: got %d, want 0", got)
	}
	if len(reported) != 4 {
		t.Errorf("OnError calls: got %q, want 4 (two per failing message)", reported)
	}
	for _, r := range reported {
		if !strings.HasPrefix(r, "3: three fails") && !strings.HasPrefix(r, "7: core: task panicked: seven panics") {
			t.Errorf("OnError: unexpected %q", r)
		}
	}
}

func fmtBools(bs []bool) string {
	s := make([]string, len(bs))
	for i, b := range bs {
		s[i] = strconv.FormatBool(b)
	}
	return "[" + strings.Join(s, " ") + "]"
}

// TestGlobalLimit: two consumers of two queues, each allowed 4 handlers,
// share a semaphore of 3: never more than 3 handlers run at once, as
// measured in the handlers.
func TestGlobalLimit(t *testing.T) {
	b := dial(t)
	qa, qb := b.queue("limit.a", nil), b.queue("limit.b", nil)
	const n, limit = 100, 3
	b.publish(qa, n)
	b.publish(qb, n)

	sem := core.NewSemaphore(limit)
	var inFlight, maxInFlight atomic.Int64
	seen := newTally()
	handle := func(ctx context.Context, d amqp.Delivery) error {
		now := inFlight.Add(1)
		for m := maxInFlight.Load(); now > m && !maxInFlight.CompareAndSwap(m, now); m = maxInFlight.Load() {
		}
		defer func() {
			inFlight.Add(-1)
			seen.add(d.RoutingKey + "/" + string(d.Body))
		}()
		return work(ctx, 2*time.Millisecond)
	}
	ca := rabbitmq.NewConsumer(node.URL, qa, handle, rabbitmq.WithConcurrency(4), rabbitmq.WithSemaphore(sem))
	cb := rabbitmq.NewConsumer(node.URL, qb, handle, rabbitmq.WithConcurrency(4), rabbitmq.WithSemaphore(sem), rabbitmq.WithPriority(core.High))
	ea, eb := run(context.Background(), ca.Run), run(context.Background(), cb.Run)
	seen.wait(t, 30*time.Second, "both queues", func() bool { return seen.count() >= 2*n })
	for _, c := range []*rabbitmq.Consumer{ca, cb} {
		if err := c.Drain(context.Background()); err != nil {
			t.Fatalf("Drain: %v", err)
		}
	}
	for _, errc := range []<-chan error{ea, eb} {
		if err := result(t, errc, 10*time.Second); err != nil {
			t.Fatalf("Run: %v", err)
		}
	}
	if got := maxInFlight.Load(); got != limit {
		t.Errorf("max handlers in flight across both consumers: got %d, want %d", got, limit)
	}
	if got := sem.Stats(); got.InUse != 0 || got.Waiters != 0 {
		t.Errorf("semaphore after both consumers stopped: %+v, want nothing held", got)
	}
}

// TestDrainLosesNothing: Drain mid-stream handles and acknowledges what
// was received; the rest stays in the queue: handled + left = published.
func TestDrainLosesNothing(t *testing.T) {
	b := dial(t)
	q := b.queue("drain", nil)
	const n = 500
	b.publish(q, n)
	seen := newTally()
	c := rabbitmq.NewConsumer(node.URL, q, func(ctx context.Context, d amqp.Delivery) error {
		err := work(ctx, 2*time.Millisecond)
		if err == nil {
			seen.add(string(d.Body))
		}
		return err
	}, rabbitmq.WithConcurrency(8))
	errc := run(context.Background(), c.Run)
	seen.wait(t, 30*time.Second, "50 messages", func() bool { return seen.count() >= 50 })
	if err := c.Drain(context.Background()); err != nil {
		t.Fatalf("Drain: %v", err)
	}
	if err := result(t, errc, 10*time.Second); err != nil {
		t.Fatalf("Run after Drain: got %v, want nil", err)
	}
	handled, left := seen.count(), b.depth(q)
	if seen.distinct() != handled {
		t.Errorf("a message was handled twice: %d deliveries, %d distinct", handled, seen.distinct())
	}
	if handled+left != n {
		t.Errorf("handled %d + left %d = %d, want %d", handled, left, handled+left, n)
	}
	if handled == n {
		t.Errorf("handled all %d messages: Drain came too late to test anything", n)
	}
}

// TestCancelRequeues: when Run's context ends, handlers cut short and
// deliveries not started are requeued: succeeded + left = published, and
// Run returns ctx.Err().
func TestCancelRequeues(t *testing.T) {
	b := dial(t)
	q := b.queue("cancel", nil)
	const n = 300
	b.publish(q, n)
	seen := newTally()
	var cut atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := rabbitmq.NewConsumer(node.URL, q, func(ctx context.Context, d amqp.Delivery) error {
		err := work(ctx, time.Millisecond)
		if err == nil {
			seen.add(string(d.Body))
		}
		return err
	}, rabbitmq.WithConcurrency(8), rabbitmq.OnError(func(d amqp.Delivery, err error) {
		if errors.Is(err, context.Canceled) {
			cut.Add(1)
		}
	}))
	errc := run(ctx, c.Run)
	seen.wait(t, 30*time.Second, "50 messages", func() bool { return seen.count() >= 50 })
	cancel()
	if err := result(t, errc, 10*time.Second); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run after cancel: got %v, want context.Canceled", err)
	}
	handled, left := seen.count(), b.depth(q)
	if seen.distinct() != handled {
		t.Errorf("a message was handled twice: %d deliveries, %d distinct", handled, seen.distinct())
	}
	if handled+left != n {
		t.Errorf("succeeded %d + left %d = %d, want %d", handled, left, handled+left, n)
	}
	t.Logf("succeeded %d, cut short or not started %d, left %d", handled, cut.Load(), left)
}

// TestBrokerKilled: the broker is killed with SIGKILL mid-stream and
// restarted on the same ports and state. Every confirmed message is handled
// at least once, each delivery is settled once (no channel error for an
// unknown delivery tag, one terminal observer event per task id across
// both connections), the consumer reports the loss, declares its queue
// again and resumes on its own, and the queue ends empty.
func TestBrokerKilled(t *testing.T) {
	b := dial(t)
	q := b.queue("killed", nil)
	const n = 1000
	b.publish(q, n)
	b.close()

	seen := newTally()
	// Once 200 messages were handled, the handlers wait for the kill, so
	// that it happens with deliveries in flight.
	killed := make(chan struct{})
	var started atomic.Int64
	var connErrs, declares atomic.Int64
	var terminal sync.Map // task id -> its terminal event kind
	var dupTerminal atomic.Int64
	var mu sync.Mutex
	var settleErrs []error // channel errors for an unknown delivery tag: a double ack
	c := rabbitmq.NewConsumer(node.URL, q, func(ctx context.Context, d amqp.Delivery) error {
		if started.Add(1) > 200 {
			select {
			case <-killed:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		err := work(ctx, 500*time.Microsecond)
		if err == nil {
			seen.add(string(d.Body))
		}
		return err
	}, rabbitmq.WithConcurrency(8), rabbitmq.WithBackoff(50*time.Millisecond, 500*time.Millisecond),
		rabbitmq.WithDeclare(func(ch *amqp.Channel) error {
			declares.Add(1)
			_, err := ch.QueueDeclare(q, true, false, false, false, nil)
			return err
		}),
		rabbitmq.WithObserver(func(e core.Event) {
			if e.Kind.Terminal() {
				if _, dup := terminal.LoadOrStore(e.Task, e.Kind); dup {
					dupTerminal.Add(1)
				}
			}
		}),
		rabbitmq.OnConnectionError(func(err error) {
			connErrs.Add(1)
			var ae *amqp.Error
			if errors.As(err, &ae) && ae.Code == amqp.PreconditionFailed {
				mu.Lock()
				settleErrs = append(settleErrs, err)
				mu.Unlock()
			}
		}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := run(ctx, c.Run)
	if err := node.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	seen.wait(t, 30*time.Second, "200 messages", func() bool { return seen.count() >= 200 })
	node.Kill()
	close(killed)
	before := seen.distinct()
	if err := node.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if t.Failed() {
			out, _ := node.Ctl(context.Background(), "list_queues", "name", "messages_ready", "messages_unacknowledged", "consumers", "state")
			t.Logf("queues:\n%s\nlog:\n%s", out, node.Log())
		}
	}()
	seen.wait(t, 60*time.Second, "every message after the restart", func() bool { return seen.distinct() >= n })
	if err := c.Drain(context.Background()); err != nil {
		t.Fatalf("Drain: %v", err)
	}
	if err := result(t, errc, 10*time.Second); err != nil {
		t.Fatalf("Run: got %v, want nil", err)
	}
	if before >= n {
		t.Errorf("handled all %d messages before the kill", n)
	}
	if got := connErrs.Load(); got < 1 {
		t.Errorf("connection errors reported: got %d, want at least 1", got)
	}
	if got := declares.Load(); got < 2 {
		t.Errorf("declarations: got %d, want at least 2 (again after the restart)", got)
	}
	if got := dupTerminal.Load(); got != 0 {
		t.Errorf("task ids with two terminal events: %d, want 0", got)
	}
	if len(settleErrs) > 0 {
		t.Errorf("channel errors from settling deliveries: %v", settleErrs)
	}
	b = dial(t)
	if got := b.depth(q); got != 0 {
		t.Errorf("left in the queue: got %d, want 0", got)
	}
	t.Logf("%d distinct before the kill, %d deliveries in all for %d messages, %d connection errors",
		before, seen.count(), n, connErrs.Load())
}
