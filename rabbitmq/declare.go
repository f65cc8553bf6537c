package rabbitmq

import (
	"fmt"
	"maps"

	amqp "github.com/rabbitmq/amqp091-go"
)

// DeclareOption configures the queues that [DeclareQueue] and
// [DeclarePartitions] declare.
type DeclareOption func(amqp.Table)

// Quorum declares quorum queues (replicated, "x-queue-type": "quorum")
// instead of classic ones. A quorum queue counts its deliveries
// (x-delivery-count) and takes a delivery limit and a dead-letter exchange
// by argument or by policy; the consumer's requeue-once policy works on
// both kinds.
func Quorum() DeclareOption {
	return func(t amqp.Table) { t["x-queue-type"] = "quorum" }
}

// QueueArgs adds args to the queues' arguments, such as
// amqp.Table{"x-dead-letter-exchange": "dlx"}. A policy can set most of
// them instead, and can be changed without declaring the queues again.
func QueueArgs(args amqp.Table) DeclareOption {
	return func(t amqp.Table) { maps.Copy(t, args) }
}

func queueArgs(base amqp.Table, opts []DeclareOption) amqp.Table {
	t := amqp.Table{}
	maps.Copy(t, base)
	for _, o := range opts {
		if o != nil {
			o(t)
		}
	}
	return t
}

// DeclareQueue declares, on ch, a durable queue named name with opts'
// arguments, and blocks until the broker confirms it. It fails if the
// queue exists with other arguments, which closes ch.
func DeclareQueue(ch *amqp.Channel, name string, opts ...DeclareOption) error {
	if _, err := ch.QueueDeclare(name, true, false, false, false, queueArgs(nil, opts)); err != nil {
		return fmt.Errorf("rabbitmq: declare queue %q: %w", name, err)
	}
	return nil
}

// DeclarePartitions declares, on ch, a durable consistent-hash exchange and
// its partitions durable queues with a single active consumer (and opts'
// arguments: [Quorum] makes them quorum queues), each bound with weight 1.
// It blocks until the broker confirms each declaration. It fails if the
// exchange or a queue exists with other arguments, which closes ch.
// Publishers only need the exchange: they publish to it with the message's
// key as routing key ([Publisher.PublishKeyed]). A partition's dead-letter
// exchange is best set by a policy matching the partitions' names
// (exchange + "." + i), which the consumers need not know of.
func DeclarePartitions(ch *amqp.Channel, exchange string, partitions int, opts ...DeclareOption) error {
	if err := declareHashExchange(ch, exchange); err != nil {
		return err
	}
	for i := range partitions {
		if err := declarePartition(ch, exchange, i, opts); err != nil {
			return err
		}
	}
	return nil
}

func declareHashExchange(ch *amqp.Channel, exchange string) error {
	if err := ch.ExchangeDeclare(exchange, "x-consistent-hash", true, false, false, false, nil); err != nil {
		return fmt.Errorf("rabbitmq: declare exchange %q: %w", exchange, err)
	}
	return nil
}

// declarePartition declares the i-th partition queue of exchange and binds
// it.
func declarePartition(ch *amqp.Channel, exchange string, i int, opts []DeclareOption) error {
	q := PartitionQueue(exchange, i)
	if _, err := ch.QueueDeclare(q, true, false, false, false, queueArgs(amqp.Table{"x-single-active-consumer": true}, opts)); err != nil {
		return fmt.Errorf("rabbitmq: declare queue %q: %w", q, err)
	}
	if err := ch.QueueBind(q, "1", exchange, false, nil); err != nil {
		return fmt.Errorf("rabbitmq: bind queue %q: %w", q, err)
	}
	return nil
}

// declareRetry declares the delay queue of WithRetryDelay for queue.
func declareRetry(ch *amqp.Channel, queue string, delay int64) error {
	q := retryQueue(queue)
	if _, err := ch.QueueDeclare(q, true, false, false, false, amqp.Table{
		"x-message-ttl":             delay,
		"x-dead-letter-exchange":    "",
		"x-dead-letter-routing-key": queue,
	}); err != nil {
		return fmt.Errorf("rabbitmq: declare queue %q: %w", q, err)
	}
	return nil
}

func retryQueue(queue string) string { return queue + ".retry" }
