package rabbitmq

import (
	"context"
	"errors"
	"fmt"
	"maps"
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

// DefaultConfirmTimeout bounds how long a publisher waits for the
// broker's confirm of a message, unless WithConfirmTimeout says otherwise.
const DefaultConfirmTimeout = 30 * time.Second

// closeTimeout bounds how long closing a connection waits for the broker;
// abortTimeout does once the context ended.
const (
	closeTimeout = 5 * time.Second
	abortTimeout = 500 * time.Millisecond
)

// Consumer handles the deliveries of a queue ([NewConsumer]) or of a
// partitioned exchange ([NewKeyedConsumer]) with a handler, acknowledging
// each delivery on its own after its handler returned nil.
//
// A delivery whose handler fails (returns an error or panics) is requeued
// the first time (or retried after [WithRetryDelay]) and rejected when it
// fails again (it is then dead-lettered if its queue has a dead-letter
// exchange); "again" means the broker marked it redelivered, which it
// also does for a delivery requeued by a shutdown or a lost connection. A
// delivery whose handler was cut short, or never started, because Run's
// context ended is requeued, never lost.
//
// The consumer owns its connection: when the connection or its channel is
// lost, it reports the error at once ([OnConnectionError], and a Resized
// event to [WithObserver]), cancels the lost channel's handlers,
// reconnects with backoff ([WithBackoff], [WithJitter]), declares again
// what [WithDeclare] declares, and resumes. Deliveries of the lost channel
// cannot be acknowledged any more: the broker requeues them, so each is
// handled at least once (handlers must be idempotent) and acknowledged at
// most once.
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
// [WithConcurrency](n) handlers at once, each given a context derived from
// ctx. It blocks until:
//
//   - Drain was called: the subscription was cancelled and every delivery
//     received was handled and settled; Run returns nil. A Drain before
//     the consumer subscribed makes Run return nil too, at once;
//   - ctx ends: the handlers in flight return (their deliveries are
//     acknowledged if they succeeded, requeued otherwise), the deliveries
//     not started are requeued; Run returns ctx.Err(). ctx also cuts
//     short dialling, the handshake and subscribing, and, once it ended,
//     Run waits no more than half a second for a broker that does not
//     answer (a Drain's cancel, the connection's close);
//   - the first connection fails (the broker cannot be reached, the queue
//     does not exist, a declaration fails), or a reconnection meets an
//     error that retrying cannot mend (access refused, not found,
//     precondition failed): Run returns that error.
//
// Once subscribed, whatever ends a session (the connection lost, a
// channel exception such as the broker's consumer_timeout or an
// acknowledgement it refused, the subscription cancelled by the broker) is
// reported to [OnConnectionError] and retried, until ctx ends. The loss is
// reported, and the consumer reconnects, at once: the lost channel's
// handlers get their context canceled (its cause, [context.Cause], is the
// loss) and may still be returning while the new channel's run, so that up
// to 2n handlers may briefly run at once ([WithSemaphore]'s limit still
// holds). Run returns only once every handler has returned.
//
// Run returns [ErrNilHandler] if the handler is nil and [ErrRunning] if it
// is called a second time; it panics if ctx is nil, before it connects.
func (c *Consumer) Run(ctx context.Context) error {
	if ctx == nil {
		panic("rabbitmq: Run with a nil Context")
	}
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
	// The handlers of lost sessions, which Run waits for before it returns.
	var lingering sync.WaitGroup
	defer lingering.Wait()

	backoff := c.cfg.minBackoff
	subscribedOnce := false
	for {
		if c.stopped() {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		subscribed, err := c.session(ctx, &lingering)
		switch {
		case err == nil:
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		case c.stopped():
			return nil
		case !subscribed && (!subscribedOnce || permanent(err)):
			return err
		}
		if subscribed {
			subscribedOnce = true
			backoff = c.cfg.minBackoff
		}
		if c.cfg.onConnError != nil {
			c.cfg.onConnError(err)
		}
		t := time.NewTimer(c.cfg.backoff(backoff))
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
// deliveries, finishes those it took, then closes its channels, which
// requeues the rest in order; see NewKeyedConsumer.) It blocks until then
// or until ctx ends, and then returns ctx.Err() (Run goes on draining; end
// Run's context to cut the draining short). It returns nil at once if Run
// was not called; a Run called after Drain returns nil at once.
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

func (c *Consumer) stopped() bool {
	select {
	case <-c.stop:
		return true
	default:
		return false
	}
}

var tagSeq atomic.Uint64

// newTag returns a consumer tag unique in the process.
func (c *Consumer) newTag() string {
	prefix := c.cfg.tag
	if prefix == "" {
		prefix = fmt.Sprintf("sluice-%d", os.Getpid())
	}
	return fmt.Sprintf("%s-%d", prefix, tagSeq.Add(1))
}

// errSetupCut is a session's error when ctx or Drain cut its setup short;
// Run returns ctx.Err() or nil instead.
var errSetupCut = errors.New("rabbitmq: connection setup cut short")

// session runs one connection: it connects, declares, subscribes and
// serves until the deliveries end. It returns a nil error after Drain, and
// otherwise why the session ended; subscribed says whether it got that
// far. A session that lost its channel returns at once, leaving its
// handlers to lingering.
func (c *Consumer) session(ctx context.Context, lingering *sync.WaitGroup) (subscribed bool, err error) {
	l, err := dialLink(ctx, c.url, c.cfg.amqp, c.stop)
	if err != nil {
		return false, err
	}
	defer func() {
		if !subscribed {
			l.close(false)
		}
	}()
	if err := l.open(); err != nil {
		return false, err
	}
	if c.cfg.declare != nil {
		if err := c.cfg.declare(l.ch); err != nil {
			return false, fmt.Errorf("rabbitmq: declare: %w", err)
		}
	}
	if c.exchange != "" {
		return c.keyedSession(ctx, l, lingering)
	}
	if c.cfg.retryDelay > 0 {
		if err := declareRetry(l.ch, c.queue, c.cfg.retryDelay.Milliseconds()); err != nil {
			return false, err
		}
		if err := l.ch.Confirm(false); err != nil {
			return false, fmt.Errorf("rabbitmq: confirm mode: %w", err)
		}
	}
	if err := l.ch.Qos(c.cfg.concurrency, 0, false); err != nil {
		return false, fmt.Errorf("rabbitmq: set prefetch: %w", err)
	}
	tag := c.newTag()
	dels, err := l.ch.Consume(c.queue, tag, false, false, false, false, c.cfg.args)
	if err != nil {
		return false, fmt.Errorf("rabbitmq: consume %q: %w", c.queue, err)
	}
	if l.endSetup() {
		return false, errSetupCut
	}
	c.emit(core.Event{Kind: core.Resized, Weight: int64(c.cfg.concurrency)})

	sctx, cancel := context.WithCancelCause(ctx)
	served := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		defer close(served)
		c.serve(sctx, l.ch, dels)
	}()
	// Drain cancels the subscription; the library then closes the
	// deliveries channel once it has passed on what it received.
	go func() {
		defer wg.Done()
		select {
		case <-c.stop:
			l.ch.Cancel(tag, false)
		case <-served:
		}
	}()
	finish := func(graceful bool) {
		if !graceful {
			l.close(false) // unblocks a Cancel the broker does not answer
		}
		wg.Wait()
		l.close(graceful)
		cancel(nil)
	}

	select {
	case <-served:
	case e := <-l.closed:
		// The channel is lost: its deliveries cannot be settled any more.
		// Cancel its handlers and report the loss now; they are waited
		// for by Run.
		err := lossError(e)
		cancel(err)
		c.emit(core.Event{Kind: core.Resized, Weight: 0, Err: err})
		lingering.Add(1)
		go func() {
			defer lingering.Done()
			finish(true)
		}()
		return true, err
	}
	if err := ctx.Err(); err != nil {
		finish(false)
		return true, err
	}
	if c.stopped() {
		finish(true)
		return true, nil
	}
	// The deliveries ended without Drain: the channel or the connection
	// closed, or the broker cancelled the subscription (its queue was
	// deleted).
	err = errors.New("rabbitmq: the broker cancelled the subscription")
	if l.ch.IsClosed() {
		err = lossError(<-l.closed)
	}
	finish(true)
	c.emit(core.Event{Kind: core.Resized, Weight: 0, Err: err})
	return true, err
}

// lossError is the error of a lost channel, from its NotifyClose channel.
func lossError(e *amqp.Error) error {
	if e == nil {
		return fmt.Errorf("rabbitmq: connection lost: %w", amqp.ErrClosed)
	}
	return fmt.Errorf("rabbitmq: connection lost: %w", e)
}

// serve handles one channel's deliveries with core.Consume.
func (c *Consumer) serve(ctx context.Context, ch *amqp.Channel, dels <-chan amqp.Delivery) {
	opts := []core.Option{
		core.WithConcurrency(c.cfg.concurrency),
		core.OnError(func(d amqp.Delivery, err error) { c.settle(ctx, d, err, c.queue) }),
	}
	if c.cfg.semaphore != nil {
		opts = append(opts, core.WithSemaphore(c.cfg.semaphore), core.WithPriority(c.cfg.priority))
	}
	if obs := c.observer(); obs != nil {
		opts = append(opts, core.WithObserver(obs))
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

// retryHeader marks the copy of a failed delivery that WithRetryDelay
// published: its failure rejects it.
const retryHeader = "x-sluice-retry"

// settle requeues or rejects a delivery that was not acknowledged, then
// reports it to OnError. Settling a delivery of a closed channel fails and
// needs not be done: the broker requeues it. queue is the queue it came
// from.
func (c *Consumer) settle(ctx context.Context, d amqp.Delivery, err error, queue string) {
	var ackErr *AckError
	_, retried := d.Headers[retryHeader]
	switch {
	case errors.As(err, &ackErr):
	case ctx.Err() != nil:
		d.Nack(false, true)
	case d.Redelivered || retried:
		d.Nack(false, false)
	case c.cfg.retryDelay > 0 && c.exchange == "" && c.retryLater(d, queue):
	default:
		d.Nack(false, true)
	}
	if c.cfg.onError != nil {
		c.cfg.onError(d, err)
	}
}

// retryLater publishes a copy of d to queue's delay queue, waits for the
// broker's confirm, then acknowledges d. It reports whether it did all of
// that; if not, d is still to be settled.
func (c *Consumer) retryLater(d amqp.Delivery, queue string) bool {
	ch, ok := d.Acknowledger.(*amqp.Channel)
	if !ok {
		return false
	}
	headers := amqp.Table{}
	maps.Copy(headers, d.Headers)
	headers[retryHeader] = int32(1)
	conf, err := ch.PublishWithDeferredConfirm("", retryQueue(queue), false, false, amqp.Publishing{
		Headers: headers, ContentType: d.ContentType, ContentEncoding: d.ContentEncoding,
		DeliveryMode: d.DeliveryMode, Priority: d.Priority, CorrelationId: d.CorrelationId,
		ReplyTo: d.ReplyTo, MessageId: d.MessageId, Timestamp: d.Timestamp, Type: d.Type,
		AppId: d.AppId, Body: d.Body,
	})
	if err != nil {
		return false
	}
	t := time.NewTimer(c.cfg.confirmWait)
	defer t.Stop()
	select {
	case <-conf.Done():
		if !conf.Acked() {
			return false
		}
	case <-t.C:
		return false
	}
	return d.Ack(false) == nil
}

// observer returns the observer of one session, nil if none: task ids
// continue those of the earlier sessions, whose handlers may still be
// reporting.
func (c *Consumer) observer() func(core.Event) {
	if c.cfg.observer == nil {
		return nil
	}
	var mu sync.Mutex
	ids := map[uint64]uint64{} // the session's task id -> the consumer's
	return func(e core.Event) {
		if e.Task != 0 {
			mu.Lock()
			id, ok := ids[e.Task]
			if !ok {
				id = c.ids.Add(1)
				ids[e.Task] = id
			}
			if e.Kind.Terminal() {
				delete(ids, e.Task)
			}
			mu.Unlock()
			e.Task = id
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
