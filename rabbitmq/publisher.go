package rabbitmq

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// ErrClosed is returned by a [Publisher]'s Publish once Close was called.
var ErrClosed = errors.New("rabbitmq: publisher closed")

// ErrNacked is returned by Publish when the broker refused a message (a
// basic.nack on a channel that stays open: a queue full with
// overflow=reject-publish, or an internal error). The message was not
// published; publishing it again may succeed.
var ErrNacked = errors.New("rabbitmq: the broker refused the message (nack)")

// errConfirmTimeout ends a publisher's connection that did not confirm a
// message within WithConfirmTimeout.
var errConfirmTimeout = errors.New("rabbitmq: no confirm within the confirm timeout")

// Publisher publishes messages with publisher confirms, over a connection
// of its own that it opens on the first Publish and opens again, with the
// consumer's backoff ([WithBackoff], [WithJitter]), whenever it is lost.
// Its methods may be called from many goroutines at once: they share one
// channel, on which the broker confirms messages as they are routed and,
// for persistent messages on durable queues, written to disk.
//
// The options that apply to a Publisher are [WithBackoff], [WithJitter],
// [WithConfirmTimeout], [WithHeartbeat], [WithAMQPConfig], [WithDeclare]
// (called on every new connection's channel) and [OnConnectionError]
// (called, on a Publish caller's goroutine, with each error that ended a
// connection or failed a reconnection); the others are ignored.
//
// A Publisher starts no goroutine of its own: the callers of Publish
// connect, each waiting for the one that does.
type Publisher struct {
	url string
	cfg config

	live atomic.Pointer[pubLink] // cur, read without the lock by Publish

	mu         sync.Mutex
	cur        *pubLink      // nil while not connected
	connecting chan struct{} // closed when the connecting caller is done; nil if none
	closed     bool
	backoff    time.Duration // the next wait after a failure
	retryAt    time.Time     // no dial before then
}

// pubLink is one connection of a Publisher, its channel in confirm mode,
// and the exchanges known to exist on it.
type pubLink struct {
	*link
	mu    sync.Mutex
	known map[string]bool // exchange -> checked (or declared) on this link
}

// NewPublisher returns a publisher to the broker at url. It does not
// connect: the first Publish does.
func NewPublisher(url string, opts ...Option) *Publisher {
	cfg := newConfig(opts)
	return &Publisher{url: url, cfg: cfg, backoff: cfg.minBackoff}
}

// Publish publishes msg to exchange with routing key key, and blocks
// until the broker confirmed it (it returns nil) or ctx ends (it returns
// ctx.Err(); the message may or may not have been published). When the
// connection is lost, or the broker does not confirm within
// [WithConfirmTimeout], before the confirm came, it publishes msg again on
// a new connection: a message may so be published twice, never lost once
// Publish returned nil. It returns [ErrNacked] if the broker refused the
// message, [ErrClosed] after Close, and, without retrying, errors that
// retrying cannot mend: access refused, an exchange that does not exist
// (checked once per exchange and connection). Publish does not set the
// mandatory flag: a message that no queue is bound to take is confirmed
// and dropped. Use amqp.Persistent as msg's DeliveryMode for a message
// that must survive the broker's restart. It panics if ctx is nil.
func (p *Publisher) Publish(ctx context.Context, exchange, key string, msg amqp.Publishing) error {
	return p.publish(ctx, exchange, key, msg, false)
}

// PublishKeyed publishes msg, as Publish does, to exchange, a
// consistent-hash exchange that a [NewKeyedConsumer] reads: key is the
// message's key (its routing key), whose messages the keyed consumers
// handle in the order they were confirmed. It declares the exchange (a
// durable x-consistent-hash exchange, as [DeclarePartitions] does) on
// each connection before it first publishes to it, but not its
// partitions: until a keyed consumer or DeclarePartitions declared them,
// messages are dropped. Messages of one key published concurrently, or
// published again after a lost connection, have no order between them:
// publish a key's messages one after another.
func (p *Publisher) PublishKeyed(ctx context.Context, exchange, key string, msg amqp.Publishing) error {
	return p.publish(ctx, exchange, key, msg, true)
}

func (p *Publisher) publish(ctx context.Context, exchange, key string, msg amqp.Publishing, keyed bool) error {
	if ctx == nil {
		panic("rabbitmq: Publish with a nil Context")
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		l, err := p.link(ctx)
		if err != nil {
			return err
		}
		if err := p.exchange(l, exchange, keyed); err != nil {
			if l.ch.IsClosed() && !permanent(err) {
				p.lose(l, err)
				continue
			}
			return err
		}
		conf, err := l.ch.PublishWithDeferredConfirmWithContext(ctx, exchange, key, false, false, msg)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			p.lose(l, fmt.Errorf("rabbitmq: publish: %w", err))
			continue
		}
		t := time.NewTimer(p.cfg.confirmWait)
		select {
		case <-conf.Done():
			t.Stop()
			if conf.Acked() {
				return nil
			}
			if !l.ch.IsClosed() {
				return ErrNacked
			}
			err := amqp.ErrClosed
			if e, ok := <-l.closed; ok && e != nil {
				err = e
			}
			p.lose(l, lossError(err))
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
			p.lose(l, errConfirmTimeout)
		}
	}
}

// link returns the current connection, connecting if there is none: the
// first caller to find none connects, after the backoff if the last try
// failed, and the others wait for it (or for their ctx).
func (p *Publisher) link(ctx context.Context) (*pubLink, error) {
	if l := p.live.Load(); l != nil && !l.ch.IsClosed() {
		return l, nil
	}
	p.mu.Lock()
	for {
		switch {
		case p.closed:
			p.mu.Unlock()
			return nil, ErrClosed
		case p.cur != nil && !p.cur.ch.IsClosed():
			l := p.cur
			p.mu.Unlock()
			return l, nil
		case p.cur != nil:
			l := p.cur
			p.mu.Unlock()
			p.lose(l, lossError(nil))
			p.mu.Lock()
			continue
		case p.connecting != nil:
			wait := p.connecting
			p.mu.Unlock()
			select {
			case <-wait:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			p.mu.Lock()
			continue
		}
		break
	}
	done := make(chan struct{})
	p.connecting = done
	retryAt := p.retryAt
	p.mu.Unlock()

	l, err := p.connect(ctx, retryAt)

	p.mu.Lock()
	p.connecting = nil
	close(done)
	switch {
	case err == nil && p.closed:
		p.mu.Unlock()
		l.close(true)
		return nil, ErrClosed
	case err == nil:
		p.cur = l
		p.live.Store(l)
		p.backoff = p.cfg.minBackoff
		p.mu.Unlock()
		return l, nil
	case ctx.Err() != nil:
		p.mu.Unlock()
		return nil, ctx.Err()
	}
	p.retryAt = time.Now().Add(p.cfg.backoff(p.backoff))
	p.backoff = min(2*p.backoff, p.cfg.maxBackoff)
	p.mu.Unlock()
	if permanent(err) {
		return nil, err
	}
	if p.cfg.onConnError != nil {
		p.cfg.onConnError(err)
	}
	return p.link(ctx)
}

// connect waits until retryAt, then dials and opens a channel in confirm
// mode; ctx cuts both short.
func (p *Publisher) connect(ctx context.Context, retryAt time.Time) (*pubLink, error) {
	if d := time.Until(retryAt); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
	}
	l, err := dialLink(ctx, p.url, p.cfg.amqp, nil)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*pubLink, error) {
		l.close(false)
		return nil, err
	}
	if err := l.open(); err != nil {
		return fail(err)
	}
	if p.cfg.declare != nil {
		if err := p.cfg.declare(l.ch); err != nil {
			return fail(fmt.Errorf("rabbitmq: declare: %w", err))
		}
	}
	if err := l.ch.Confirm(false); err != nil {
		return fail(fmt.Errorf("rabbitmq: confirm mode: %w", err))
	}
	if l.endSetup() {
		return fail(ctx.Err())
	}
	return &pubLink{link: l, known: map[string]bool{}}, nil
}

// exchange makes sure exchange exists on l, once per exchange and link:
// keyed, it declares it as a consistent-hash exchange; otherwise it checks
// it with a passive declaration, on a channel of its own (a failed one
// closes its channel). The default exchange always exists.
func (p *Publisher) exchange(l *pubLink, exchange string, keyed bool) error {
	if exchange == "" {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.known[exchange] {
		return nil
	}
	ch, err := l.conn.Channel()
	if err != nil {
		return fmt.Errorf("rabbitmq: open a channel: %w", err)
	}
	defer ch.Close()
	if keyed {
		err = declareHashExchange(ch, exchange)
	} else if err = ch.ExchangeDeclarePassive(exchange, "", false, false, false, false, nil); err != nil {
		err = fmt.Errorf("rabbitmq: exchange %q: %w", exchange, err)
	}
	if err != nil {
		return err
	}
	l.known[exchange] = true
	return nil
}

// lose drops l, if it is still the current connection, and reports why;
// the next Publish connects again, after the backoff's first wait.
func (p *Publisher) lose(l *pubLink, err error) {
	p.mu.Lock()
	if p.cur != l {
		p.mu.Unlock()
		return
	}
	p.cur = nil
	p.live.Store(nil)
	p.retryAt = time.Now().Add(p.cfg.backoff(p.cfg.minBackoff))
	p.mu.Unlock()
	l.close(false)
	if p.cfg.onConnError != nil {
		p.cfg.onConnError(err)
	}
}

// Close closes the publisher's connection, waiting up to 5 s for the
// broker to answer. Publish calls waiting for a confirm then publish no
// more: they return [ErrClosed] (their message may have been published),
// as do later ones. Close is idempotent.
func (p *Publisher) Close() error {
	p.mu.Lock()
	p.closed = true
	l := p.cur
	p.cur = nil
	p.live.Store(nil)
	p.mu.Unlock()
	if l != nil {
		l.close(true)
	}
	return nil
}
