package rabbitmq

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// link is one connection of a consumer or a publisher, with its first
// channel. Until endSetup, ctx (or stop) cuts the setup short by closing
// the connection's socket, which fails whatever waits for the broker at
// once.
type link struct {
	raw    *rawConn
	conn   *amqp.Connection
	ch     *amqp.Channel
	closed chan *amqp.Error // ch's NotifyClose

	guardOnce  sync.Once
	guardDone  chan struct{}
	guard      sync.WaitGroup
	guardFired atomic.Bool
}

// rawConn is the socket under a connection, which closing cuts the
// connection at once, whatever the broker does.
type rawConn struct {
	mu     sync.Mutex
	c      net.Conn
	closed bool
}

func (r *rawConn) set(c net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	r.c = c
	return true
}

func (r *rawConn) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.c != nil {
		r.c.Close()
	}
}

// dialLink dials url. It blocks until the handshake is over, or fails at
// once when ctx ends or stop is closed (a nil stop never is).
func dialLink(ctx context.Context, url string, cfg amqp.Config, stop <-chan struct{}) (*link, error) {
	l := &link{raw: &rawConn{}, guardDone: make(chan struct{})}
	l.guard.Add(1)
	go func() {
		defer l.guard.Done()
		select {
		case <-ctx.Done():
		case <-stop:
		case <-l.guardDone:
			return
		}
		l.guardFired.Store(true)
		l.raw.close()
	}()
	dial := cfg.Dial
	cfg.Dial = func(network, addr string) (net.Conn, error) {
		var (
			nc  net.Conn
			err error
		)
		if dial != nil {
			nc, err = dial(network, addr)
		} else {
			d := net.Dialer{Timeout: DialTimeout}
			if nc, err = d.DialContext(ctx, network, addr); err == nil {
				// Cleared by the library once the handshake is over.
				err = nc.SetDeadline(time.Now().Add(DialTimeout))
			}
		}
		if err != nil {
			return nil, err
		}
		if !l.raw.set(nc) {
			nc.Close()
			return nil, errSetupCut
		}
		return nc, nil
	}
	conn, err := amqp.DialConfig(url, cfg)
	if err != nil {
		l.endSetup()
		l.raw.close()
		return nil, fmt.Errorf("rabbitmq: dial: %w", err)
	}
	l.conn = conn
	return l, nil
}

// open opens the link's first channel.
func (l *link) open() error {
	ch, err := l.conn.Channel()
	if err != nil {
		return fmt.Errorf("rabbitmq: open a channel: %w", err)
	}
	l.ch = ch
	// Buffered: the library sends the channel's error once, then closes.
	l.closed = ch.NotifyClose(make(chan *amqp.Error, 1))
	return nil
}

// endSetup ends the setup: ctx and stop no longer cut the connection. It
// reports whether they did.
func (l *link) endSetup() (cut bool) {
	l.guardOnce.Do(func() { close(l.guardDone) })
	l.guard.Wait()
	return l.guardFired.Load()
}

// close closes the connection, waiting up to closeTimeout for the broker
// to answer, or only abortTimeout when not graceful (the context ended).
// It does not close the socket first, which could lose the last
// acknowledgements sent.
func (l *link) close(graceful bool) {
	l.endSetup()
	wait := closeTimeout
	if !graceful {
		wait = abortTimeout
	}
	l.conn.CloseDeadline(time.Now().Add(wait))
}
