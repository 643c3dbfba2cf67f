package mcp

import (
	"context"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"
)

// The bounds of the HTTP transport (docs/mcp.md "Limits and timeouts"),
// which keep a client without the token, or one that holds its connections
// open, from starving the others.
const (
	// DefaultReadTimeout bounds reading one request: its headers, then its
	// body (the key readTimeout).
	DefaultReadTimeout = 30 * time.Second
	// maxConnectionsCeiling bounds the connections served at once; the
	// bound is half the process's descriptor limit when that is lower, so
	// that files always have descriptors left. Past it new connections
	// wait in the kernel's backlog.
	maxConnectionsCeiling = 4096
	// maxReading bounds the connections still in a request's headers or
	// body; past it a new connection is closed at once.
	maxReading = 256
	// maxStreams bounds the long-lived streams (a legacy session's GET, a
	// 2026-07-28 subscriptions/listen); past it a new one gets 503.
	maxStreams = 256
	// bodyBudgetFactor bounds the request bodies held at once, in bytes:
	// this many times maxMessageBytes.
	bodyBudgetFactor = 4
)

// maxConnections returns the connection bound: maxConnectionsCeiling, or
// half the soft descriptor limit when that is lower (at least 16).
func maxConnections() int {
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl) != nil {
		return maxConnectionsCeiling
	}
	return max(16, min(maxConnectionsCeiling, int(rl.Cur/2)))
}

// connBounds counts the HTTP transport's connections: those accepted
// (slots, bounded by maxConnections: Accept waits for one to close) and
// those still reading a request (bounded by maxReading: a new connection
// past it is closed at once).
type connBounds struct {
	slots chan struct{}
	done  chan struct{} // closed when the listener closes: a waiting Accept returns

	mu       sync.Mutex
	reading  map[net.Conn]bool // every connection: whether it reads a request
	nReading int               // the true ones
}

func newConnBounds() *connBounds {
	return &connBounds{slots: make(chan struct{}, maxConnections()), done: make(chan struct{}), reading: map[net.Conn]bool{}}
}

// listener bounds ln's accepted connections.
func (b *connBounds) listener(ln net.Listener) net.Listener {
	return &boundedListener{Listener: ln, b: b}
}

type boundedListener struct {
	net.Listener
	b    *connBounds
	once sync.Once
}

func (l *boundedListener) Accept() (net.Conn, error) {
	select {
	case l.b.slots <- struct{}{}:
	case <-l.b.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.b.slots
		return nil, err
	}
	return &slotConn{Conn: c, release: func() { <-l.b.slots }}, nil
}

func (l *boundedListener) Close() error {
	l.once.Do(func() { close(l.b.done) })
	return l.Listener.Close()
}

// slotConn gives its slot back when closed.
type slotConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *slotConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// connState is the http.Server's ConnState hook: a connection reads from
// its first byte (new, or active again after idle) until doneReading or
// idle; a new one past maxReading is closed.
func (b *connBounds) connState(c net.Conn, st http.ConnState) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch st {
	case http.StateNew:
		if b.nReading >= maxReading {
			_ = c.Close()
			return
		}
		b.setLocked(c, true)
	case http.StateActive:
		if _, known := b.reading[c]; known {
			b.setLocked(c, true)
		}
	case http.StateIdle:
		b.setLocked(c, false)
	case http.StateHijacked, http.StateClosed:
		b.setLocked(c, false)
		delete(b.reading, c)
	}
}

// setLocked records whether c reads a request; b.mu is held.
func (b *connBounds) setLocked(c net.Conn, reading bool) {
	if was := b.reading[c]; was != reading {
		if reading {
			b.nReading++
		} else {
			b.nReading--
		}
	}
	b.reading[c] = reading
}

// doneReading marks the connection of r as past its request's body.
func (b *connBounds) doneReading(r *http.Request) {
	c, ok := r.Context().Value(connKey{}).(net.Conn)
	if !ok {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, known := b.reading[c]; known {
		b.setLocked(c, false)
	}
}

// connKey carries a request's connection in its context (ConnContext).
type connKey struct{}

func withConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// streamSlots counts the long-lived streams.
type streamSlots struct {
	mu sync.Mutex
	n  int
}

func (s *streamSlots) begin() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n >= maxStreams {
		return false
	}
	s.n++
	return true
}

func (s *streamSlots) end() {
	s.mu.Lock()
	s.n--
	s.mu.Unlock()
}
