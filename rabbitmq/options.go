package rabbitmq

import (
	"fmt"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"sluice/core"
)

// Option configures a [Consumer]. The options named like core's do what
// core's do for [core.Consume]; the others are the broker's.
type Option interface {
	apply(*config)
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

type config struct {
	concurrency int
	semaphore   *core.Semaphore
	priority    core.Priority
	observer    func(core.Event)
	onError     func(amqp.Delivery, error)
	onConnError func(error)
	declare     func(*amqp.Channel) error
	minBackoff  time.Duration
	maxBackoff  time.Duration
	amqp        amqp.Config
}

// Default reconnection backoff: the first retry waits DefaultMinBackoff,
// each failed one doubles the wait, up to DefaultMaxBackoff.
const (
	DefaultMinBackoff = 100 * time.Millisecond
	DefaultMaxBackoff = 10 * time.Second
)

func newConfig(opts []Option) config {
	c := config{concurrency: 1, minBackoff: DefaultMinBackoff, maxBackoff: DefaultMaxBackoff}
	for _, o := range opts {
		if o != nil {
			o.apply(&c)
		}
	}
	if c.amqp.Dial == nil {
		c.amqp.Dial = amqp.DefaultDial(10 * time.Second)
	}
	if c.amqp.Heartbeat == 0 {
		c.amqp.Heartbeat = 10 * time.Second
	}
	c.amqp.Recovery = nil // the consumer reconnects by itself
	return c
}

// WithConcurrency sets how many handlers run at once, and the channel's
// prefetch: the broker sends no more than n unacknowledged deliveries to
// the consumer (n per partition queue for a keyed consumer). The default
// is 1: deliveries are handled one by one, in order. It panics if n < 1.
func WithConcurrency(n int) Option {
	if n < 1 {
		panic(fmt.Sprintf("rabbitmq: concurrency %d must be at least 1", n))
	}
	return optionFunc(func(c *config) { c.concurrency = n })
}

// WithSemaphore makes each handler also hold one token of s, so that the
// consumers (and core primitives) sharing s share one global limit. A
// delivery waiting for a token has been received and counts against the
// prefetch.
func WithSemaphore(s *core.Semaphore) Option {
	return optionFunc(func(c *config) { c.semaphore = s })
}

// WithPriority sets the priority of this consumer's requests on the
// semaphore given to WithSemaphore (default [core.Normal]).
func WithPriority(p core.Priority) Option {
	return optionFunc(func(c *config) { c.priority = p })
}

// WithObserver reports each delivery as a core task: Enqueued when
// received, Waiting when it waits for a semaphore token, Started, then
// Finished (handled and acknowledged), Failed, Panicked or Canceled. Task
// ids are unique for the consumer's life, across reconnections; a keyed
// consumer's events carry the key and its lanes' events. A Resized event
// reports the limit when the consumer starts consuming (Weight n) and when
// it loses its connection (Weight 0, Err the reason), so that a trace shows
// the time it was away. fn is called as [core.WithObserver] says.
func WithObserver(fn func(core.Event)) Option {
	return optionFunc(func(c *config) { c.observer = fn })
}

// OnError makes the consumer call fn with each delivery whose handler
// failed (returned an error or panicked: a [*core.PanicError]), whose
// handler was cut short or never started because the consumer's context
// ended (the error is then ctx.Err() or the handler's), or whose
// acknowledgement failed (an [*AckError]). fn runs after the delivery was
// settled (acknowledged, requeued or rejected), on the handler's goroutine;
// it must not panic.
func OnError(fn func(amqp.Delivery, error)) Option {
	return optionFunc(func(c *config) { c.onError = fn })
}

// OnConnectionError makes the consumer call fn with each error that cut a
// connection short or failed a reconnection, before it waits to reconnect.
// fn runs on the goroutine that called Run; it must not block for long.
func OnConnectionError(fn func(error)) Option {
	return optionFunc(func(c *config) { c.onConnError = fn })
}

// WithDeclare makes the consumer call fn on every new channel, before it
// subscribes: declare there the queues, exchanges and bindings the consumer
// needs, so that they are declared again after the broker lost them. An
// error from fn ends a first connection's Run; on a reconnection it is
// retried.
func WithDeclare(fn func(*amqp.Channel) error) Option {
	return optionFunc(func(c *config) { c.declare = fn })
}

// WithBackoff sets the reconnection backoff: the first retry after a lost
// connection waits min, each failed retry doubles the wait, up to max.
// It panics if min <= 0 or max < min.
func WithBackoff(min, max time.Duration) Option {
	if min <= 0 || max < min {
		panic(fmt.Sprintf("rabbitmq: backoff %v..%v: want 0 < min <= max", min, max))
	}
	return optionFunc(func(c *config) { c.minBackoff, c.maxBackoff = min, max })
}

// WithAMQPConfig sets the configuration of the consumer's connections
// (TLS, heartbeat, properties). Its Recovery is ignored: the consumer
// reconnects by itself. By default connections dial with a 10 s timeout
// and a 10 s heartbeat.
func WithAMQPConfig(cfg amqp.Config) Option {
	return optionFunc(func(c *config) { c.amqp = cfg })
}
