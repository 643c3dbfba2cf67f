//go:build natsbus

package natsbus

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events/wire"
)

// fakeStream stands in for JetStream: it refuses while down and records
// what it stored and every attempt, by event id.
type fakeStream struct {
	mu       sync.Mutex
	down     bool
	stored   []string // ids, in the order stored
	at       []time.Time
	attempts map[string]int
}

func (f *fakeStream) send(_ context.Context, ev *event) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.attempts == nil {
		f.attempts = map[string]int{}
	}
	f.attempts[ev.id]++
	if f.down {
		return errNotConnected
	}
	f.stored = append(f.stored, ev.id)
	f.at = append(f.at, time.Now())
	return nil
}

func (f *fakeStream) setDown(down bool) {
	f.mu.Lock()
	f.down = down
	f.mu.Unlock()
}

func (f *fakeStream) ids() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.stored...)
}

// newTestTrail returns a trail on f whose events are named by their
// conversation (wire.Closed), so the order is seen in the ids.
func newTestTrail(max int, f *fakeStream, log *bytes.Buffer) *trail {
	t := newTrail(max, slog.New(slog.NewTextHandler(log, nil)), "dshhost://t/w", f.send)
	t.encode = func(p pending) (*event, error) {
		return &event{at: p.at, id: p.payload.(wire.Closed).Conversation, name: "conversation/closed"}, nil
	}
	return t
}

func closed(id string) wire.Closed { return wire.Closed{Conversation: id} }

// start runs tr until the returned stop, which waits for run to return.
func start(t *testing.T, tr *trail) (stop func()) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { tr.run(ctx); close(done) }()
	return func() { cancel(); <-done }
}

// An outage shorter than 9 minutes loses nothing: the events wait, are
// retried under the same id, and are stored once each, in order, as soon
// as the connection is back.
func TestTheTrailRetriesAcrossAnOutage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log bytes.Buffer
		f := &fakeStream{}
		tr := newTestTrail(10, f, &log)
		stop := start(t, tr)

		tr.push(closed("e1"))
		synctest.Wait()
		f.setDown(true)
		tr.push(closed("e2"))
		tr.push(closed("e3"))
		time.Sleep(8 * time.Minute)
		synctest.Wait()
		assert.Equal(t, 2, tr.waiting(), "both wait, one of them being retried")
		back := time.Now()
		f.setDown(false)
		tr.wake() // the connection is up again
		synctest.Wait()
		assert.Equal(t, []string{"e1", "e2", "e3"}, f.ids(), "each once, in order")
		assert.Equal(t, back, f.at[1], "published the moment the connection is back, not after a backoff")
		assert.Greater(t, f.attempts["e2"], 10, "e2 was retried (under its one id)")
		assert.Equal(t, 1, f.attempts["e3"], "e3 waited its turn in the queue")
		assert.Equal(t, uint64(0), tr.q.Dropped())
		assert.Contains(t, log.String(), "audit events wait: publishing failed", "the outage is logged once")
		assert.Equal(t, 1, bytes.Count(log.Bytes(), []byte("publishing failed")))
		assert.Contains(t, log.String(), "audit publishing resumed")
		stop()
	})
}

// An event that cannot be published for 9 minutes is dropped and counted;
// a younger one behind it is still published.
func TestAnEventIsRetriedForAtMostNineMinutes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log bytes.Buffer
		f := &fakeStream{down: true}
		tr := newTestTrail(10, f, &log)
		stop := start(t, tr)

		tr.push(closed("old"))
		time.Sleep(5 * time.Minute)
		tr.push(closed("young"))
		time.Sleep(MaxRetry - 5*time.Minute + time.Second) // old is past 9 minutes
		synctest.Wait()
		assert.Equal(t, uint64(1), tr.q.Dropped(), "old is dropped and counted")
		assert.Contains(t, log.String(), "audit events were dropped")
		f.setDown(false)
		tr.wake()
		synctest.Wait()
		assert.Equal(t, []string{"young"}, f.ids())
		stop()
	})
}

// A full queue drops its oldest event and counts it; the calls that push
// never wait.
func TestAFullQueueDropsTheOldest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log bytes.Buffer
		f := &fakeStream{down: true}
		tr := newTestTrail(3, f, &log)
		stop := start(t, tr)

		tr.push(closed("e1")) // taken at once: being retried
		synctest.Wait()
		for _, id := range []string{"e2", "e3", "e4", "e5"} {
			tr.push(closed(id))
		}
		assert.Equal(t, uint64(1), tr.q.Dropped(), "e2, the oldest waiting, made room")
		f.setDown(false)
		tr.wake()
		synctest.Wait()
		assert.Equal(t, []string{"e1", "e3", "e4", "e5"}, f.ids())
		stop()
	})
}

// Stopping publishes what is queued; what cannot be published within the
// drain's bound waits for the next activation, and is lost (logged and
// counted) only when the trail is released.
func TestStoppingDrainsTheQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log bytes.Buffer
		f := &fakeStream{}
		tr := newTestTrail(10, f, &log)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		// The events are queued before the publisher runs, and it stops at
		// once: only the drain publishes them.
		tr.push(closed("a"))
		tr.push(closed("b"))
		cancel()
		go func() { tr.run(ctx); close(done) }()
		<-done
		assert.Equal(t, []string{"a", "b"}, f.ids())
		assert.NotContains(t, log.String(), "lost=")

		f2 := &fakeStream{down: true}
		var log2 bytes.Buffer
		tr2 := newTestTrail(10, f2, &log2)
		stop := start(t, tr2)
		tr2.push(closed("x"))
		tr2.push(closed("y"))
		synctest.Wait()
		begin := time.Now()
		stop()
		assert.LessOrEqual(t, time.Since(begin), drainWait, "the drain is bounded")
		assert.Empty(t, f2.ids())
		assert.Contains(t, log2.String(), "waiting=2")
		assert.NotContains(t, log2.String(), "lost=")
		tr2.release("the entry stopped")
		assert.Contains(t, log2.String(), "lost=2")
		assert.Equal(t, uint64(2), tr2.q.Dropped(), "counted")
		assert.Zero(t, tr2.waiting())
	})
}

// A restart hands over: the next activation's run publishes the event
// that was in flight (under the same id, so a stream that stored it once
// stores it once) and the queue, in order, on its own send.
func TestTheNextActivationPublishesWhatTheLastLeft(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log bytes.Buffer
		old := &fakeStream{down: true}
		tr := newTestTrail(10, old, &log)
		stop := start(t, tr)
		tr.push(closed("a"))
		tr.push(closed("b"))
		synctest.Wait()
		stop()               // the old connection never came back within the drain
		tr.push(closed("c")) // observed while the entry was swapped

		next := &fakeStream{}
		enc := tr.encode
		tr.attach("dshhost://t2/w", next.send)
		tr.encode = enc
		stop = start(t, tr)
		synctest.Wait()
		stop()
		assert.Equal(t, []string{"a", "b", "c"}, next.ids())
		assert.Zero(t, tr.q.Dropped())
		assert.NotContains(t, log.String(), "lost=")
	})
}

// A connection that comes back while the entry stops, within the drain's
// bound, loses nothing: the drain retries as the publisher does.
func TestTheDrainWaitsForAConnectionBackWithinItsBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log bytes.Buffer
		f := &fakeStream{down: true}
		tr := newTestTrail(10, f, &log)
		stop := start(t, tr)
		tr.push(closed("x"))
		tr.push(closed("y"))
		synctest.Wait()
		stopped := make(chan struct{})
		go func() { stop(); close(stopped) }()
		time.Sleep(drainWait / 2)
		synctest.Wait()
		assert.Empty(t, f.ids(), "still down")
		f.setDown(false)
		tr.wake()
		<-stopped
		assert.Equal(t, []string{"x", "y"}, f.ids())
		assert.NotContains(t, log.String(), "lost=")
	})
}

// A publish error no retry can mend drops the event at once.
func TestAPermanentErrorDropsTheEvent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log bytes.Buffer
		tr := newTestTrail(10, &fakeStream{}, &log)
		var sent []string
		tr.send = func(_ context.Context, ev *event) error {
			if ev.id == "huge" {
				return errors.Join(errors.New("publish"), natsMaxPayload)
			}
			sent = append(sent, ev.id)
			return nil
		}
		stop := start(t, tr)
		tr.push(closed("huge"))
		tr.push(closed("next"))
		synctest.Wait()
		stop()
		assert.Equal(t, []string{"next"}, sent)
		assert.Equal(t, uint64(1), tr.q.Dropped())
		require.Contains(t, log.String(), "cannot be published; dropped")
	})
}
