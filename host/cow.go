package host

import (
	"slices"
	"sync"
	"sync/atomic"
)

// cowList is the host's one copy-on-write list, of which the listener
// tables and the status hooks are made (host §3.5, §4.2): readers take a
// snapshot with one atomic load and never lock; writers copy the slice and
// store the copy, serialised on the list's own mutex, which is never held
// while plugin code runs. A dispatch therefore iterates a list that no
// registration made during it can change. The zero value is an empty list.
type cowList[T comparable] struct {
	mu sync.Mutex
	p  atomic.Pointer[[]T]
}

// load returns the current snapshot (nil when empty); the caller must not
// modify it, and it never changes once returned.
func (l *cowList[T]) load() []T {
	if p := l.p.Load(); p != nil {
		return *p
	}
	return nil
}

// add stores a copy with x added: at the end when cmp is nil, else where a
// stable sort by cmp puts it (after the elements that compare equal).
func (l *cowList[T]) add(x T, cmp func(a, b T) int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	next := append(slices.Clone(l.load()), x)
	if cmp != nil {
		slices.SortStableFunc(next, cmp)
	}
	l.p.Store(&next)
}

// remove stores a copy without x and reports whether x was there. An
// emptied list is stored as nil.
func (l *cowList[T]) remove(x T) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	cur := l.load()
	i := slices.Index(cur, x)
	switch {
	case i < 0:
		return false
	case len(cur) == 1:
		l.p.Store(nil)
		return true
	}
	next := slices.Delete(slices.Clone(cur), i, i+1)
	l.p.Store(&next)
	return true
}
