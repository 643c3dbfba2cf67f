package host

import (
	"context"
	"sync"
	"testing"

	"github.com/asaskevich/EventBus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fenceBus counts how the host uses EventBus and records any use the fence
// forbids (host §4.2).
type fenceBus struct {
	EventBus.Bus
	mu        sync.Mutex
	subscribe map[string]int
	publish   map[string]int
	forbidden []string
}

func newFenceBus() *fenceBus {
	return &fenceBus{Bus: EventBus.New(), subscribe: map[string]int{}, publish: map[string]int{}}
}

func (b *fenceBus) Subscribe(topic string, fn any) error {
	b.mu.Lock()
	b.subscribe[topic]++
	b.mu.Unlock()
	return b.Bus.Subscribe(topic, fn)
}

func (b *fenceBus) Publish(topic string, args ...any) {
	b.mu.Lock()
	b.publish[topic]++
	b.mu.Unlock()
	b.Bus.Publish(topic, args...)
}

func (b *fenceBus) forbid(name string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.forbidden = append(b.forbidden, name)
	return nil
}

func (b *fenceBus) SubscribeAsync(string, any, bool) error { return b.forbid("SubscribeAsync") }
func (b *fenceBus) SubscribeOnce(string, any) error        { return b.forbid("SubscribeOnce") }
func (b *fenceBus) SubscribeOnceAsync(string, any) error   { return b.forbid("SubscribeOnceAsync") }
func (b *fenceBus) Unsubscribe(string, any) error          { return b.forbid("Unsubscribe") }

// host §4.2: one subscription per topic however many listeners come and
// go; one Publish per top-level emit; re-entrant emits bypass Publish; the
// host never unsubscribes or uses EventBus's once and async modes. The API
// cannot see these, hence an internal test.
func TestTheEventBusFence(t *testing.T) {
	h := New()
	bus := newFenceBus()
	h.bus = bus
	var scope *Scope
	inst, err := h.Plugin(context.Background(), Define("fenced", func(_ context.Context, s *Scope, _ struct{}) error {
		scope = s
		return nil
	}), nil)
	require.NoError(t, err)
	require.NoError(t, inst.Err())

	outer, inner := NewNotify[int]("test/outer"), NewNotify[int]("test/inner")
	var calls []string
	var first []Disposer
	for i := range 3 {
		d, err := outer.On(scope, func(ctx context.Context, n int) error {
			calls = append(calls, "outer")
			if i == 0 {
				return inner.Emit(ctx, scope, n)
			}
			return nil
		})
		require.NoError(t, err)
		first = append(first, d)
	}
	d, err := outer.On(scope, func(ctx context.Context, n int) error { return inner.Emit(ctx, scope, n) })
	require.NoError(t, err)
	_, err = inner.On(scope, func(context.Context, int) error { calls = append(calls, "inner"); return nil })
	require.NoError(t, err)

	require.NoError(t, outer.Emit(context.Background(), scope, 1))
	for _, d := range first {
		require.NoError(t, d(context.Background()))
	}
	require.NoError(t, outer.Emit(context.Background(), scope, 2))
	require.NoError(t, d(context.Background()))
	require.NoError(t, outer.Emit(context.Background(), scope, 3), "no listeners left: nothing published")
	require.NoError(t, inner.Emit(context.Background(), scope, 4))

	assert.Equal(t, []string{"outer", "inner", "outer", "outer", "inner", "inner", "inner"}, calls)
	outerTopic, innerTopic := busTopic(h.topicOf(&outer.ev)), busTopic(h.topicOf(&inner.ev))
	assert.Equal(t, map[string]int{outerTopic: 1, innerTopic: 1}, bus.subscribe)
	assert.Equal(t, map[string]int{outerTopic: 2, innerTopic: 1}, bus.publish)
	assert.Empty(t, bus.forbidden)
	assert.True(t, bus.HasCallback(outerTopic))
	assert.Equal(t, "test/outer#", outerTopic[:len("test/outer#")])
	require.NoError(t, h.Shutdown(context.Background()))
}
