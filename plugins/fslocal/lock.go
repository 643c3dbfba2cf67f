package fslocal

import (
	"context"
	"sync"
)

// lockTable holds one FIFO lock per target key (contract §3.9). An entry
// exists only while a call holds or waits for its key, so the table is
// empty whenever no mutation is in flight. It serialises the calls of one
// process; the directory flock of oslock.go, taken after it, serialises
// processes.
type lockTable struct {
	mu sync.Mutex
	m  map[string]*lockQueue
}

// lockQueue is the lock of one key: it is held while it is in the table, and
// waiters are granted it in arrival order.
type lockQueue struct {
	waiters []*lockWaiter
}

// lockWaiter is one call waiting for a key. granted is set (under the
// table's mutex) when the lock is handed to it, and ready is then closed.
type lockWaiter struct {
	ready   chan struct{}
	granted bool
}

// acquire waits for key's lock in FIFO order and returns its release
// function, to be called exactly once. When ctx ends first it returns
// ctx.Err(): the call leaves the queue without disturbing the order of the
// other waiters, and a grant that raced with the cancellation is passed on
// at once.
func (l *lockTable) acquire(ctx context.Context, key string) (func(), error) {
	release := func() { l.release(key) }
	l.mu.Lock()
	if l.m == nil {
		l.m = map[string]*lockQueue{}
	}
	q, held := l.m[key]
	if !held {
		l.m[key] = &lockQueue{}
		l.mu.Unlock()
		return release, nil
	}
	w := &lockWaiter{ready: make(chan struct{})}
	q.waiters = append(q.waiters, w)
	l.mu.Unlock()

	select {
	case <-w.ready:
		return release, nil
	case <-ctx.Done():
	}
	l.mu.Lock()
	if w.granted {
		l.mu.Unlock()
		l.release(key)
		return nil, ctx.Err()
	}
	for i, x := range q.waiters {
		if x == w {
			q.waiters = append(q.waiters[:i:i], q.waiters[i+1:]...)
			break
		}
	}
	l.mu.Unlock()
	return nil, ctx.Err()
}

// release hands key's lock to the longest-waiting caller, or drops the
// entry when nobody waits.
func (l *lockTable) release(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	q := l.m[key]
	if len(q.waiters) == 0 {
		delete(l.m, key)
		return
	}
	w := q.waiters[0]
	q.waiters = q.waiters[1:]
	w.granted = true
	close(w.ready)
}

// count returns the number of keys held or waited for.
func (l *lockTable) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.m)
}

// LockCount returns how many target keys currently have a lock entry: one
// per key held or waited for by a WriteText, EditText or RestoreBytes in
// flight. It is 0 whenever every call has returned, success or failure. A
// test hook
// (contract §3.9).
func (p *Provider) LockCount() int { return p.locks.count() }
