package exec

import (
	"sync"
	"sync/atomic"
)

// notification is one queued notification: fs/observed with an
// events.Observation, conversation/closed with the id, or cancel with a
// call id. It is encoded when written, off the tool call's goroutine.
type notification struct {
	method  string
	payload any
}

// queue holds the notifications waiting for the child (plugin-protocol.md
// §1): at most max; pushing onto a full queue drops the oldest and counts
// it. It outlives the child's restarts, so what was queued while the child
// was down reaches the next one.
type queue struct {
	mu      sync.Mutex
	items   []notification // ring: items[head:] then items[:head], n in all
	head, n int
	ready   chan struct{} // signalled (capacity 1) when items were pushed
	dropped atomic.Uint64
}

func newQueue(max int) *queue {
	return &queue{items: make([]notification, max), ready: make(chan struct{}, 1)}
}

// push adds x, dropping the oldest when full; it reports whether it
// dropped one. It never blocks.
func (q *queue) push(x notification) (dropped bool) {
	q.mu.Lock()
	if q.n == len(q.items) {
		q.items[q.head] = notification{}
		q.head = (q.head + 1) % len(q.items)
		q.n--
		dropped = true
	}
	q.items[(q.head+q.n)%len(q.items)] = x
	q.n++
	q.mu.Unlock()
	if dropped {
		q.dropped.Add(1)
	}
	select {
	case q.ready <- struct{}{}:
	default:
	}
	return dropped
}

// take removes and returns everything queued, oldest first.
func (q *queue) take() []notification {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]notification, 0, q.n)
	for i := range q.n {
		j := (q.head + i) % len(q.items)
		out = append(out, q.items[j])
		q.items[j] = notification{}
	}
	q.head, q.n = 0, 0
	return out
}
