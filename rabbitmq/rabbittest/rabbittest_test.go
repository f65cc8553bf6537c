package rabbittest_test

import (
	"context"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"go.uber.org/goleak"

	"sluice/rabbitmq/rabbittest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestStartKillRestart starts a node, declares a durable queue with a
// message, kills the node and restarts it: the message is still there.
func TestStartKillRestart(t *testing.T) {
	ctx := context.Background()
	t0 := time.Now()
	node, err := rabbittest.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer node.Stop()
	t.Logf("started in %v", time.Since(t0))
	conn, err := amqp.Dial(node.URL)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ch.QueueDeclare("kept", true, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	if err := ch.ExchangeDeclare("hash", "x-consistent-hash", true, false, false, false, nil); err != nil {
		t.Fatalf("declare a consistent-hash exchange: %v", err)
	}
	if err := ch.Confirm(false); err != nil {
		t.Fatal(err)
	}
	conf, err := ch.PublishWithDeferredConfirmWithContext(ctx, "", "kept", false, false, amqp.Publishing{DeliveryMode: amqp.Persistent, Body: []byte("x")})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := conf.WaitContext(ctx); !ok || err != nil {
		t.Fatalf("confirm: %v %v", ok, err)
	}
	conn.Close()

	t0 = time.Now()
	node.Kill()
	if err := node.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("restarted in %v", time.Since(t0))
	conn, err = amqp.Dial(node.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ch, err = conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	q, err := ch.QueueDeclarePassive("kept", true, false, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := q.Messages, 1; got != want {
		t.Errorf("messages after restart: got %d, want %d", got, want)
	}
}
