package rabbittest_test

import (
	"context"
	"strings"
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

// TestConfCtlFreeze starts a node with a rabbitmq.conf line and an
// advanced.config, reads both settings back with Ctl, and freezes and thaws
// it: frozen, it accepts no AMQP connection; thawed, it does again.
func TestConfCtlFreeze(t *testing.T) {
	ctx := context.Background()
	node, err := rabbittest.Start(ctx, rabbittest.Conf("consumer_timeout = 4321"),
		rabbittest.Advanced("[{rabbit, [{channel_tick_interval, 123}]}]."))
	if err != nil {
		t.Fatal(err)
	}
	defer node.Stop()
	for key, want := range map[string]string{"consumer_timeout": "4321", "channel_tick_interval": "123"} {
		out, err := node.Ctl(ctx, "eval", "application:get_env(rabbit, "+key+").")
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(out); got != "{ok,"+want+"}" {
			t.Errorf("%s: got %q, want {ok,%s}", key, got, want)
		}
	}
	node.Freeze()
	_, err = amqp.DialConfig(node.URL, amqp.Config{Dial: amqp.DefaultDial(300 * time.Millisecond)})
	node.Thaw()
	if err == nil {
		t.Errorf("dial a frozen node: got nil error, want a timeout")
	}
	conn, err := amqp.Dial(node.URL)
	if err != nil {
		t.Fatalf("dial the thawed node: %v", err)
	}
	conn.Close()
}
