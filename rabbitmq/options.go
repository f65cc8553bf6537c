package rabbitmq

import (
	"fmt"
	"math/rand/v2"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"sluice/core"
)

// Option configures a [Consumer] or a [Publisher]. The options named like
// core's do what core's do for [core.Consume]; the others are the
// broker's. An option that does not apply to what it is given to is
// ignored (see Publisher for those that apply to it).
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
	noJitter    bool
	retryDelay  time.Duration
	tag         string
	args        amqp.Table
	partitions  []DeclareOption
	heartbeat   time.Duration // -1: the default
	confirmWait time.Duration
	amqp        amqp.Config
}

// Default reconnection backoff: the first retry waits DefaultMinBackoff,
// each failed one doubles the wait, up to DefaultMaxBackoff (each wait
// then jittered: see WithJitter).
const (
	DefaultMinBackoff = 100 * time.Millisecond
	DefaultMaxBackoff = 10 * time.Second
)

func newConfig(opts []Option) config {
	c := config{concurrency: 1, minBackoff: DefaultMinBackoff, maxBackoff: DefaultMaxBackoff,
		heartbeat: -1, confirmWait: DefaultConfirmTimeout}
	for _, o := range opts {
		if o != nil {
			o.apply(&c)
		}
	}
	switch {
	case c.heartbeat > 0:
		c.amqp.Heartbeat = c.heartbeat
	case c.heartbeat == 0:
		c.amqp.Heartbeat = -1 // amqp091-go proposes no heartbeat for less than 1s
	case c.amqp.Heartbeat == 0:
		c.amqp.Heartbeat = DefaultHeartbeat
	}
	c.amqp.Recovery = nil // the consumer reconnects by itself
	return c
}

// DefaultHeartbeat is the heartbeat a connection proposes unless
// [WithHeartbeat] or [WithAMQPConfig] says otherwise; DialTimeout bounds
// how long dialling and the AMQP handshake take, unless WithAMQPConfig
// gives a Dial of its own.
const (
	DefaultHeartbeat = 10 * time.Second
	DialTimeout      = 10 * time.Second
)

// backoff returns how long to wait before the next retry, given the
// current backoff b: b itself without jitter, otherwise a uniformly random
// duration in [b/2, b], so that a fleet that lost its broker at once does
// not reconnect in lockstep.
func (c *config) backoff(b time.Duration) time.Duration {
	if c.noJitter || b < 2 {
		return b
	}
	return b/2 + rand.N(b-b/2+1)
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
// connection short (a lost connection, a channel exception, a
// subscription the broker cancelled) or failed a reconnection, before it
// waits to reconnect. fn runs on the goroutine that called Run; it must
// not block for long.
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
// connection waits min, each failed retry doubles the wait, up to max;
// [WithJitter] (on by default) then draws each wait from [b/2, b].
// It panics if min <= 0 or max < min.
func WithBackoff(min, max time.Duration) Option {
	if min <= 0 || max < min {
		panic(fmt.Sprintf("rabbitmq: backoff %v..%v: want 0 < min <= max", min, max))
	}
	return optionFunc(func(c *config) { c.minBackoff, c.maxBackoff = min, max })
}

// WithJitter turns the reconnection backoff's jitter on (the default) or
// off. With jitter, each wait is drawn uniformly from [b/2, b], b being the
// backoff that WithBackoff describes; without it, each wait is b.
func WithJitter(on bool) Option {
	return optionFunc(func(c *config) { c.noJitter = !on })
}

// WithRetryDelay makes a failed delivery wait d before its second (and
// last) attempt, instead of going back to its queue at once: the consumer
// publishes a copy of it, with its headers, to the queue "<queue>.retry"
// (durable, declared by every session, messages living d there, then
// dead-lettered to the default exchange with the original queue's name as
// routing key), waits for the broker's confirm, then acknowledges the
// original. The copy carries the header "x-sluice-retry", which counts as
// the redelivered flag: its failure rejects it (dead-letters it). If the
// copy cannot be confirmed, the original is requeued at once instead. So
// a dependency that is down for less than d does not dead-letter the
// messages that met it. A copy goes to the back of its queue: a keyed
// consumer's later messages of its key are handled before it, as for a
// requeue. It panics if d < 0; 0, the default, requeues at once.
func WithRetryDelay(d time.Duration) Option {
	if d < 0 {
		panic(fmt.Sprintf("rabbitmq: retry delay %v: want at least 0", d))
	}
	return optionFunc(func(c *config) { c.retryDelay = d })
}

// WithConsumerTag sets the prefix of the consumer's tags; each
// subscription's tag is prefix + "-" + a number unique in the process
// (default prefix "sluice-<pid>"). The broker's tools show it.
func WithConsumerTag(prefix string) Option {
	return optionFunc(func(c *config) { c.tag = prefix })
}

// WithConsumerArgs sets the arguments of basic.consume, such as
// amqp.Table{"x-priority": 10}.
func WithConsumerArgs(args amqp.Table) Option {
	return optionFunc(func(c *config) { c.args = args })
}

// WithPartitionDeclare makes a keyed consumer declare its partitions with
// opts ([Quorum], [QueueArgs]); every process, and [DeclarePartitions]
// anywhere else, must declare them alike.
func WithPartitionDeclare(opts ...DeclareOption) Option {
	return optionFunc(func(c *config) { c.partitions = opts })
}

// WithHeartbeat sets the heartbeat interval the connections propose
// (default [DefaultHeartbeat]): a connection on which nothing arrives for
// about three intervals is taken as lost, which finds a frozen broker or a
// network black hole. 0 proposes none: the connection then uses the
// broker's interval, and has no heartbeat only if the broker's is off too
// (heartbeat = 0 in its rabbitmq.conf), as AMQP 0-9-1 negotiates it. It
// panics if d < 0. It overrides WithAMQPConfig's Heartbeat.
func WithHeartbeat(d time.Duration) Option {
	if d < 0 {
		panic(fmt.Sprintf("rabbitmq: heartbeat %v: want at least 0", d))
	}
	return optionFunc(func(c *config) { c.heartbeat = d })
}

// WithConfirmTimeout bounds how long a [Publisher] waits for the broker to
// confirm a message (default [DefaultConfirmTimeout]): past it, the
// Publisher takes its connection as lost, drops it, and publishes again on
// a new one. It panics if d <= 0. Consumers ignore it.
func WithConfirmTimeout(d time.Duration) Option {
	if d <= 0 {
		panic(fmt.Sprintf("rabbitmq: confirm timeout %v: want more than 0", d))
	}
	return optionFunc(func(c *config) { c.confirmWait = d })
}

// WithAMQPConfig sets the configuration of the consumer's connections
// (TLS, heartbeat, properties). Its Recovery is ignored: the consumer
// reconnects by itself. By default connections dial with a [DialTimeout]
// timeout, which Run's context can cut short, and a [DefaultHeartbeat]
// heartbeat; a Dial of cfg's own is used as it is, and only the AMQP
// handshake that follows it is cut short by the context.
func WithAMQPConfig(cfg amqp.Config) Option {
	return optionFunc(func(c *config) { c.amqp = cfg })
}
