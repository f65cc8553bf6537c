package rabbitmq_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"sluice/core"
	"sluice/rabbitmq"
)

// childEnv, when set ("url exchange partitions"), makes the test binary a
// child process of TestKeyedTwoProcesses: a keyed consumer that prints a
// line "key body start end" (times in Unix nanoseconds) for each message
// it handled, "ready" once it subscribed, and drains and exits on SIGTERM.
const childEnv = "SLUICE_RABBITMQ_CHILD"

func childMain() int {
	f := strings.Fields(os.Getenv(childEnv))
	if len(f) != 3 {
		fmt.Fprintf(os.Stderr, "%s=%q: want url exchange partitions\n", childEnv, os.Getenv(childEnv))
		return 2
	}
	partitions, _ := strconv.Atoi(f[2])
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	println := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		out.WriteString(s + "\n")
		out.Flush()
	}
	c := rabbitmq.NewKeyedConsumer(f[0], f[1], partitions, func(ctx context.Context, d amqp.Delivery) error {
		start := time.Now().UnixNano()
		if err := work(ctx, 300*time.Microsecond); err != nil {
			return err
		}
		println(fmt.Sprintf("%s %s %d %d", d.RoutingKey, d.Body, start, time.Now().UnixNano()))
		return nil
	}, rabbitmq.WithConcurrency(8), rabbitmq.WithObserver(func(e core.Event) {
		if e.Kind == core.Resized && e.Weight > 0 {
			println("ready")
		}
	}), rabbitmq.OnConnectionError(func(err error) { fmt.Fprintln(os.Stderr, "connection error:", err) }))
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	errc := make(chan error, 1)
	go func() { errc <- c.Run(context.Background()) }()
	var err error
	select {
	case <-sig:
		if err = c.Drain(context.Background()); err == nil {
			err = <-errc
		}
	case err = <-errc:
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	return 0
}

// handled is one line of a child: a message it handled.
type handled struct {
	child      int
	key        string
	seq        int // the message's number among its key's
	body       int
	start, end int64
}

// fleet is a set of child processes, each running a keyed consumer (see
// childMain), stopped by the test's cleanup.
type fleet struct {
	cmds   []*exec.Cmd
	stderr []*lockedBuffer
	lines  chan handled // every message a child handled
	ready  chan int     // a child's number, once per connection it subscribed on
}

// lockedBuffer is a child's stderr, written by os/exec as the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startFleet starts n child processes consuming exchange's partitions,
// keys being spread as "k<i % keys>", and waits until each subscribed.
func startFleet(t *testing.T, n int, exchange string, partitions, keys int) *fleet {
	t.Helper()
	f := &fleet{lines: make(chan handled), ready: make(chan int, 8*n)}
	var readers sync.WaitGroup
	for i := range n {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %s %d", childEnv, node.URL, exchange, partitions))
		stderr := &lockedBuffer{}
		cmd.Stderr = stderr
		// Killed with the test binary, if it dies first.
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		f.cmds, f.stderr = append(f.cmds, cmd), append(f.stderr, stderr)
		readers.Add(1)
		go func() {
			defer readers.Done()
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				if sc.Text() == "ready" {
					f.ready <- i
					continue
				}
				var h handled
				var body int
				if _, err := fmt.Sscanf(sc.Text(), "%s %d %d %d", &h.key, &body, &h.start, &h.end); err != nil {
					t.Errorf("child %d: bad line %q: %v", i, sc.Text(), err)
					continue
				}
				h.child, h.seq, h.body = i, body/keys, body
				f.lines <- h
			}
		}()
	}
	t.Cleanup(func() {
		for _, c := range f.cmds {
			c.Process.Kill()
		}
		go func() {
			for range f.lines {
			}
		}()
		readers.Wait()
		for _, c := range f.cmds {
			c.Wait()
		}
		close(f.lines)
	})
	timeout := time.After(60 * time.Second)
	for range n {
		select {
		case <-f.ready:
		case <-timeout:
			t.Fatalf("the children did not subscribe: %s", f.errors())
		}
	}
	return f
}

// errors returns the children's stderr, for failure messages.
func (f *fleet) errors() string {
	var s []string
	for i, e := range f.stderr {
		s = append(s, fmt.Sprintf("child %d: %q", i, e.String()))
	}
	return strings.Join(s, "; ")
}

// TestKeyedTwoProcesses: 2,000 messages over 50 keys, published in order
// to a consistent-hash exchange, go through two processes that each run a
// keyed consumer, started together: both handle messages (the one that got
// more than its share of the partitions hands the surplus over); then the
// first drains and exits mid-stream, handing its partitions to the second.
// Each message is handled exactly once, and each key's messages are
// handled one at a time, in publication order, across both processes (by
// their start and end times), handovers included.
func TestKeyedTwoProcesses(t *testing.T) {
	const (
		n          = 2000
		keys       = 50
		partitions = 8
		exchange   = "keyed"
	)
	b := dial(t)
	if err := rabbitmq.DeclarePartitions(b.ch, exchange, partitions); err != nil {
		t.Fatal(err)
	}
	f := startFleet(t, 2, exchange, partitions, keys)
	b.publishTo(exchange, func(i int) string { return "k" + strconv.Itoa(i%keys) }, n)

	timeout := time.After(60 * time.Second)
	var got []handled
	var perChild, beforeDrain [2]int
	drained := false
	for len(got) < n {
		select {
		case h := <-f.lines:
			got = append(got, h)
			perChild[h.child]++
			// Once both handled messages, or at the latest after
			// two thirds: the partitions had time to spread.
			if !drained && (len(got) >= n/3 && perChild[0] > 0 && perChild[1] > 0 || len(got) >= 2*n/3) {
				drained = true
				beforeDrain = perChild
				f.cmds[0].Process.Signal(syscall.SIGTERM)
			}
		case <-timeout:
			t.Fatalf("handled %d of %d messages in 60s (per child %v); %s", len(got), n, perChild, f.errors())
		}
	}
	if err := f.cmds[0].Wait(); err != nil {
		t.Errorf("first child, drained: %v: %s", err, f.errors())
	}
	f.cmds[1].Process.Signal(syscall.SIGTERM)
	if err := f.cmds[1].Wait(); err != nil {
		t.Errorf("second child, drained: %v: %s", err, f.errors())
	}
	t.Logf("messages handled per process: %v before the first drained, %v in all", beforeDrain, perChild)
	if beforeDrain[0] == 0 || beforeDrain[1] == 0 {
		t.Errorf("messages handled per process before the first drained: %v, want both to handle some (the partitions spread)", beforeDrain)
	}

	byKey := map[string][]handled{}
	for _, h := range got {
		byKey[h.key] = append(byKey[h.key], h)
	}
	if len(byKey) != keys {
		t.Errorf("keys handled: got %d, want %d", len(byKey), keys)
	}
	for key, hs := range byKey {
		slices.SortFunc(hs, func(a, b handled) int { return int(a.start - b.start) })
		for i, h := range hs {
			if h.seq != i {
				t.Errorf("key %s: message %d handled in position %d (child %d)", key, h.seq, i, h.child)
				break
			}
			if i > 0 && hs[i-1].end > h.start {
				t.Errorf("key %s: message %d (child %d) started before message %d (child %d) ended",
					key, h.seq, h.child, hs[i-1].seq, hs[i-1].child)
				break
			}
		}
		if len(hs) != n/keys {
			t.Errorf("key %s: handled %d messages, want %d", key, len(hs), n/keys)
		}
	}
	for i := range partitions {
		if got := b.depth(rabbitmq.PartitionQueue(exchange, i)); got != 0 {
			t.Errorf("partition %d: %d messages left, want 0", i, got)
		}
	}
}

// TestKeyedThreeProcesses: three processes started together each become
// the active consumer of at least one of 8 partitions within a few seconds
// of traffic (each handles messages); then one is killed with SIGKILL, and
// the two others take its partitions over: every message published after
// the kill is handled, and so is every one it had not acknowledged.
func TestKeyedThreeProcesses(t *testing.T) {
	const (
		keys       = 64
		partitions = 8
		exchange   = "keyed.three"
	)
	b := dial(t)
	if err := rabbitmq.DeclarePartitions(b.ch, exchange, partitions); err != nil {
		t.Fatal(err)
	}
	f := startFleet(t, 3, exchange, partitions, keys)

	// Rounds of one message per key until each process handled one.
	seen := map[int]bool{}
	perChild := [3]int{}
	next := 0
	publish := func(count int) {
		b.publishFrom(exchange, func(i int) string { return "k" + strconv.Itoa(i%keys) }, next, count)
		next += count
	}
	start := time.Now()
	deadline := time.After(10 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	publish(keys)
	for perChild[0] == 0 || perChild[1] == 0 || perChild[2] == 0 {
		select {
		case h := <-f.lines:
			perChild[h.child]++
			seen[h.body] = true
		case <-tick.C:
			publish(keys)
		case <-deadline:
			t.Fatalf("messages handled per process after 10s: %v, want each to handle some; %s", perChild, f.errors())
		}
	}
	t.Logf("each process handled messages %v after the traffic started (per process %v)", time.Since(start).Round(time.Millisecond), perChild)

	// Kill one; the others take over its partitions.
	// Not waited for here: Wait would close its stdout before the
	// lines still in the pipe were read. The cleanup waits for it.
	f.cmds[2].Process.Kill()
	publish(4 * keys)
	deadline = time.After(30 * time.Second)
	for len(seen) < next {
		select {
		case h := <-f.lines:
			seen[h.body] = true
		case <-deadline:
			t.Fatalf("after the kill: %d of %d messages handled; %s", len(seen), next, f.errors())
		}
	}
}

// TestKeyedLimitAndFailures: in one process, a keyed consumer's handlers
// share a semaphore of 2 (never more than 2 run at once, across keys), a
// key's messages run one at a time in order, and a panicking handler's
// message is requeued once, then rejected (the partitions have no
// dead-letter exchange: it is dropped), as OnError and the redelivered
// flags show.
func TestKeyedLimitAndFailures(t *testing.T) {
	const (
		n          = 200
		keys       = 10
		partitions = 2
		exchange   = "keyed.limit"
	)
	b := dial(t)
	if err := rabbitmq.DeclarePartitions(b.ch, exchange, partitions); err != nil {
		t.Fatal(err)
	}
	b.publishTo(exchange, func(i int) string { return "k" + strconv.Itoa(i%keys) }, n)

	sem := core.NewSemaphore(2)
	var (
		mu          sync.Mutex
		inFlight    int
		maxInFlight int
		perKey      = map[string][]int{}
		running     = map[string]bool{}
		failures    []bool // the redelivered flag of each failure reported
		overlaps    []string
	)
	seen := newTally()
	// Running handlers as the observer's events count them: a handler
	// starts once it holds its token, so they never pass the limit either.
	var evMax int
	started := map[uint64]bool{}
	observe := func(e core.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case e.Kind == core.Started:
			started[e.Task] = true
			evMax = max(evMax, len(started))
		case e.Kind.Terminal():
			delete(started, e.Task)
		}
	}
	c := rabbitmq.NewKeyedConsumer(node.URL, exchange, partitions, func(ctx context.Context, d amqp.Delivery) error {
		body, _ := strconv.Atoi(string(d.Body))
		mu.Lock()
		inFlight++
		maxInFlight = max(maxInFlight, inFlight)
		if running[d.RoutingKey] {
			overlaps = append(overlaps, d.RoutingKey)
		}
		running[d.RoutingKey] = true
		mu.Unlock()
		defer func() {
			mu.Lock()
			inFlight--
			running[d.RoutingKey] = false
			mu.Unlock()
			seen.add(string(d.Body))
		}()
		if body == 42 {
			panic("forty-two")
		}
		work(ctx, 200*time.Microsecond)
		mu.Lock()
		perKey[d.RoutingKey] = append(perKey[d.RoutingKey], body)
		mu.Unlock()
		return nil
	}, rabbitmq.WithConcurrency(8), rabbitmq.WithSemaphore(sem), rabbitmq.WithObserver(observe), rabbitmq.OnError(func(d amqp.Delivery, err error) {
		var pe *core.PanicError
		if errors.As(err, &pe) {
			mu.Lock()
			failures = append(failures, d.Redelivered)
			mu.Unlock()
		}
	}))
	errc := run(context.Background(), c.Run)
	seen.wait(t, 30*time.Second, "every message, and the panicking one twice", func() bool { return seen.count() >= n+1 })
	if err := c.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := result(t, errc, 10*time.Second); err != nil {
		t.Fatalf("Run: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if maxInFlight != 2 {
		t.Errorf("max handlers in flight: got %d, want 2 (the semaphore)", maxInFlight)
	}
	if evMax != 2 {
		t.Errorf("max running as the observer's events count: got %d, want 2 (the semaphore)", evMax)
	}
	if len(overlaps) > 0 {
		t.Errorf("a key ran two handlers at once: %v", overlaps)
	}
	for key, bodies := range perKey {
		if !slices.IsSorted(bodies) {
			t.Errorf("key %s: handled out of order: %v", key, bodies)
		}
	}
	if got := fmtBools(failures); got != "[false true]" {
		t.Errorf("failures reported (redelivered flags): got %s, want [false true]", got)
	}
	for i := range partitions {
		if got := b.depth(rabbitmq.PartitionQueue(exchange, i)); got != 0 {
			t.Errorf("partition %d: %d messages left, want 0", i, got)
		}
	}
}

// TestKeyedCancelWhileWaitingForTokens: with every token of the shared
// semaphore held elsewhere, the keyed consumer's tasks wait for one, and
// none is reported started. Canceling the consumer's context then
// requeues every delivery it held, each reported to OnError with
// context.Canceled, and runs no handler: nothing is lost.
func TestKeyedCancelWhileWaitingForTokens(t *testing.T) {
	const (
		n          = 40
		keys       = 4
		partitions = 2
		exchange   = "keyed.cancel"
		prefetch   = 4
	)
	b := dial(t)
	if err := rabbitmq.DeclarePartitions(b.ch, exchange, partitions); err != nil {
		t.Fatal(err)
	}
	b.publishTo(exchange, func(i int) string { return "k" + strconv.Itoa(i%keys) }, n)

	sem := core.NewSemaphore(1)
	if err := sem.Acquire(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	defer sem.Release(1)
	var (
		mu                sync.Mutex
		enqueued, started int
		canceled          []string
		others            []error
	)
	seen := newTally() // counts Enqueued events: deliveries handed over
	c := rabbitmq.NewKeyedConsumer(node.URL, exchange, partitions, func(ctx context.Context, d amqp.Delivery) error {
		t.Errorf("handler ran for %s with every token held elsewhere", d.Body)
		return nil
	}, rabbitmq.WithConcurrency(prefetch), rabbitmq.WithSemaphore(sem), rabbitmq.WithObserver(func(e core.Event) {
		mu.Lock()
		switch e.Kind {
		case core.Enqueued:
			enqueued++
		case core.Started:
			started++
		}
		mu.Unlock()
		if e.Kind == core.Enqueued {
			seen.add(strconv.FormatUint(e.Task, 10))
		}
	}), rabbitmq.OnError(func(d amqp.Delivery, err error) {
		mu.Lock()
		defer mu.Unlock()
		if errors.Is(err, context.Canceled) {
			canceled = append(canceled, string(d.Body))
		} else {
			others = append(others, err)
		}
	}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := run(ctx, c.Run)
	// Each partition's prefetch fills: the consumer holds that many.
	seen.wait(t, 30*time.Second, "the prefetched deliveries handed over", func() bool { return seen.count() >= partitions*prefetch })
	cancel()
	if err := result(t, errc, 10*time.Second); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run after cancel: got %v, want context.Canceled", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if started != 0 {
		t.Errorf("tasks reported started: %d, want 0 (no token was free)", started)
	}
	if len(canceled) != enqueued || len(others) != 0 {
		t.Errorf("OnError: %d context.Canceled and %v for %d deliveries handed over, want one context.Canceled each", len(canceled), others, enqueued)
	}
	total := 0
	for i := range partitions {
		total += b.depth(rabbitmq.PartitionQueue(exchange, i))
	}
	if total != n {
		t.Errorf("messages back in the partitions: %d, want all %d", total, n)
	}
}

// TestKeyedPartitionDeleted: an operator deletes a partition's queue while
// a keyed consumer reads it, and a publisher declares the partitions again
// (as DeclarePartitions anywhere does); the consumer subscribes to the new
// queue on its own, so that no message routed to it is stranded, and Run
// goes on.
func TestKeyedPartitionDeleted(t *testing.T) {
	const (
		n          = 100
		keys       = 20
		partitions = 2
		exchange   = "keyed.deleted"
	)
	b := dial(t)
	if err := rabbitmq.DeclarePartitions(b.ch, exchange, partitions); err != nil {
		t.Fatal(err)
	}
	seen := newTally()
	subscribed := make(chan struct{}, 1)
	c := rabbitmq.NewKeyedConsumer(node.URL, exchange, partitions, func(ctx context.Context, d amqp.Delivery) error {
		seen.add(string(d.Body))
		return nil
	}, rabbitmq.WithConcurrency(4), rabbitmq.WithBackoff(10*time.Millisecond, 100*time.Millisecond),
		rabbitmq.WithObserver(func(e core.Event) {
			if e.Kind == core.Resized && e.Weight > 0 {
				select {
				case subscribed <- struct{}{}:
				default:
				}
			}
		}))
	errc := run(context.Background(), c.Run)
	<-subscribed
	if _, err := b.ch.QueueDelete(rabbitmq.PartitionQueue(exchange, 1), false, false, false); err != nil {
		t.Fatal(err)
	}
	if err := rabbitmq.DeclarePartitions(b.ch, exchange, partitions); err != nil {
		t.Fatal(err)
	}
	b.publishTo(exchange, func(i int) string { return "k" + strconv.Itoa(i%keys) }, n)
	seen.wait(t, 15*time.Second, "every message", func() bool { return seen.distinct() >= n })
	noRun(t, errc)
	if err := c.Drain(context.Background()); err != nil {
		t.Fatalf("Drain: %v", err)
	}
	if err := result(t, errc, 10*time.Second); err != nil {
		t.Fatalf("Run: %v", err)
	}
	for i := range partitions {
		if got := b.depth(rabbitmq.PartitionQueue(exchange, i)); got != 0 {
			t.Errorf("partition %d: %d messages left, want 0", i, got)
		}
	}
}
