package rabbitmq

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

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
// consumer: the consumer of each process subscribes to every partition, the
// broker delivers a partition's messages to one of them at a time, in
// order, and hands the partition to another when that one goes away. So a
// key's messages are handled by one process at a time, in publication
// order. Each session declares the exchange and its queues
// ([DeclarePartitions]) before it subscribes.
//
// Within a process, the deliveries go to a [core.KeyedQueue]: messages with
// the same key are handled one at a time, in order, those with different
// keys in parallel, at most [WithConcurrency](n) at once (also each
// partition's prefetch). [WithSemaphore] and [WithPriority] work as for
// [NewConsumer]. Failures are settled as [Consumer] says; a requeued
// message goes back to its queue, and later messages of its key may then be
// handled before it is handled again.
//
// Every process that consumes the exchange must use the same partitions.
// The broker makes the first consumer of a partition its active one: a
// process that joins later stands by for the partitions that already have
// one.
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

// DeclarePartitions declares, on ch, a durable consistent-hash exchange and
// its partitions durable queues with a single active consumer, each bound
// with weight 1. It blocks until the broker confirms each declaration. It
// fails if the exchange or a queue exists with other arguments, which
// closes ch. Publishers only need the exchange: they publish to it with the
// message's key as routing key.
func DeclarePartitions(ch *amqp.Channel, exchange string, partitions int) error {
	if err := ch.ExchangeDeclare(exchange, "x-consistent-hash", true, false, false, false, nil); err != nil {
		return fmt.Errorf("rabbitmq: declare exchange %q: %w", exchange, err)
	}
	for i := range partitions {
		q := PartitionQueue(exchange, i)
		if _, err := ch.QueueDeclare(q, true, false, false, false, amqp.Table{"x-single-active-consumer": true}); err != nil {
			return fmt.Errorf("rabbitmq: declare queue %q: %w", q, err)
		}
		if err := ch.QueueBind(q, "1", exchange, false, nil); err != nil {
			return fmt.Errorf("rabbitmq: bind queue %q: %w", q, err)
		}
	}
	return nil
}

// errGoexit is the failure of a handler that called runtime.Goexit.
var errGoexit = errors.New("rabbitmq: handler called runtime.Goexit")

// serveKeyed hands each partition's deliveries, in order, to one
// KeyedQueue keyed by routing key, until the deliveries end, ctx ends or
// Drain is called, then waits for every task handed over. It does not
// cancel the subscriptions on Drain: closing the channel afterwards gives
// the deliveries not handed over back to the broker, in order, and lets it
// activate another process's consumer only once this one's handlers are
// done, so that a key's messages never run in two processes at once.
func (c *Consumer) serveKeyed(ctx context.Context, ch *amqp.Channel, dels []<-chan amqp.Delivery, base uint64, last *atomic.Uint64) {
	opts := []core.Option{core.WithParallelism(c.cfg.concurrency)}
	if s := c.cfg.semaphore; s != nil {
		opts = append(opts, core.WithSemaphore(s))
	}
	if c.cfg.observer != nil {
		opts = append(opts, core.WithObserver(c.observe(base, last)))
	}
	kq := core.NewKeyedQueue[string](opts...)
	var open openDeliveries
	var wg sync.WaitGroup
	for _, dl := range dels {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case d, ok := <-dl:
					if !ok {
						return
					}
					// A task waits for its key's turn and for a token of
					// the shared semaphore, at the consumer's priority, and
					// is canceled without running if ctx ends first: its
					// delivery stays in open, to be requeued below.
					open.add(d)
					if _, err := kq.Submit(ctx, d.RoutingKey, c.keyedTask(ctx, ch, d, &open), core.WithPriority(c.cfg.priority)); err != nil {
						open.take(d.DeliveryTag)
						c.settle(ctx, d, err) // ctx ended: requeued
					}
				case <-ctx.Done():
					return
				case <-c.stop:
					return
				}
			}
		}()
	}
	wg.Wait()
	kq.Drain(context.Background())
	for _, d := range open.rest() {
		c.settle(ctx, d, ctx.Err()) // its task never ran: ctx ended first
	}
}

// openDeliveries holds the deliveries handed to the KeyedQueue whose task
// has not run yet.
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
// open, calls the handler and settles d. A panic is settled as a failure,
// then goes on to the KeyedQueue, which reports it.
func (c *Consumer) keyedTask(ctx context.Context, ch *amqp.Channel, d amqp.Delivery, open *openDeliveries) func(context.Context) error {
	return func(context.Context) error {
		open.take(d.DeliveryTag)
		if err := ctx.Err(); err != nil {
			c.settle(ctx, d, err)
			return err
		}
		returned := false
		defer func() {
			if returned {
				return
			}
			v := recover()
			if v == nil {
				c.settle(ctx, d, errGoexit)
				return
			}
			c.settle(ctx, d, &core.PanicError{Value: v, Stack: debug.Stack()})
			panic(v)
		}()
		err := c.handleAck(ctx, ch, d)
		returned = true
		if err != nil {
			c.settle(ctx, d, err)
		}
		return err
	}
}
