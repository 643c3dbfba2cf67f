package host

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
)

// hookList is a copy-on-write list of host-level hooks (status and
// dispatch): readers take a snapshot without locking; add and the returned
// Disposer serialise on mu. An empty list is stored as nil, so "no hook"
// costs one atomic load.
type hookList[T comparable] struct {
	mu sync.Mutex
	p  atomic.Pointer[[]T]
}

// snapshot returns the current hooks; callers must not modify the slice.
func (l *hookList[T]) snapshot() []T {
	if p := l.p.Load(); p != nil {
		return *p
	}
	return nil
}

// empty reports whether no hook is registered.
func (l *hookList[T]) empty() bool { return l.p.Load() == nil }

// add appends hk and returns the Disposer that removes exactly it.
func (l *hookList[T]) add(hk T) Disposer {
	l.mu.Lock()
	next := append(slices.Clone(l.snapshot()), hk)
	l.p.Store(&next)
	l.mu.Unlock()
	return func(context.Context) error {
		l.mu.Lock()
		defer l.mu.Unlock()
		next := slices.DeleteFunc(slices.Clone(l.snapshot()), func(x T) bool { return x == hk })
		if len(next) == 0 {
			l.p.Store(nil)
		} else {
			l.p.Store(&next)
		}
		return nil
	}
}
