package wire

import (
	"sync"
	"time"
)

// DropReportInterval is how often at most a carrier logs the drops of its
// queue (§1: "the log says it once a minute").
const DropReportInterval = time.Minute

// Queue is a carrier's bounded queue of notifications (§1): it holds at
// most the bound it was made with; pushing onto a full queue drops the
// oldest and counts it. It never blocks, so a tool call that emits an
// event only pays a push. Its zero value is not usable: make one with
// [NewQueue].
type Queue[T any] struct {
	mu       sync.Mutex
	items    []T // ring: items[head:] then items[:head], n in all
	head, n  int
	ready    chan struct{} // signalled (capacity 1) when items were pushed
	dropped  uint64
	reported uint64    // dropped at the last report
	lastLog  time.Time // when drops were last reported
}

// NewQueue returns an empty queue that holds at most max items (max ≥ 1).
func NewQueue[T any](max int) *Queue[T] {
	return &Queue[T]{items: make([]T, max), ready: make(chan struct{}, 1)}
}

// Push adds x, dropping the oldest item when the queue is full; it reports
// whether it dropped one.
func (q *Queue[T]) Push(x T) (dropped bool) {
	var zero T
	q.mu.Lock()
	if q.n == len(q.items) {
		q.items[q.head] = zero
		q.head = (q.head + 1) % len(q.items)
		q.n--
		q.dropped++
		dropped = true
	}
	q.items[(q.head+q.n)%len(q.items)] = x
	q.n++
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
	return dropped
}

// Pop removes and returns the oldest item, and false when there is none.
func (q *Queue[T]) Pop() (T, bool) {
	var zero T
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.n == 0 {
		return zero, false
	}
	x := q.items[q.head]
	q.items[q.head] = zero
	q.head = (q.head + 1) % len(q.items)
	q.n--
	return x, true
}

// Take removes and returns every item, oldest first.
func (q *Queue[T]) Take() []T {
	var zero T
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]T, 0, q.n)
	for i := range q.n {
		j := (q.head + i) % len(q.items)
		out = append(out, q.items[j])
		q.items[j] = zero
	}
	q.head, q.n = 0, 0
	return out
}

// Resize makes the queue hold at most bound items (bound ≥ 1), keeping the
// newest; it returns how many it dropped, which are counted.
func (q *Queue[T]) Resize(bound int) (dropped int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if bound == len(q.items) {
		return 0
	}
	items := make([]T, bound)
	dropped = max(0, q.n-bound)
	for i := range q.n - dropped {
		items[i] = q.items[(q.head+dropped+i)%len(q.items)]
	}
	q.items, q.head, q.n = items, 0, q.n-dropped
	q.dropped += uint64(dropped)
	return dropped
}

// Len returns how many items wait.
func (q *Queue[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.n
}

// Ready is signalled after a push; a reader that finds the queue empty
// waits on it.
func (q *Queue[T]) Ready() <-chan struct{} { return q.ready }

// Discard counts an item its reader dropped after taking it (an audit
// event that could not be published in time): it is reported with the
// queue's own drops.
func (q *Queue[T]) Discard() {
	q.mu.Lock()
	q.dropped++
	q.mu.Unlock()
}

// Dropped returns how many items were dropped since the queue was made,
// by Push or Discard.
func (q *Queue[T]) Dropped() uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.dropped
}

// DropsToReport returns the drops since the last report and the total,
// with ok true when there are some and the last report is at least
// DropReportInterval before now, or final is set (the carrier is
// stopping); ok marks them reported. Carriers log with it, so the log says
// it at most once a minute.
func (q *Queue[T]) DropsToReport(now time.Time, final bool) (n, total uint64, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.dropped == q.reported || (!final && now.Sub(q.lastLog) < DropReportInterval) {
		return 0, q.dropped, false
	}
	n, q.reported, q.lastLog = q.dropped-q.reported, q.dropped, now
	return n, q.dropped, true
}
