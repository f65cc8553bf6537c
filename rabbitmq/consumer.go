package rabbitmq

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"sluice/core"
)

// ErrNilHandler is returned by Run when the consumer's handler is nil.
var ErrNilHandler = errors.New("rabbitmq: handler is nil")

// ErrRunning is returned by Run when the consumer already ran or is
// running: a Consumer runs once.
var ErrRunning = errors.New("rabbitmq: Run called more than once on a Consumer")

// AckError is the error reported to [OnError] for a delivery that could not
// be acknowledged, or whose handler was not called, because its channel
// had closed. The broker requeues such a delivery and sends it again.
type AckError struct {
	Err error
}

// Error reports the channel's error, prefixed "rabbitmq: ack: ".
func (e *AckError) Error() string { return "rabbitmq: ack: " + e.Err.Error() }

// Unwrap returns the channel's error.
func (e *AckError) Unwrap() error { return e.Err }

// closeTimeout bounds how long closing a connection waits for the broker.
const closeTimeout = 5 * time.Second

// Consumer handles the deliveries of a queue ([NewConsumer]) or of a
// partitioned exchange ([NewKeyedConsumer]) with a handler, acknowledging
// each delivery on its own after its handler returned nil.
//
// A delivery whose handler fails (returns an error or panics) is requeued
// the first time and rejected when it fails again (it is then
// dead-lettered if its queue has a dead-letter exchange); "again" means
// the broker marked it redelivered, which it also does for a delivery
// requeued by a shutdown or a lost connection. A delivery whose handler
// was cut short, or never started, because Run's context ended is
// requeued, never lost.
//
// The consumer owns its connection: when the connection or its channel is
// lost, it reports the error ([OnConnectionError], and a Resized event to
// [WithObserver]), reconnects with backoff ([WithBackoff]), declares again
// what [WithDeclare] declares, and resumes. Deliveries of the lost channel
// cannot be acknowledged any more: the broker requeues them, so each is
// handled at least once and acknowledged at most once.
type Consumer struct {
	url        string
	queue      string // NewConsumer
	exchange   string // NewKeyedConsumer
	partitions int
	handle     func(context.Context, amqp.Delivery) error
	cfg        config

	stop     chan struct{} // closed by Drain
	stopOnce sync.Once
	started  atomic.Bool
	done     chan struct{} // closed when Run returns
	ids      atomic.Uint64 // observer task ids handed out in earlier sessions
}

// NewConsumer returns a consumer of queue on the broker at url (an AMQP
// URL such as amqp://guest:guest@127.0.0.1:5672/). It does not connect:
// [Consumer.Run] does. The queue must exist, or be declared by
// [WithDeclare]. It handles deliveries with [core.Consume]: with
// [WithConcurrency](1), the default, one at a time in the order received;
// with n > 1 their handlers start in that order and may end in any order.
func NewConsumer(url, queue string, handle func(context.Context, amqp.Delivery) error, opts ...Option) *Consumer {
	return &Consumer{url: url, queue: queue, handle: handle, cfg: newConfig(opts),
		stop: make(chan struct{}), done: make(chan struct{})}
}

// Consume is NewConsumer(url, queue, handle, opts...).Run(ctx): it handles
// queue's deliveries until ctx ends or the consumer fails for good.
func Consume(ctx context.Context, url, queue string, handle func(context.Context, amqp.Delivery) error, opts ...Option) error {
	return NewConsumer(url, queue, handle, opts...).Run(ctx)
}

// Run connects, subscribes and handles deliveries, with at most
// [WithConcurrency](n) handlers at once, each given ctx. It blocks until:
//
//   - Drain was called: the subscription was cancelled and every delivery
//     received was handled and settled; Run returns nil;
//   - ctx ends: the handlers in flight return (their deliveries are
//     acknowledged if they succeeded, requeued otherwise), the deliveries
//     not started are requeued; Run returns ctx.Err();
//   - the first connection fails (the broker cannot be reached, the queue
//     does not exist, a declaration fails), or a reconnection meets an
//     error that retrying cannot mend (access refused, not found,
//     precondition failed): Run returns that error.
//
// A connection lost after the consumer subscribed is retried until ctx
// ends. Run returns [ErrNilHandler] if the handler is nil and [ErrRunning]
// if it is called a second time.
func (c *Consumer) Run(ctx context.Context) error {
	if c.handle == nil {
		return ErrNilHandler
	}
	if c.queue == "" && c.exchange == "" {
		return errors.New("rabbitmq: no queue name")
	}
	if !c.started.CompareAndSwap(false, true) {
		return ErrRunning
	}
	defer close(c.done)
	defer c.emit(core.Event{Kind: core.Closed})

	backoff := c.cfg.minBackoff
	subscribedOnce := false
	for {
		select {
		case <-c.stop:
			return nil
		default:
		}
		subscribed, err := c.session(ctx)
		switch {
		case err == nil:
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		case !subscribedOnce && !subscribed, permanent(err):
			return err
		}
		if subscribed {
			subscribedOnce = true
			backoff = c.cfg.minBackoff
		}
		if c.cfg.onConnError != nil {
			c.cfg.onConnError(err)
		}
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-c.stop:
			t.Stop()
			return nil
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
		backoff = min(2*backoff, c.cfg.maxBackoff)
	}
}

// Drain stops the consumer gracefully: it cancels the subscription, lets
// the handlers finish with every delivery already received and acknowledge
// it, and waits for Run to return. (A keyed consumer instead stops taking
// deliveries, finishes those it took, then closes its channel, which
// requeues the rest in order; see NewKeyedConsumer.) It blocks until then or until ctx ends,
// and then returns ctx.Err() (Run goes on draining). It returns nil at once
// if Run was not called; a Run called after Drain returns nil at once.
func (c *Consumer) Drain(ctx context.Context) error {
	c.stopOnce.Do(func() { close(c.stop) })
	if !c.started.Load() {
		return nil
	}
	select {
	case <-c.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// queues returns the queues the consumer subscribes to.
func (c *Consumer) queues() []string {
	if c.exchange == "" {
		return []string{c.queue}
	}
	qs := make([]string, c.partitions)
	for i := range qs {
		qs[i] = PartitionQueue(c.exchange, i)
	}
	return qs
}

var tagSeq atomic.Uint64

// session runs one connection: it connects, declares, subscribes and
// serves until the deliveries end. It returns a nil error after Drain, and
// otherwise why the deliveries ended; subscribed says whether it got that
// far.
func (c *Consumer) session(ctx context.Context) (subscribed bool, err error) {
	conn, err := amqp.DialConfig(c.url, c.cfg.amqp)
	if err != nil {
		return false, fmt.Errorf("rabbitmq: dial: %w", err)
	}
	defer func() { conn.CloseDeadline(time.Now().Add(closeTimeout)) }()
	ch, err := conn.Channel()
	if err != nil {
		return false, fmt.Errorf("rabbitmq: open a channel: %w", err)
	}
	// Buffered: the library sends the channel's error once, then closes.
	closed := ch.NotifyClose(make(chan *amqp.Error, 1))
	if c.cfg.declare != nil {
		if err := c.cfg.declare(ch); err != nil {
			return false, fmt.Errorf("rabbitmq: declare: %w", err)
		}
	}
	if c.exchange != "" {
		if err := DeclarePartitions(ch, c.exchange, c.partitions); err != nil {
			return false, err
		}
	}
	if err := ch.Qos(c.cfg.concurrency, 0, false); err != nil {
		return false, fmt.Errorf("rabbitmq: set prefetch: %w", err)
	}
	var (
		tags []string
		dels []<-chan amqp.Delivery
	)
	for _, q := range c.queues() {
		tag := fmt.Sprintf("sluice-%d-%d", os.Getpid(), tagSeq.Add(1))
		d, err := ch.Consume(q, tag, false, false, false, false, nil)
		if err != nil {
			return false, fmt.Errorf("rabbitmq: consume %q: %w", q, err)
		}
		tags = append(tags, tag)
		dels = append(dels, d)
	}
	c.emit(core.Event{Kind: core.Resized, Weight: int64(c.cfg.concurrency)})

	base := c.ids.Load()
	var last atomic.Uint64
	if c.exchange == "" {
		// Drain cancels the subscription; the library then closes the
		// deliveries channel once it has passed on what it received.
		stopped := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-c.stop:
				ch.Cancel(tags[0], false)
			case <-stopped:
			}
		}()
		c.serve(ctx, ch, dels[0], base, &last)
		close(stopped)
		wg.Wait()
	} else {
		c.serveKeyed(ctx, ch, dels, base, &last)
	}
	c.ids.Add(last.Load())

	if err := ctx.Err(); err != nil {
		return true, err
	}
	select {
	case <-c.stop:
		return true, nil
	default:
	}
	// The deliveries ended without Drain: the channel or the connection
	// closed, or the broker cancelled the subscription (its queue was
	// deleted).
	err = errors.New("rabbitmq: the broker cancelled the subscription")
	if ch.IsClosed() {
		err = amqp.ErrClosed
		if e, ok := <-closed; ok && e != nil {
			err = e
		}
		err = fmt.Errorf("rabbitmq: connection lost: %w", err)
	}
	c.emit(core.Event{Kind: core.Resized, Weight: 0, Err: err})
	return true, err
}

// serve handles one channel's deliveries with core.Consume.
func (c *Consumer) serve(ctx context.Context, ch *amqp.Channel, dels <-chan amqp.Delivery, base uint64, last *atomic.Uint64) {
	opts := []core.Option{
		core.WithConcurrency(c.cfg.concurrency),
		core.OnError(func(d amqp.Delivery, err error) { c.settle(ctx, d, err) }),
	}
	if c.cfg.semaphore != nil {
		opts = append(opts, core.WithSemaphore(c.cfg.semaphore), core.WithPriority(c.cfg.priority))
	}
	if c.cfg.observer != nil {
		opts = append(opts, core.WithObserver(c.observe(base, last)))
	}
	core.Consume(ctx, dels, func(ctx context.Context, d amqp.Delivery) error {
		return c.handleAck(ctx, ch, d)
	}, opts...)
}

// handleAck calls the handler and acknowledges the delivery if it
// succeeded. A delivery whose channel has closed is not handled: the
// broker sends it again.
func (c *Consumer) handleAck(ctx context.Context, ch *amqp.Channel, d amqp.Delivery) error {
	if ch.IsClosed() {
		return &AckError{Err: amqp.ErrClosed}
	}
	if err := c.handle(ctx, d); err != nil {
		return err
	}
	if err := d.Ack(false); err != nil {
		return &AckError{Err: err}
	}
	return nil
}

// settle requeues or rejects a delivery that was not acknowledged, then
// reports it to OnError. Settling a delivery of a closed channel fails and
// needs not be done: the broker requeues it.
func (c *Consumer) settle(ctx context.Context, d amqp.Delivery, err error) {
	var ackErr *AckError
	switch {
	case errors.As(err, &ackErr):
	case ctx.Err() != nil, !d.Redelivered:
		d.Nack(false, true)
	default:
		d.Nack(false, false)
	}
	if c.cfg.onError != nil {
		c.cfg.onError(d, err)
	}
}

// observe returns the observer of one session: task ids continue those of
// the earlier sessions.
func (c *Consumer) observe(base uint64, last *atomic.Uint64) func(core.Event) {
	return func(e core.Event) {
		if e.Task != 0 {
			for l := last.Load(); e.Task > l && !last.CompareAndSwap(l, e.Task); l = last.Load() {
			}
			e.Task += base
		}
		c.cfg.observer(e)
	}
}

func (c *Consumer) emit(e core.Event) {
	if c.cfg.observer == nil {
		return
	}
	e.Time = time.Now()
	c.cfg.observer(e)
}

// permanent reports whether err is one that reconnecting cannot mend.
func permanent(err error) bool {
	var e *amqp.Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code {
	case amqp.AccessRefused, amqp.NotFound, amqp.PreconditionFailed, amqp.NotAllowed,
		amqp.SyntaxError, amqp.CommandInvalid, amqp.NotImplemented:
		return true
	}
	return false
}
