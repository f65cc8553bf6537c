// Package rabbitmq runs core's throttled consumers on a real RabbitMQ
// broker, through github.com/rabbitmq/amqp091-go.
//
//   - [Consumer] ([NewConsumer], [Consume]) handles a queue's deliveries
//     with at most [WithConcurrency](n) handlers at once, n also being the
//     channel's prefetch; [WithSemaphore] shares a global limit with other
//     consumers and core primitives. Each delivery is acknowledged on its
//     own after its handler succeeded; a failed one is requeued once, then
//     rejected (dead-lettered); shutdown requeues what it cut short. It
//     reconnects when the broker goes away.
//   - [NewKeyedConsumer] scales per-key order out to several processes: a
//     consistent-hash exchange feeds single-active-consumer queues, and
//     each process handles its deliveries with a [core.KeyedQueue].
//
// Every delivery is reported to [WithObserver] as a core task, so that
// core/trace records a real consumer as it records core's primitives.
//
// The tests start a throwaway broker with package rabbittest.
package rabbitmq
