package rabbitmq_test

import (
	"context"
	"fmt"
	"strings"
	"sync"

	amqp "github.com/rabbitmq/amqp091-go"

	"sluice/core"
	"sluice/rabbitmq"
)

// This example handles a queue's messages with two consumers that share a
// global limit of 4 handlers, each with its own prefetch of 4, and stops
// them gracefully once every message was handled.
func ExampleConsumer() {
	url := node.URL // such as amqp://guest:guest@127.0.0.1:5672/
	ctx := context.Background()

	// Publish three messages to the queue "orders".
	conn, err := amqp.Dial(url)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer conn.Close()
	ch, _ := conn.Channel()
	ch.QueueDelete("orders", false, false, false)
	ch.QueueDeclare("orders", true, false, false, false, nil)
	for _, body := range []string{"tea", "cake", "jam"} {
		ch.PublishWithContext(ctx, "", "orders", false, false, amqp.Publishing{Body: []byte(body)})
	}

	var (
		mu   sync.Mutex
		seen []string
		all  = make(chan struct{})
	)
	handle := func(ctx context.Context, d amqp.Delivery) error {
		mu.Lock()
		defer mu.Unlock()
		if seen = append(seen, string(d.Body)); len(seen) == 3 {
			close(all)
		}
		return nil // acknowledged
	}
	limit := core.NewSemaphore(4)
	var consumers []*rabbitmq.Consumer
	var wg sync.WaitGroup
	for range 2 {
		c := rabbitmq.NewConsumer(url, "orders", handle,
			rabbitmq.WithConcurrency(4), rabbitmq.WithSemaphore(limit))
		consumers = append(consumers, c)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Run(ctx); err != nil {
				fmt.Println(err)
			}
		}()
	}
	<-all
	for _, c := range consumers {
		c.Drain(ctx)
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	fmt.Println(len(seen), "orders handled")
	// Output: 3 orders handled
}

// This example handles messages in per-key order: the key is the routing
// key, the exchange a consistent-hash exchange over four partition queues.
func ExampleNewKeyedConsumer() {
	url := node.URL
	ctx := context.Background()

	conn, err := amqp.Dial(url)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer conn.Close()
	ch, _ := conn.Channel()
	if err := rabbitmq.DeclarePartitions(ch, "devices", 4); err != nil {
		fmt.Println(err)
		return
	}
	for i := range 3 {
		for _, device := range []string{"pump", "valve"} {
			ch.PublishWithContext(ctx, "devices", device, false, false,
				amqp.Publishing{Body: fmt.Appendf(nil, "%s-%d", device, i)})
		}
	}

	var (
		mu    sync.Mutex
		order = map[string][]string{}
		n     int
		all   = make(chan struct{})
	)
	c := rabbitmq.NewKeyedConsumer(url, "devices", 4, func(ctx context.Context, d amqp.Delivery) error {
		mu.Lock()
		defer mu.Unlock()
		order[d.RoutingKey] = append(order[d.RoutingKey], string(d.Body))
		if n++; n == 6 {
			close(all)
		}
		return nil
	}, rabbitmq.WithConcurrency(8))
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	<-all
	c.Drain(ctx)
	<-done
	fmt.Println("pump: ", strings.Join(order["pump"], " "))
	fmt.Println("valve:", strings.Join(order["valve"], " "))
	// Output:
	// pump:  pump-0 pump-1 pump-2
	// valve: valve-0 valve-1 valve-2
}
