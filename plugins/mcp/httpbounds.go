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
	// body; past it the one that has been reading longest is closed, so
	// that slow or stalled senders never keep a new client out.
	maxReading = 256
	// idleTimeout ends a kept-alive connection without a request for this
	// long.
	idleTimeout = 2 * time.Minute
	// bodyChunk is the step in which a request body's bytes are taken from
	// the budget as they arrive.
	bodyChunk = 64 << 10
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
	reading  map[net.Conn]time.Time // every connection: since when it reads a request (zero: it does not)
	nReading int                    // the non-zero ones
}

func newConnBounds() *connBounds {
	return &connBounds{slots: make(chan struct{}, maxConnections()), done: make(chan struct{}), reading: map[net.Conn]time.Time{}}
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
// idle; past maxReading the one reading longest is closed.
func (b *connBounds) connState(c net.Conn, st http.ConnState) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch st {
	case http.StateNew:
		if b.nReading >= maxReading {
			b.closeOldestLocked()
		}
		b.setLocked(c, true)
	case http.StateActive:
		if since, known := b.reading[c]; known && since.IsZero() {
			b.setLocked(c, true)
		}
	case http.StateIdle:
		b.setLocked(c, false)
	case http.StateHijacked, http.StateClosed:
		b.setLocked(c, false)
		delete(b.reading, c)
	}
}

// closeOldestLocked closes the connection that has been reading a request
// longest; b.mu is held.
func (b *connBounds) closeOldestLocked() {
	var oldest net.Conn
	var since time.Time
	for c, t := range b.reading {
		if !t.IsZero() && (oldest == nil || t.Before(since)) {
			oldest, since = c, t
		}
	}
	if oldest != nil {
		b.setLocked(oldest, false)
		_ = oldest.Close()
	}
}

// setLocked records whether c reads a request; b.mu is held.
func (b *connBounds) setLocked(c net.Conn, reading bool) {
	was := !b.reading[c].IsZero()
	switch {
	case reading && !was:
		b.nReading++
		b.reading[c] = time.Now()
	case !reading && was:
		b.nReading--
		b.reading[c] = time.Time{}
	case !reading:
		b.reading[c] = time.Time{}
	}
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

// deadline bounds reading the rest of r (its body, or what net/http would
// drain of it after an answer) by d from now.
func deadline(w http.ResponseWriter, d time.Duration) {
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(d))
}

// endReading makes the rest of r's body unreadable at once, so that the
// connection closes after the answer instead of net/http draining the body.
func endReading(w http.ResponseWriter) {
	_ = http.NewResponseController(w).SetReadDeadline(time.Unix(1, 0))
}

// noDeadline lifts the read deadline of r's connection, for a handler that
// holds it long (a stream) or once its body was read.
func noDeadline(w http.ResponseWriter) {
	_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
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
