package mcp

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// outboxSize bounds the notifications one outbox holds unsent; one more is
// dropped. A call's progress is throttled to a few reports a second
// (tools.Progress), so a full outbox means a client that stopped reading.
const outboxSize = 32

// outboxFlush bounds how long a call's answer waits for its outbox to
// empty, so that a reading client gets a call's notifications before its
// result.
const outboxFlush = time.Second

// outbox sends notifications, in order, on a goroutine of its own, which
// runs only while some wait: a client that stops reading its stream stalls
// that goroutine and none of the tool's, the call slot's or the reload
// watcher's (a write to a stalled stream has no deadline the SDK sets).
// post never blocks.
type outbox struct {
	mu      sync.Mutex
	queue   []func()
	sending bool
	empty   chan struct{} // closed when the queue is empty and nothing is sending
}

// post queues send, or drops it when outboxSize notifications wait.
func (o *outbox) post(send func()) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.queue) >= outboxSize {
		return
	}
	o.queue = append(o.queue, send)
	if !o.sending {
		o.sending = true
		o.empty = make(chan struct{})
		go o.run()
	}
}

// run sends what waits until the queue is empty.
func (o *outbox) run() {
	for {
		o.mu.Lock()
		if len(o.queue) == 0 {
			o.sending = false
			close(o.empty)
			o.mu.Unlock()
			return
		}
		send := o.queue[0]
		o.queue[0] = nil
		o.queue = o.queue[1:]
		o.mu.Unlock()
		send()
	}
}

// flush waits until everything posted was sent, or at most d.
func (o *outbox) flush(d time.Duration) {
	o.mu.Lock()
	if !o.sending {
		o.mu.Unlock()
		return
	}
	empty := o.empty
	o.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-empty:
	case <-t.C:
	}
}

// announcer holds the outbox of each legacy session an announcement went
// to (Server.Announce).
type announcer struct {
	mu    sync.Mutex
	boxes map[*mcp.ServerSession]*outbox
}

// announce posts message at level to every session of srv, each through
// its own outbox, and forgets the outboxes of sessions that ended.
func (a *announcer) announce(srv *mcp.Server, level mcp.LoggingLevel, message string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	live := map[*mcp.ServerSession]*outbox{}
	for ss := range srv.Sessions() {
		o := a.boxes[ss]
		if o == nil {
			o = &outbox{}
		}
		live[ss] = o
		o.post(func() {
			_ = ss.Log(context.Background(), &mcp.LoggingMessageParams{Level: level, Logger: "dshhost", Data: message})
		})
	}
	a.boxes = live
}
