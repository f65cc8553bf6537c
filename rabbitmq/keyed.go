package rabbitmq

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"sluice/core"
)

// NewKeyedConsumer returns a consumer that handles the messages published
// to exchange in per-key order, across every process that runs one: the
// key of a message is its routing key.
//
// exchange is a consistent-hash exchange (the broker's plugin
// rabbitmq_consistent_hash_exchange) that routes each message, by a hash of
// its routing key, to one of partitions queues, each with a single active
// consumer: the consumer of each process subscribes to every partition, on
// a channel per partition, starting at a random one; the broker delivers a
// partition's messages to one of them at a time, in order, and hands the
// partition to another when that one goes away. So a key's messages are
// handled by one process at a time, in publication order. Each session
// declares the exchange and its queues ([DeclarePartitions], with
// [WithPartitionDeclare]'s options) before it subscribes, and declares a
// partition again, and subscribes to it again, if the broker cancels its
// subscription (its queue was deleted).
//
// The partitions spread over the processes: a process that is the active
// consumer of more than ceil(partitions/N) partitions, N being the number
// of processes subscribed, hands the surplus over, each as soon as the
// deliveries of it that it took were handled and settled; it closes the
// partition's channel, which gives the rest back to the broker in order,
// the broker activates another process's consumer, and this one subscribes
// again behind it. A process only knows it is a partition's active
// consumer once a delivery came, so the spreading happens under traffic:
// it checks when one of its partitions becomes active and every second.
//
// Within a process, the deliveries go to a [core.KeyedQueue]: messages with
// the same key are handled one at a time, in order, those with different
// keys in parallel, at most [WithConcurrency](n) at once (also each
// partition's prefetch). [WithSemaphore] and [WithPriority] work as for
// [NewConsumer]. Failures are settled as [Consumer] says; a requeued
// message goes back to its queue, and later messages of its key may then be
// handled before it is handled again. [WithRetryDelay] does not apply: a
// keyed consumer requeues at once. A partition's dead-letter exchange is
// best set with a policy on the partitions' names.
//
// Every process that consumes the exchange must use the same partitions.
func NewKeyedConsumer(url, exchange string, partitions int, handle func(context.Context, amqp.Delivery) error, opts ...Option) *Consumer {
	if partitions < 1 {
		panic(fmt.Sprintf("rabbitmq: %d partitions: want at least 1", partitions))
	}
	return &Consumer{url: url, exchange: exchange, partitions: partitions, handle: handle,
		cfg: newConfig(opts), stop: make(chan struct{}), done: make(chan struct{})}
}

// PartitionQueue returns the name of the i-th queue of exchange's
// partitions: exchange + "." + i.
func PartitionQueue(exchange string, i int) string {
	return fmt.Sprintf("%s.%d", exchange, i)
}

// errGoexit is the failure of a handler that called runtime.Goexit.
var errGoexit = errors.New("rabbitmq: handler called runtime.Goexit")

// rebalanceEvery is how often a keyed consumer checks how many processes
// share its partitions, besides each time one of its partitions becomes
// active.
const rebalanceEvery = time.Second

// partition is one partition queue of a keyed session, consumed on a
// channel of its own, so that handing it over (closing the channel) or
// resubscribing it touches no other partition.
type partition struct {
	i      int
	queue  string
	ch     *amqp.Channel
	closed chan *amqp.Error // ch's NotifyClose
	dels   <-chan amqp.Delivery

	active    atomic.Bool   // a delivery came on this subscription: the broker made it the active one
	releasing atomic.Bool   // asked to hand the partition over
	release   chan struct{} // the session asks to hand it over; size one
	pending   atomic.Int64  // deliveries handed to the KeyedQueue and not settled
	settled   chan struct{} // receives when pending went down; size one
	open      openDeliveries
}

// keyedSession declares the exchange and its partitions on l, subscribes
// to each partition on a channel of its own, starting at a random one, and
// hands each partition's deliveries, in order, to one KeyedQueue keyed by
// routing key, until ctx ends, Drain is called or the connection (or one
// of its channels) is lost.
//
// A partition whose subscription the broker cancels (its queue was
// deleted) is declared and subscribed again. A process that is the active
// consumer of more than its share of the partitions (ceil(partitions/N),
// N the most consumers any partition has) hands the surplus over: it
// stops taking the partition's deliveries, waits for those it took to be
// handled and settled, closes the partition's channel (which gives the
// rest back to the broker, in order, and makes the broker activate the
// next consumer), then subscribes again, as a standby.
//
// On Drain it does not cancel the subscriptions: closing the channels
// afterwards gives the deliveries not handed over back to the broker, in
// order, and lets it activate another process's consumer only once this
// one's handlers are done, so that a key's messages never run in two
// processes at once.
func (c *Consumer) keyedSession(ctx context.Context, l *link, lingering *sync.WaitGroup) (subscribed bool, err error) {
	if err := declareHashExchange(l.ch, c.exchange); err != nil {
		return false, err
	}
	for i := range c.partitions {
		if err := declarePartition(l.ch, c.exchange, i, c.cfg.partitions); err != nil {
			return false, err
		}
	}
	parts := make([]*partition, c.partitions)
	off := rand.IntN(c.partitions)
	for k := range c.partitions {
		i := (off + k) % c.partitions
		p := &partition{i: i, queue: PartitionQueue(c.exchange, i), release: make(chan struct{}, 1), settled: make(chan struct{}, 1)}
		if err := c.subscribe(l, p); err != nil {
			return false, err
		}
		parts[i] = p
	}
	connClosed := l.conn.NotifyClose(make(chan *amqp.Error, 1))
	if l.endSetup() {
		return false, errSetupCut
	}
	c.emit(core.Event{Kind: core.Resized, Weight: int64(c.cfg.concurrency)})

	sctx, cancel := context.WithCancelCause(ctx)
	opts := []core.Option{core.WithParallelism(c.cfg.concurrency)}
	if s := c.cfg.semaphore; s != nil {
		opts = append(opts, core.WithSemaphore(s))
	}
	if obs := c.observer(); obs != nil {
		opts = append(opts, core.WithObserver(obs))
	}
	kq := core.NewKeyedQueue[string](opts...)
	lost := make(chan error, len(parts))
	activated := make(chan struct{}, 1)
	var readers sync.WaitGroup
	for _, p := range parts {
		readers.Add(1)
		go func() {
			defer readers.Done()
			if err := c.readPartition(sctx, l, p, kq, activated); err != nil {
				lost <- err
			}
		}()
	}
	// finish waits for the readers and every task handed over, requeues,
	// in order, the deliveries whose task never ran (ctx ended first), and
	// closes the connection.
	finish := func(graceful bool) {
		readers.Wait()
		kq.Drain(context.Background())
		for _, p := range parts {
			for _, d := range p.open.rest() {
				c.settle(sctx, d, sctx.Err(), p.queue)
			}
		}
		l.close(graceful)
		cancel(nil)
	}

	tick := time.NewTicker(rebalanceEvery)
	defer tick.Stop()
	for {
		select {
		case <-activated:
			c.rebalance(l, parts)
			continue
		case <-tick.C:
			c.rebalance(l, parts)
			continue
		case <-c.stop:
			finish(true)
			return true, nil
		case <-ctx.Done():
			cancel(ctx.Err())
			finish(false)
			return true, ctx.Err()
		case err = <-lost:
		case e := <-connClosed:
			err = lossError(e)
		}
		// Lost: cancel the handlers and report the loss now; they are
		// waited for by Run.
		cancel(err)
		c.emit(core.Event{Kind: core.Resized, Weight: 0, Err: err})
		lingering.Add(1)
		go func() {
			defer lingering.Done()
			finish(true)
		}()
		return true, err
	}
}

// subscribe opens p's channel and subscribes to its queue.
func (c *Consumer) subscribe(l *link, p *partition) error {
	ch, err := l.conn.Channel()
	if err != nil {
		return fmt.Errorf("rabbitmq: open a channel: %w", err)
	}
	closed := ch.NotifyClose(make(chan *amqp.Error, 1))
	if err := ch.Qos(c.cfg.concurrency, 0, false); err != nil {
		return fmt.Errorf("rabbitmq: set prefetch: %w", err)
	}
	dels, err := ch.Consume(p.queue, c.newTag(), false, false, false, false, c.cfg.args)
	if err != nil {
		return fmt.Errorf("rabbitmq: consume %q: %w", p.queue, err)
	}
	p.ch, p.closed, p.dels = ch, closed, dels
	p.active.Store(false)
	return nil
}

// readPartition hands p's deliveries to kq until ctx ends or Drain is
// called (it returns nil), or p's channel is lost (it returns why). It
// subscribes again when the broker cancels the subscription, and hands
// the partition over when asked to.
func (c *Consumer) readPartition(ctx context.Context, l *link, p *partition, kq *core.KeyedQueue[string], activated chan<- struct{}) error {
	for {
		select {
		case d, ok := <-p.dels:
			if !ok {
				if p.ch.IsClosed() {
					return lossError(<-p.closed)
				}
				// The broker cancelled the subscription: the queue was
				// deleted. Declare it again and subscribe.
				if err := c.resubscribe(ctx, l, p); err != nil {
					return err
				}
				continue
			}
			if !p.active.Swap(true) {
				select {
				case activated <- struct{}{}:
				default:
				}
			}
			// A task waits for its key's turn and for a token of the
			// shared semaphore, at the consumer's priority, and is
			// canceled without running if ctx ends first: its delivery
			// stays in open, to be requeued by the session.
			p.open.add(d)
			p.pending.Add(1)
			if _, err := kq.Submit(ctx, d.RoutingKey, c.keyedTask(ctx, p, d), core.WithPriority(c.cfg.priority)); err != nil {
				p.open.take(d.DeliveryTag)
				p.done()
				c.settle(ctx, d, err, p.queue) // ctx ended: requeued
			}
		case <-p.release:
			if err := c.handOver(ctx, l, p); err != nil {
				return err
			}
		case <-ctx.Done():
			return nil
		case <-c.stop:
			return nil
		}
	}
}

// resubscribe declares p's queue again and subscribes to it, retrying
// with backoff until it succeeds, p's channel is lost, ctx ends or Drain
// is called.
func (c *Consumer) resubscribe(ctx context.Context, l *link, p *partition) error {
	backoff := c.cfg.minBackoff
	for {
		err := declareHashExchange(p.ch, c.exchange)
		if err == nil {
			err = declarePartition(p.ch, c.exchange, p.i, c.cfg.partitions)
		}
		if err == nil {
			var dels <-chan amqp.Delivery
			if dels, err = p.ch.Consume(p.queue, c.newTag(), false, false, false, false, c.cfg.args); err == nil {
				p.dels = dels
				p.active.Store(false)
				return nil
			}
		}
		if p.ch.IsClosed() {
			return lossError(<-p.closed)
		}
		t := time.NewTimer(c.cfg.backoff(backoff))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-c.stop:
			t.Stop()
			return nil
		}
		backoff = min(2*backoff, c.cfg.maxBackoff)
	}
}

// handOver lets another process's consumer take p: it waits until every
// delivery of p handed to the KeyedQueue was handled and settled, closes
// p's channel, which requeues the deliveries not handed over, in order,
// and makes the broker activate the next consumer, then subscribes again
// on a new channel, behind the others.
func (c *Consumer) handOver(ctx context.Context, l *link, p *partition) error {
	defer p.releasing.Store(false)
	for p.pending.Load() > 0 {
		select {
		case <-p.settled:
		case <-ctx.Done():
			return nil // a task canceled before it ran never settles
		}
	}
	if err := p.ch.Close(); err != nil {
		return lossError(nil)
	}
	if err := c.subscribe(l, p); err != nil {
		if l.conn.IsClosed() {
			return lossError(nil)
		}
		return err
	}
	return nil
}

// rebalance hands over the partitions this process is the active
// consumer of beyond its share, ceil(partitions/N), N being the most
// consumers two of its partitions have: as every process subscribes to
// every partition, N is how many processes consume the exchange. It counts the
// consumers on l's channel, which a failure closes: it then opens another
// and tries again on the next call.
func (c *Consumer) rebalance(l *link, parts []*partition) {
	var mine []*partition
	for _, p := range parts {
		if p.active.Load() && !p.releasing.Load() {
			mine = append(mine, p)
		}
	}
	if len(mine) <= 1 {
		return
	}
	if l.ch.IsClosed() {
		if l.conn.IsClosed() || l.open() != nil {
			return
		}
	}
	// Two of this process's partitions are enough to count the processes
	// (a process handing one over leaves it a moment): a broker under load
	// answers each declaration in milliseconds.
	rand.Shuffle(len(mine), func(i, j int) { mine[i], mine[j] = mine[j], mine[i] })
	n := 1
	for _, p := range mine[:2] {
		q, err := l.ch.QueueDeclarePassive(p.queue, true, false, false, false, nil)
		if err != nil {
			return
		}
		n = max(n, q.Consumers)
	}
	share := (len(parts) + n - 1) / n
	if len(mine) <= share {
		return
	}
	for _, p := range mine[share:] {
		p.releasing.Store(true)
		select {
		case p.release <- struct{}{}:
		default:
		}
	}
}

// done counts one of p's deliveries settled.
func (p *partition) done() {
	p.pending.Add(-1)
	select {
	case p.settled <- struct{}{}:
	default:
	}
}

// openDeliveries holds the deliveries of a partition handed to the
// KeyedQueue whose task has not run yet.
type openDeliveries struct {
	mu sync.Mutex
	m  map[uint64]amqp.Delivery // by delivery tag
}

func (o *openDeliveries) add(d amqp.Delivery) {
	o.mu.Lock()
	if o.m == nil {
		o.m = make(map[uint64]amqp.Delivery)
	}
	o.m[d.DeliveryTag] = d
	o.mu.Unlock()
}

func (o *openDeliveries) take(tag uint64) {
	o.mu.Lock()
	delete(o.m, tag)
	o.mu.Unlock()
}

// rest returns what is left, in delivery order, so that the broker gets
// each key's messages back in the order they came.
func (o *openDeliveries) rest() []amqp.Delivery {
	o.mu.Lock()
	defer o.mu.Unlock()
	ds := slices.Collect(maps.Values(o.m))
	slices.SortFunc(ds, func(a, b amqp.Delivery) int { return cmp.Compare(a.DeliveryTag, b.DeliveryTag) })
	clear(o.m)
	return ds
}

// keyedTask returns the KeyedQueue task that handles d, which starts once
// it holds its token of the shared semaphore, if any: it takes d out of
// p's open deliveries, calls the handler and settles d. A panic is settled
// as a failure, then goes on to the KeyedQueue, which reports it. A task
// that never runs (ctx ended first) leaves d open, for the session to
// requeue.
func (c *Consumer) keyedTask(ctx context.Context, p *partition, d amqp.Delivery) func(context.Context) error {
	ch := p.ch
	return func(context.Context) error {
		defer p.done()
		p.open.take(d.DeliveryTag)
		if err := ctx.Err(); err != nil {
			c.settle(ctx, d, err, p.queue)
			return err
		}
		returned := false
		defer func() {
			if returned {
				return
			}
			v := recover()
			if v == nil {
				c.settle(ctx, d, errGoexit, p.queue)
				return
			}
			c.settle(ctx, d, &core.PanicError{Value: v, Stack: debug.Stack()}, p.queue)
			panic(v)
		}()
		err := c.handleAck(ctx, ch, d)
		returned = true
		if err != nil {
			c.settle(ctx, d, err, p.queue)
		}
		return err
	}
}
