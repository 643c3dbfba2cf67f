package tools

import (
	"context"
	"slices"
	"sync/atomic"

	"github.com/dsh-go/dsh/host"
)

// cowList is a copy-on-write list: readers take a snapshot with load and
// never lock; writers hold the registry's mutex and store a new slice.
type cowList[T comparable] struct{ p atomic.Pointer[[]T] }

// load returns the current snapshot; callers must not modify it.
func (l *cowList[T]) load() []T {
	if p := l.p.Load(); p != nil {
		return *p
	}
	return nil
}

// add stores a copy with x appended, ordered by cmp when cmp is not nil
// (a stable sort, so equal elements keep their registration order).
func (l *cowList[T]) add(x T, cmp func(a, b T) int) {
	next := append(slices.Clone(l.load()), x)
	if cmp != nil {
		slices.SortStableFunc(next, cmp)
	}
	l.p.Store(&next)
}

// remove stores a copy without x.
func (l *cowList[T]) remove(x T) {
	next := slices.DeleteFunc(slices.Clone(l.load()), func(y T) bool { return y == x })
	l.p.Store(&next)
}

// own makes undo an effect of s labelled label: it runs (under the
// registry's mutex, then notifying the change watchers when notify is set,
// then waiting in drain when drain is not nil) when s ends or the returned
// Disposer runs. When s is inactive, undo runs at once and host.ErrInactive
// is returned.
func (r *Registry) own(s *host.Scope, label string, notify bool, undo func(), drain func(context.Context) error) (host.Disposer, error) {
	remove := func(ctx context.Context) error {
		r.mu.Lock()
		undo()
		r.mu.Unlock()
		if notify {
			r.changed()
		}
		if drain != nil {
			return drain(ctx)
		}
		return nil
	}
	d, err := s.Effect(label, remove)
	if err != nil {
		_ = remove(context.Background())
		return nil, err
	}
	return d, nil
}
