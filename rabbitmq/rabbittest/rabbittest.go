// Package rabbittest starts a throwaway RabbitMQ node for tests: on
// loopback only, on ports of its own, with its state in a temporary
// directory, and stopped by its process id. It needs the Debian package
// rabbitmq-server (the node runs without the system service); the
// consistent-hash exchange plugin is enabled.
//
// A test binary starts one node in TestMain and shares it:
//
//	func TestMain(m *testing.M) {
//		node, err := rabbittest.Start(context.Background())
//		if err != nil {
//			fmt.Fprintln(os.Stderr, err)
//			os.Exit(1)
//		}
//		code := m.Run()
//		node.Stop()
//		os.Exit(code)
//	}
package rabbittest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// Server is where Debian's rabbitmq-server package installs the script
// that runs a node in the foreground as the calling user.
const Server = "/usr/lib/rabbitmq/bin/rabbitmq-server"

// ErrNotInstalled is returned by Start when rabbitmq-server is missing.
var ErrNotInstalled = errors.New("rabbittest: " + Server + " not found: install the Debian package rabbitmq-server (make test does when run as root)")

// StartTimeout bounds how long Start and Restart wait for the node to
// accept AMQP connections.
const StartTimeout = 60 * time.Second

// Node is a running throwaway broker. Its methods may be called from
// several goroutines, one at a time.
type Node struct {
	// URL is the AMQP URL of the node (guest, on 127.0.0.1).
	URL string

	dir  string
	env  []string
	epmd *exec.Cmd

	mu     sync.Mutex
	cmd    *exec.Cmd     // the broker; nil while stopped
	stdin  *os.File      // the write end of the broker's stdin
	exited chan struct{} // closed when cmd has been waited for
}

// Option configures a node started by [Start].
type Option func(*options)

type options struct {
	conf     string
	advanced string
}

// Conf adds lines to the node's rabbitmq.conf (the new-style configuration
// file: "key = value" lines), such as "consumer_timeout = 2000".
func Conf(lines string) Option {
	return func(o *options) { o.conf += lines + "\n" }
}

// Advanced sets the node's advanced.config: an Erlang term, for settings
// rabbitmq.conf has no key for, such as
// "[{rabbit, [{channel_tick_interval, 100}]}]." (how often a channel checks
// its consumers' acknowledgement timeout).
func Advanced(term string) Option {
	return func(o *options) { o.advanced = term }
}

// Start starts a node and blocks until it accepts AMQP connections, ctx
// ends or StartTimeout passes. On failure nothing is left running and the
// error says why (ErrNotInstalled when the package is missing, otherwise
// with the end of the node's log). Options configure the node; without
// any it runs with the broker's defaults.
func Start(ctx context.Context, opts ...Option) (*Node, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if _, err := os.Stat(Server); err != nil {
		return nil, ErrNotInstalled
	}
	epmdPath, err := exec.LookPath("epmd")
	if err != nil {
		return nil, fmt.Errorf("rabbittest: epmd (Debian package erlang-base) not found: %w", err)
	}
	dir, err := os.MkdirTemp("", "sluice-rabbit-")
	if err != nil {
		return nil, fmt.Errorf("rabbittest: %w", err)
	}
	ports, err := freePorts(3)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	amqpPort, distPort, epmdPort := ports[0], ports[1], ports[2]
	plugins := filepath.Join(dir, "enabled_plugins")
	if err := os.WriteFile(plugins, []byte("[rabbitmq_consistent_hash_exchange].\n"), 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("rabbittest: %w", err)
	}
	for name, text := range map[string]string{"rabbitmq.conf": o.conf, "advanced.config": o.advanced} {
		if text == "" {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("rabbittest: %w", err)
		}
	}
	envFile := filepath.Join(dir, "rabbitmq-env.conf")
	if err := os.WriteFile(envFile, nil, 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("rabbittest: %w", err)
	}
	n := &Node{
		URL: fmt.Sprintf("amqp://guest:guest@127.0.0.1:%d/", amqpPort),
		dir: dir,
		env: append(cleanEnv(),
			"HOME="+dir,
			"RABBITMQ_NODENAME=sluice-"+strconv.Itoa(os.Getpid())+"@localhost",
			"RABBITMQ_NODE_IP_ADDRESS=127.0.0.1",
			"RABBITMQ_NODE_PORT="+strconv.Itoa(amqpPort),
			"RABBITMQ_DIST_PORT="+strconv.Itoa(distPort),
			"ERL_EPMD_ADDRESS=127.0.0.1",
			"ERL_EPMD_PORT="+strconv.Itoa(epmdPort),
			"RABBITMQ_MNESIA_BASE="+filepath.Join(dir, "mnesia"),
			"RABBITMQ_LOG_BASE="+filepath.Join(dir, "log"),
			"RABBITMQ_ENABLED_PLUGINS_FILE="+plugins,
			"RABBITMQ_CONF_ENV_FILE="+envFile,
			"RABBITMQ_CONFIG_FILE="+filepath.Join(dir, "rabbitmq"),
			"RABBITMQ_ADVANCED_CONFIG_FILE="+filepath.Join(dir, "advanced.config"),
			"RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS=-kernel inet_dist_use_interface {127,0,0,1}",
		),
	}
	// epmd runs in the foreground as our child, so that it is stopped by
	// its process id too, and killed if this process dies first; the node
	// finds it and starts no daemon of its own.
	n.epmd = exec.Command(epmdPath, "-port", strconv.Itoa(epmdPort))
	n.epmd.Env = n.env
	n.epmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := n.epmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("rabbittest: start epmd: %w", err)
	}
	if err := n.start(ctx); err != nil {
		n.Stop()
		return nil, err
	}
	return n, nil
}

// Sync writes the node's schema database (its queues, exchanges and
// bindings) to disk, through rabbitmqctl (a second or two). The node
// commits a declaration to its transaction log without syncing it, so a
// queue declared shortly before Kill can be gone after Restart, with its
// messages: a test that kills the node calls Sync first.
func (n *Node) Sync(ctx context.Context) error {
	_, err := n.Ctl(ctx, "eval", "mnesia:sync_log(), mnesia:dump_log().")
	return err
}

// Kill kills the node with SIGKILL, as a crash would, and waits for it to
// exit. Its state stays, for Restart. Killing a stopped node does nothing.
func (n *Node) Kill() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.kill()
}

// Freeze stops the node with SIGSTOP, as a hung broker: it keeps its
// connections open and answers nothing, until Thaw. It blocks until every
// thread of the node is stopped (at most a second). Freezing a stopped
// node does nothing.
func (n *Node) Freeze() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd == nil {
		return
	}
	n.cmd.Process.Signal(syscall.SIGSTOP)
	for deadline := time.Now().Add(time.Second); !stopped(n.cmd.Process.Pid) && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
}

// stopped reports whether every thread of process pid is stopped, as
// /proc shows it.
func stopped(pid int) bool {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	if err != nil || len(tasks) == 0 {
		return false
	}
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			return false
		}
		// pid (comm) state ...: comm may hold spaces and parentheses.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 || i+2 >= len(b) || (b[i+2] != 'T' && b[i+2] != 't') {
			return false
		}
	}
	return true
}

// Thaw resumes a node stopped by Freeze (SIGCONT).
func (n *Node) Thaw() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd != nil {
		n.cmd.Process.Signal(syscall.SIGCONT)
	}
}

// Ctl runs rabbitmqctl against the node with args (such as
// "close_all_connections", "test") and returns its output. It blocks until
// rabbitmqctl exits (a second or two: it starts an Erlang VM) or ctx ends.
func (n *Node) Ctl(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(filepath.Dir(Server), "rabbitmqctl"), args...)
	cmd.Env = n.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("rabbittest: rabbitmqctl %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// Restart starts the node again after Kill, on the same ports and with the
// same state, and blocks like Start.
func (n *Node) Restart(ctx context.Context) error {
	n.mu.Lock()
	n.kill()
	n.mu.Unlock()
	return n.start(ctx)
}

// Stop kills the node and its epmd and removes its state. It is safe to
// call more than once.
func (n *Node) Stop() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.kill()
	if n.epmd != nil {
		n.epmd.Process.Kill()
		n.epmd.Wait()
		n.epmd = nil
	}
	if n.dir != "" {
		os.RemoveAll(n.dir)
		n.dir = ""
	}
}

// Log returns the end of the node's output and of its log file, for
// failure messages.
func (n *Node) Log() string {
	var s strings.Builder
	files, _ := filepath.Glob(filepath.Join(n.dir, "log", "*.log"))
	for _, f := range append([]string{filepath.Join(n.dir, "stdout.log")}, files...) {
		b, _ := os.ReadFile(f)
		if len(b) > 4000 {
			b = b[len(b)-4000:]
		}
		fmt.Fprintf(&s, "%s:\n%s\n", filepath.Base(f), b)
	}
	return s.String()
}

// start runs the broker, then waits until a connection succeeds.
//
// RABBITMQ_ALLOW_INPUT makes the script exec the Erlang VM, so the process
// started is the node itself, killed by its process id; the VM then reads
// its stdin, a pipe this process holds open: if this process dies without
// stopping the node (a test binary killed by its timeout), the pipe
// closes and the node halts.
func (n *Node) start(ctx context.Context) error {
	out, err := os.OpenFile(filepath.Join(n.dir, "stdout.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("rabbittest: %w", err)
	}
	stdin, stdinW, err := os.Pipe()
	if err != nil {
		out.Close()
		return fmt.Errorf("rabbittest: %w", err)
	}
	cmd := exec.Command(Server)
	cmd.Env = append(n.env, "RABBITMQ_ALLOW_INPUT=1")
	cmd.Dir = n.dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, out, out
	err = cmd.Start()
	out.Close()
	stdin.Close()
	if err != nil {
		stdinW.Close()
		return fmt.Errorf("rabbittest: start %s: %w", Server, err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	n.mu.Lock()
	n.cmd, n.stdin, n.exited = cmd, stdinW, exited
	n.mu.Unlock()

	ctx, cancel := context.WithTimeout(ctx, StartTimeout)
	defer cancel()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		conn, err := amqp.DialConfig(n.URL, amqp.Config{Dial: amqp.DefaultDial(time.Second)})
		if err == nil {
			conn.Close()
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("rabbittest: the node exited while starting (are you root or the owner of %s?):\n%s", n.dir, n.Log())
		case <-ctx.Done():
			n.Kill()
			return fmt.Errorf("rabbittest: the node did not accept connections: %w (last error: %v):\n%s", ctx.Err(), err, n.Log())
		case <-tick.C:
		}
	}
}

func (n *Node) kill() {
	if n.cmd == nil {
		return
	}
	n.cmd.Process.Kill()
	<-n.exited
	n.stdin.Close()
	n.cmd, n.stdin, n.exited = nil, nil, nil
}

// cleanEnv is the environment without the variables that configure a
// broker or an Erlang node, which the node sets for itself.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "RABBITMQ_") || strings.HasPrefix(kv, "ERL_") ||
			strings.HasPrefix(kv, "NOTIFY_SOCKET=") || strings.HasPrefix(kv, "HOME=") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// freePorts returns n distinct loopback ports that were free a moment ago.
func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("rabbittest: find a free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
