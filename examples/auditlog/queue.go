package auditlog

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dsh-go/dsh/events"
)

// queue hands records from the fs/observed listener to the writer without
// ever blocking the listener.
type queue struct {
	ch      chan Record
	mu      sync.RWMutex // closed flips under the write lock, offers hold the read lock
	closed  bool
	dropped atomic.Int64
}

func newQueue(size int) *queue { return &queue{ch: make(chan Record, size)} }

// observed is the fs/observed listener: it offers the record and returns at
// once. It never fails, so the audit log can never turn a tool call into an
// error result (contract §1.1, [D10]).
func (q *queue) observed(_ context.Context, o events.Observation) error {
	r := newRecord(o, time.Now())
	q.mu.RLock()
	defer q.mu.RUnlock()
	if q.closed {
		q.dropped.Add(1)
		return nil
	}
	select {
	case q.ch <- r:
	default:
		q.dropped.Add(1)
	}
	return nil
}

// close refuses further offers; once it returns, every accepted record is
// in the channel.
func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
}

// take appends to batch every record queued right now, without waiting.
func (q *queue) take(batch []Record) []Record {
	for {
		select {
		case r := <-q.ch:
			batch = append(batch, r)
		default:
			return batch
		}
	}
}
