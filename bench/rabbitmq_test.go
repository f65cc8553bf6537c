package bench_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"sluice/core"
	"sluice/rabbitmq"
	"sluice/rabbitmq/rabbittest"
)

// TestMain stops the broker the RabbitMQ benchmarks started, if any.
func TestMain(m *testing.M) {
	code := m.Run()
	if broker.node != nil {
		broker.node.Stop()
	}
	os.Exit(code)
}

// broker is the throwaway node the RabbitMQ benchmarks share, started by the
// first of them.
var broker struct {
	once sync.Once
	node *rabbittest.Node
	err  error
}

// brokerURL returns the shared node's URL, or skips b when no node can
// start (rabbitmq-server is not installed, or cannot run here).
func brokerURL(b *testing.B) string {
	broker.once.Do(func() { broker.node, broker.err = rabbittest.Start(context.Background()) })
	if broker.err != nil {
		b.Skipf("no RabbitMQ broker: %v", broker.err)
	}
	return broker.node.URL
}

// rabbitWork is the handler's work in the RabbitMQ benchmarks: about 10 µs
// of CPU, a small real task.
func rabbitWork() {
	for t := time.Now(); time.Since(t) < 10*time.Microsecond; {
	}
}

// latencies records each message's receive-to-ack time, in nanoseconds.
type latencies struct {
	next atomic.Int64
	ns   []int64
}

func (l *latencies) add(d time.Duration) {
	if i := l.next.Add(1) - 1; i < int64(len(l.ns)) {
		l.ns[i] = int64(d)
	}
}

func (l *latencies) p99() float64 {
	ns := l.ns[:min(l.next.Load(), int64(len(l.ns)))]
	if len(ns) == 0 {
		return 0
	}
	slices.Sort(ns)
	return float64(ns[(len(ns)*99)/100])
}

// handwrittenRabbit is the consumer Go programs often write by hand with
// amqp091-go: a connection of its own, a prefetch of n, a buffered channel shared by the consumers
// as their global limit, a goroutine per delivery, one ack per delivery. It
// returns when ctx ends, after its handlers returned.
func handwrittenRabbit(ctx context.Context, url, queue string, n int, sem chan struct{}, handle func(amqp.Delivery), lat *latencies) error {
	conn, err := amqp.Dial(url)
	if err != nil {
		return err
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		return err
	}
	defer ch.Close()
	if err := ch.Qos(n, 0, false); err != nil {
		return err
	}
	dels, err := ch.Consume(queue, "", false, false, false, false, nil)
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case d, ok := <-dels:
			if !ok {
				return nil
			}
			received := time.Now()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return ctx.Err()
			}
			wg.Add(1)
			go func() {
				defer func() {
					<-sem
					wg.Done()
				}()
				handle(d)
				d.Ack(false)
				lat.add(time.Since(received))
			}()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// BenchmarkRabbitMQ measures two consumers of one queue on a real broker
// (started on loopback by rabbittest; skipped when none can start), sharing
// a global limit of 8 handlers, each with a prefetch of 8; the handler does
// about 10 µs of work. One op is one message: the benchmark publishes b.N
// messages (not timed), then times until every one was handled. It reports
// msgs/s and p99-ns, the 99th percentile of the time from a consumer
// receiving a delivery to its ack (the wait for the limit, the handler and
// the ack). make test runs it with -benchtime 1x (one message); the figures
// in BENCHMARKS.md come from -benchtime 100000x.
//
//   - sluice: two rabbitmq.Consumers with WithConcurrency(8) and
//     WithSemaphore of a core.Semaphore of 8; latencies from the observer's
//     Enqueued and Finished events.
//   - handwritten: handwrittenRabbit twice, sharing a channel of 8.
func BenchmarkRabbitMQ(b *testing.B) {
	url := brokerURL(b)
	const limit = 8
	// setup declares an empty queue and publishes b.N messages to it.
	setup := func(b *testing.B) (queue string) {
		conn, err := amqp.Dial(url)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { conn.Close() })
		ch, err := conn.Channel()
		if err != nil {
			b.Fatal(err)
		}
		defer ch.Close()
		queue = "bench." + b.Name()
		if _, err := ch.QueueDeclare(queue, false, false, false, false, nil); err != nil {
			b.Fatal(err)
		}
		if _, err := ch.QueuePurge(queue, false); err != nil {
			b.Fatal(err)
		}
		if err := ch.Confirm(false); err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		body := make([]byte, 64)
		confs := make([]*amqp.DeferredConfirmation, 0, 1000)
		for i := 0; i < b.N; i++ {
			c, err := ch.PublishWithDeferredConfirmWithContext(ctx, "", queue, false, false, amqp.Publishing{Body: body})
			if err != nil {
				b.Fatal(err)
			}
			if confs = append(confs, c); len(confs) == cap(confs) || i == b.N-1 {
				for _, c := range confs {
					if ok, err := c.WaitContext(ctx); !ok || err != nil {
						b.Fatalf("publish: confirmed %v, %v", ok, err)
					}
				}
				confs = confs[:0]
			}
		}
		return queue
	}
	// measure runs two consumers until b.N messages were handled.
	measure := func(b *testing.B, lat *latencies, start func(ctx context.Context, handle func(amqp.Delivery)) (stop func() error)) {
		var handled atomic.Int64
		done := make(chan struct{})
		handle := func(amqp.Delivery) {
			rabbitWork()
			if handled.Add(1) == int64(b.N) {
				close(done)
			}
		}
		b.ResetTimer()
		t0 := time.Now()
		stop := start(context.Background(), handle)
		select {
		case <-done:
		case <-time.After(5*time.Minute + time.Duration(b.N)*time.Millisecond):
			b.Fatalf("handled %d of %d messages", handled.Load(), b.N)
		}
		elapsed := time.Since(t0)
		b.StopTimer()
		if err := stop(); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
		b.ReportMetric(lat.p99(), "p99-ns")
	}

	b.Run("Consume/sluice", func(b *testing.B) {
		queue := setup(b)
		lat := &latencies{ns: make([]int64, b.N)}
		measure(b, lat, func(ctx context.Context, handle func(amqp.Delivery)) func() error {
			sem := core.NewSemaphore(limit)
			var cs []*rabbitmq.Consumer
			var errs []chan error
			for range 2 {
				received := make([]time.Time, b.N+1) // by task id: ids run from 1, one per delivery
				c := rabbitmq.NewConsumer(url, queue, func(_ context.Context, d amqp.Delivery) error {
					handle(d)
					return nil
				}, rabbitmq.WithConcurrency(limit), rabbitmq.WithSemaphore(sem), rabbitmq.WithObserver(func(e core.Event) {
					if e.Task >= uint64(len(received)) {
						return
					}
					switch e.Kind {
					case core.Enqueued:
						received[e.Task] = e.Time
					case core.Finished:
						lat.add(e.Time.Sub(received[e.Task]))
					}
				}))
				errc := make(chan error, 1)
				go func() { errc <- c.Run(ctx) }()
				cs, errs = append(cs, c), append(errs, errc)
			}
			return func() error {
				for i, c := range cs {
					c.Drain(ctx)
					if err := <-errs[i]; err != nil {
						return err
					}
				}
				return nil
			}
		})
	})
	b.Run("Consume/handwritten", func(b *testing.B) {
		queue := setup(b)
		lat := &latencies{ns: make([]int64, b.N)}
		measure(b, lat, func(ctx context.Context, handle func(amqp.Delivery)) func() error {
			ctx, cancel := context.WithCancel(ctx)
			sem := make(chan struct{}, limit)
			var wg sync.WaitGroup
			errs := make(chan error, 2)
			for range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if err := handwrittenRabbit(ctx, url, queue, limit, sem, handle, lat); err != nil && ctx.Err() == nil {
						errs <- err
					}
				}()
			}
			return func() error {
				cancel()
				wg.Wait()
				select {
				case err := <-errs:
					return fmt.Errorf("handwritten consumer: %w", err)
				default:
					return nil
				}
			}
		})
	})
}

// publishWindow is how many messages each side of BenchmarkRabbitMQPublish
// has waiting for their confirm at once.
const publishWindow = 64

// handwrittenPublish is the confirm loop Go programs often write by hand
// with amqp091-go: deferred confirms on one channel in confirm mode, and a
// window of publishWindow outstanding, waiting for the oldest when it is
// full. It publishes n messages and returns once every one was confirmed.
func handwrittenPublish(ctx context.Context, ch *amqp.Channel, queue string, n int, body []byte) error {
	window := make([]*amqp.DeferredConfirmation, 0, publishWindow)
	wait := func(c *amqp.DeferredConfirmation) error {
		if ok, err := c.WaitContext(ctx); !ok || err != nil {
			return fmt.Errorf("confirmed %v, %v", ok, err)
		}
		return nil
	}
	for range n {
		if len(window) == publishWindow {
			if err := wait(window[0]); err != nil {
				return err
			}
			window = window[1:]
		}
		c, err := ch.PublishWithDeferredConfirmWithContext(ctx, "", queue, false, false, amqp.Publishing{Body: body})
		if err != nil {
			return err
		}
		window = append(window, c)
	}
	for _, c := range window {
		if err := wait(c); err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkRabbitMQPublish measures publishing with confirms on a real
// broker (started by rabbittest; skipped when none can start): b.N 64-byte
// messages to a queue, with 64 waiting for their confirm at once. One op is
// one confirmed message; msgs/s is reported too. The queue is purged
// before each run (not timed).
//
//   - sluice: 64 goroutines share one rabbitmq.Publisher, each calling
//     Publish, which returns once the broker confirmed the message.
//   - handwritten: the same 64 goroutines on one amqp091-go channel in
//     confirm mode, each publishing with a deferred confirm and waiting for
//     it: what Publish does, without reconnecting. The target compares
//     sluice with this one: the Publisher's own cost.
//   - handwritten-window: handwrittenPublish, one goroutine with a window
//     of 64 deferred confirms, which wakes once per batch of confirms
//     where the others wake a goroutine per message: the cost of a
//     Publish that blocks until its message is confirmed.
//
// All connect before the clock starts.
func BenchmarkRabbitMQPublish(b *testing.B) {
	url := brokerURL(b)
	body := make([]byte, 64)
	setup := func(b *testing.B) string {
		conn, err := amqp.Dial(url)
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		ch, err := conn.Channel()
		if err != nil {
			b.Fatal(err)
		}
		queue := "bench." + b.Name()
		if _, err := ch.QueueDeclare(queue, false, false, false, false, nil); err != nil {
			b.Fatal(err)
		}
		if _, err := ch.QueuePurge(queue, false); err != nil {
			b.Fatal(err)
		}
		return queue
	}
	report := func(b *testing.B, elapsed time.Duration) {
		b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
	}
	// confirmChannel dials and opens a channel in confirm mode.
	confirmChannel := func(b *testing.B) *amqp.Channel {
		conn, err := amqp.Dial(url)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { conn.Close() })
		ch, err := conn.Channel()
		if err != nil {
			b.Fatal(err)
		}
		if err := ch.Confirm(false); err != nil {
			b.Fatal(err)
		}
		return ch
	}
	// A freshly started broker is slower for its first messages: warm it
	// up, so that the first side measured is not the one that pays.
	if !quick() {
		b.Run("warmup", func(b *testing.B) {
			queue := setup(b)
			if err := handwrittenPublish(context.Background(), confirmChannel(b), queue, 20000, body); err != nil {
				b.Fatal(err)
			}
		})
	}
	b.Run("sluice", func(b *testing.B) {
		queue := setup(b)
		ctx := context.Background()
		p := rabbitmq.NewPublisher(url)
		defer p.Close()
		// Connect before the clock starts, as the hand-written loop's dial
		// is not timed either.
		if err := p.Publish(ctx, "", queue+".warm", amqp.Publishing{Body: body}); err != nil {
			b.Fatal(err)
		}
		var next atomic.Int64
		var wg sync.WaitGroup
		errs := make(chan error, publishWindow)
		b.ResetTimer()
		t0 := time.Now()
		for range publishWindow {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for next.Add(1) <= int64(b.N) {
					if err := p.Publish(ctx, "", queue, amqp.Publishing{Body: body}); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		elapsed := time.Since(t0)
		b.StopTimer()
		select {
		case err := <-errs:
			b.Fatal(err)
		default:
		}
		report(b, elapsed)
	})
	b.Run("handwritten", func(b *testing.B) {
		queue := setup(b)
		ch := confirmChannel(b)
		ctx := context.Background()
		var next atomic.Int64
		var wg sync.WaitGroup
		errs := make(chan error, publishWindow)
		b.ResetTimer()
		t0 := time.Now()
		for range publishWindow {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for next.Add(1) <= int64(b.N) {
					c, err := ch.PublishWithDeferredConfirmWithContext(ctx, "", queue, false, false, amqp.Publishing{Body: body})
					if err == nil {
						var ok bool
						if ok, err = c.WaitContext(ctx); err == nil && !ok {
							err = fmt.Errorf("nacked")
						}
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		elapsed := time.Since(t0)
		b.StopTimer()
		select {
		case err := <-errs:
			b.Fatal(err)
		default:
		}
		report(b, elapsed)
	})
	b.Run("handwritten-window", func(b *testing.B) {
		queue := setup(b)
		ch := confirmChannel(b)
		b.ResetTimer()
		t0 := time.Now()
		if err := handwrittenPublish(context.Background(), ch, queue, b.N, body); err != nil {
			b.Fatal(err)
		}
		elapsed := time.Since(t0)
		b.StopTimer()
		report(b, elapsed)
	})
}
