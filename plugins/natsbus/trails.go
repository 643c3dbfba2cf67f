//go:build natsbus

package natsbus

import (
	"context"
	"log/slog"
	"sync"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/events/wire"
	"github.com/dsh-go/dsh/host"
)

// trails holds the trail of each instance with audit, across its
// activations; mu guards it.
var (
	trailsMu sync.Mutex
	trails   = map[*host.Instance]*owned{}
)

// owned is an instance's trail with what keeps it: the listeners on the
// host's root scope that queue fs/observed and conversation/closed (so
// that an event of a write in flight while the entry is swapped waits for
// the next activation), and the status hook that releases it.
type owned struct {
	t   *trail
	off []host.Disposer
}

// trailFor returns the trail of s's instance, made (with its listeners,
// logging to log) by its first activation with audit, and resized to max;
// codec becomes the one its listeners encode observations with. It lasts until the
// instance is DISPOSED or an activation without audit (dropTrail).
func trailFor(s *host.Scope, max int, log *slog.Logger, codec *wire.Codec) (*trail, error) {
	inst, h := s.Instance(), s.Host()
	trailsMu.Lock()
	defer trailsMu.Unlock()
	if o := trails[inst]; o != nil {
		if n := o.t.q.Resize(max); n > 0 {
			log.Warn("the audit queue was made smaller; its oldest events were dropped", "dropped", n)
		}
		o.t.codec.Store(codec)
		return o.t, nil
	}
	t := &trail{q: wire.NewQueue[pending](max), log: log, up: make(chan struct{}, 1)}
	t.codec.Store(codec)
	o := &owned{t: t}
	root := h.Root()
	d, err := events.FSObserved.On(root, func(_ context.Context, ob events.Observation) error {
		t.push(t.codec.Load().Observed(ob))
		return nil
	})
	if err != nil {
		return nil, err
	}
	o.off = append(o.off, d)
	d, err = events.ConversationClosed.On(root, func(_ context.Context, id string) error {
		t.push(wire.Closed{Conversation: id})
		return nil
	})
	if err != nil {
		o.stop()
		return nil, err
	}
	o.off = append(o.off, d)
	o.off = append(o.off, h.OnStatus(func(i *host.Instance, _, st host.State) {
		if i == inst && st == host.StateDisposed {
			dropTrail(inst, "the entry stopped")
		}
	}))
	trails[inst] = o
	return t, nil
}

// dropTrail releases inst's trail, if it has one: its listeners go, and
// what waits is lost (logged and counted, see trail.release).
func dropTrail(inst *host.Instance, why string) {
	trailsMu.Lock()
	o := trails[inst]
	delete(trails, inst)
	trailsMu.Unlock()
	if o != nil {
		o.stop()
		o.t.release(why)
	}
}

func (o *owned) stop() {
	for _, d := range o.off {
		_ = d(context.Background())
	}
}
