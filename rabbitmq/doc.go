// Package rabbitmq runs core's throttled consumers on a real RabbitMQ
// broker, through github.com/rabbitmq/amqp091-go.
//
//   - [Consumer] ([NewConsumer], [Consume]) handles a queue's deliveries
//     with at most [WithConcurrency](n) handlers at once, n also being the
//     channel's prefetch; [WithSemaphore] shares a global limit with other
//     consumers and core primitives. Each delivery is acknowledged on its
//     own after its handler succeeded; a failed one is requeued once (or,
//     with [WithRetryDelay], retried after a delay), then rejected
//     (dead-lettered); shutdown requeues what it cut short. It reconnects
//     when the broker goes away, with backoff and jitter.
//   - [NewKeyedConsumer] scales per-key order out to several processes: a
//     consistent-hash exchange feeds single-active-consumer queues, and
//     each process handles its deliveries with a [core.KeyedQueue];
//     processes that hold more than their share of the partitions hand the
//     surplus to the others.
//   - [Publisher] publishes with confirms and reconnects: Publish returns
//     nil only once the broker confirmed the message; [Publisher.PublishKeyed]
//     feeds a keyed consumer's exchange.
//
// Delivery is at least once: a message whose handler ran, even one whose
// acknowledgement returned nil, may be delivered again after a lost
// connection (the acknowledgement may not have reached the broker), so
// handlers must be idempotent.
//
// Every delivery is reported to [WithObserver] as a core task, so that
// core/trace records a real consumer as it records core's primitives.
//
// # Faults
//
// The tests inject these faults into real brokers (started by package
// rabbittest) and check what the consumer does:
//
//	Fault                                  What the consumer does                                Test
//	-------------------------------------  ----------------------------------------------------  ------------------------------------------
//	broker killed (SIGKILL), restarted     reports the loss, reconnects with backoff, declares   TestBrokerKilled
//	                                       again (WithDeclare), resumes; what was in flight is
//	                                       delivered again: each message handled at least once,
//	                                       no delivery acknowledged twice
//	the same, while publishing             Publish publishes again on a new connection; every    TestPublisherBrokerKilled
//	                                       Publish that returned nil is consumed
//	connection closed by the server        reports CONNECTION_FORCED, reconnects, resumes        TestServerClose
//	(rabbitmqctl close_all_connections)
//	channel exception (an ack the broker   reports PRECONDITION_FAILED and reconnects; Run       TestChannelExceptionRetried
//	refuses: unknown delivery tag)         goes on
//	consumer timeout (consumer_timeout)    the same; the late handler's context is canceled,     TestConsumerTimeout
//	                                       with the channel's error as its cause
//	channel lost with handlers in flight   reports the loss and reconnects at once; their        TestLossCancelsHandlers
//	                                       context is canceled; Run waits for them to return
//	frozen broker (SIGSTOP)                the heartbeat (WithHeartbeat) finds it in about       TestFrozenBroker
//	                                       three intervals; reconnects once it answers
//	the same, while publishing             no confirm within WithConfirmTimeout: the Publisher   TestPublisherConfirmTimeout
//	                                       drops the connection and publishes again
//	broker that accepts TCP, never answers ctx and Drain cut the handshake short; after Drain,   TestRunHonoursContext
//	                                       a canceled ctx ends Run within half a second
//	queue deleted (NewConsumer)            the broker cancels the subscription: reported; the    TestBadInput ("queue deleted while
//	                                       queue is declared again by WithDeclare, or Run ends   consuming")
//	                                       with NOT_FOUND
//	partition deleted (NewKeyedConsumer)   declares that partition again and subscribes to it;   TestKeyedPartitionDeleted
//	                                       the other partitions go on
//	keyed process killed (SIGKILL)         the broker gives its unacknowledged messages back,    TestKeyedThreeProcesses
//	                                       in order, to another process's standby consumer
//	keyed process drained                  it finishes what it took, then lets go; per-key       TestKeyedTwoProcesses
//	                                       order holds across the handover
//
// The tests start a throwaway broker with package rabbittest.
package rabbitmq
