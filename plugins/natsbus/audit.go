//go:build natsbus

package natsbus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/events/wire"
)

// The trail's timing (§4).
const (
	// MaxRetry is how long an audit event is retried across NATS outages
	// before it is dropped and counted: under the stream's duplicate
	// window, so that a retry of an event whose ack was lost is never
	// stored twice.
	MaxRetry = 9 * time.Minute
	// publishWait bounds one publish's wait for the stream's ack.
	publishWait = 5 * time.Second
	// drainWait bounds the publishing of what is queued when the entry
	// stops; what is left then is lost, and the log says how much.
	drainWait = 5 * time.Second
	// The wait between two attempts while publishing fails: doubling from
	// minBackoff to maxBackoff, and cut short by a reconnect.
	minBackoff = 50 * time.Millisecond
	maxBackoff = 2 * time.Second
)

// pending is an event waiting in the queue: when it happened and its
// payload on the wire (a wire.Observed or a wire.Closed), made when it
// happened.
type pending struct {
	at      time.Time
	payload any
}

// event is an audit event ready to publish: its CloudEvents id, which is
// also its Nats-Msg-Id, its event name (fs/observed) and its JSON. It
// keeps them across retries.
type event struct {
	at   time.Time
	id   string
	name string
	data []byte
}

// cloudEvent is a CloudEvents 1.0 event in the structured JSON format.
type cloudEvent struct {
	SpecVersion     string `json:"specversion"`
	ID              string `json:"id"`
	Source          string `json:"source"`
	Type            string `json:"type"`
	Subject         string `json:"subject,omitempty"`
	Time            string `json:"time"`
	DataContentType string `json:"datacontenttype"`
	Data            any    `json:"data"`
}

// source is the events' source: dshhost://<host>/<workspace's real path>.
func source(host, workspace string) string {
	return (&url.URL{Scheme: "dshhost", Host: host, Path: workspace}).String()
}

// trail publishes the audit events in order, one at a time, each acked by
// the stream before the next: the queue is bounded (the oldest dropped
// and counted), an event that cannot be published is retried for at most
// MaxRetry, then dropped and counted.
//
// A trail belongs to the entry's instance, not to one activation
// (trails): a restart (a config reload) hands its queue and the event in
// flight to the next activation, which publishes them on its connection;
// only an instance that ends for good loses what is left, and release
// logs and counts it.
type trail struct {
	q   *wire.Queue[pending]
	log *slog.Logger
	// source, send and encode are the running activation's (attach):
	// send publishes one event and waits for its ack.
	source string
	send   func(ctx context.Context, ev *event) error
	encode func(p pending) (*event, error)
	up     chan struct{} // signalled (capacity 1) when the connection is up again
	inTake atomic.Int32  // 1 while an event taken from the queue is being published
	// running is held by run: one activation publishes at a time.
	running sync.Mutex
	// carry is the event in flight when the last run stopped, published
	// first by the next (under running).
	carry *event
	// codec encodes the observations the listeners queue: the running
	// activation's.
	codec atomic.Pointer[wire.Codec]
}

// newTrail returns a trail of at most max waiting events, from source,
// published by send.
func newTrail(max int, log *slog.Logger, source string, send func(context.Context, *event) error) *trail {
	t := &trail{q: wire.NewQueue[pending](max), log: log, up: make(chan struct{}, 1)}
	t.attach(source, send)
	return t
}

// attach makes the trail publish from source with send: the next
// activation's, before its run starts.
func (t *trail) attach(source string, send func(context.Context, *event) error) {
	t.running.Lock()
	defer t.running.Unlock()
	t.source, t.send = source, send
	t.encode = t.cloudEvent
}

// release ends the trail for good: what waits is lost, counted as
// dropped, and the log says how much.
func (t *trail) release(why string) {
	t.running.Lock()
	defer t.running.Unlock()
	lost := len(t.q.Take())
	if t.carry != nil {
		lost, t.carry = lost+1, nil
	}
	for range lost {
		t.q.Discard()
	}
	if lost > 0 {
		t.log.Error("audit events were not published; they are lost", "lost", lost, "why", why)
	}
	t.reportDrops(true)
}

// push queues an event that happened now; drops are logged at most once
// a minute.
func (t *trail) push(payload any) {
	if !t.q.Push(pending{at: time.Now(), payload: payload}) {
		return
	}
	t.reportDrops(false)
}

func (t *trail) reportDrops(final bool) {
	if n, total, ok := t.q.DropsToReport(time.Now(), final); ok {
		t.log.Warn("audit events were dropped (the queue was full, or NATS was unreachable for 9 minutes)",
			"dropped", n, "total", total)
	}
}

// wake tells the publisher that the connection is up.
func (t *trail) wake() {
	select {
	case t.up <- struct{}{}:
	default:
	}
}

// waiting returns how many events wait, the one being published included.
func (t *trail) waiting() int { return t.q.Len() + int(t.inTake.Load()) }

// cloudEvent encodes p: a fresh id, the source, the type dev.dsh.<event>,
// the target's rel as subject, the time it happened, the §1 params.
func (t *trail) cloudEvent(p pending) (*event, error) {
	ce := cloudEvent{SpecVersion: "1.0", ID: uuid.NewString(), Source: t.source,
		Time: p.at.UTC().Format(time.RFC3339Nano), DataContentType: "application/json"}
	var name string
	switch v := p.payload.(type) {
	case wire.Observed:
		name, ce.Data = events.FSObserved.Name(), v
		if v.Target.Rel != nil {
			ce.Subject = *v.Target.Rel
		}
	case wire.Closed:
		name, ce.Data = events.ConversationClosed.Name(), v
	default:
		return nil, errors.New("an audit event of an unknown kind")
	}
	ce.Type = "dev.dsh." + eventToken(name)
	data, err := wire.Marshal(ce)
	if err != nil {
		return nil, err
	}
	return &event{at: p.at, id: ce.ID, name: name, data: data}, nil
}

// run publishes until ctx ends, then drains what is queued for at most
// drainWait.
func (t *trail) run(ctx context.Context) {
	t.running.Lock()
	defer t.running.Unlock()
	cur := t.carry
	t.carry = nil
	if cur != nil {
		t.inTake.Store(1)
	}
	backoff := minBackoff
	failing := false
	for {
		if cur == nil {
			p, ok := t.q.Pop()
			if !ok {
				select {
				case <-t.q.Ready():
					continue
				case <-ctx.Done():
					t.drain(nil)
					return
				}
			}
			t.inTake.Store(1)
			ev, err := t.encode(p)
			if err != nil {
				t.log.Error("an audit event cannot be encoded; dropped", "err", err)
				t.q.Discard()
				t.inTake.Store(0)
				continue
			}
			cur = ev
		}
		if time.Since(cur.at) >= MaxRetry {
			t.q.Discard()
			t.reportDrops(false)
			cur = nil
			t.inTake.Store(0)
			continue
		}
		err := t.send(ctx, cur)
		if err == nil {
			if failing {
				t.log.Info("audit publishing resumed", "waiting", t.q.Len())
			}
			cur, failing, backoff = nil, false, minBackoff
			t.inTake.Store(0)
			continue
		}
		if ctx.Err() != nil {
			t.drain(cur)
			return
		}
		if permanent(err) {
			t.log.Error("an audit event cannot be published; dropped", "id", cur.id, "err", err)
			t.q.Discard()
			cur = nil
			t.inTake.Store(0)
			continue
		}
		if !failing {
			t.log.Warn("audit events wait: publishing failed; retrying for up to 9 minutes", "err", err, "waiting", t.q.Len()+1)
			failing = true
		}
		w := time.NewTimer(min(backoff, time.Until(cur.at.Add(MaxRetry)))) // wake for its expiry too
		select {
		case <-t.up:
		case <-w.C:
		case <-ctx.Done():
			w.Stop()
			t.drain(cur)
			return
		}
		w.Stop()
		backoff = min(2*backoff, maxBackoff)
	}
}

// drain publishes cur and what is queued for at most drainWait, retrying
// across a dropped connection as run does (a server restarted just
// before the stop loses nothing when it is back within the bound); what
// is left after that waits for the next activation (carry and the queue),
// and the log says how much.
func (t *trail) drain(cur *event) {
	ctx, cancel := context.WithTimeout(context.Background(), drainWait)
	defer cancel()
	backoff := minBackoff
	for {
		if cur == nil {
			p, ok := t.q.Pop()
			if !ok {
				break
			}
			ev, err := t.encode(p)
			if err != nil {
				t.log.Error("an audit event cannot be encoded; dropped", "err", err)
				t.q.Discard()
				continue
			}
			cur = ev
		}
		err := t.send(ctx, cur)
		if err == nil {
			cur, backoff = nil, minBackoff
			continue
		}
		if permanent(err) {
			t.log.Error("an audit event cannot be published; dropped", "id", cur.id, "err", err)
			t.q.Discard()
			cur = nil
			continue
		}
		w := time.NewTimer(backoff)
		select {
		case <-t.up:
		case <-w.C:
		case <-ctx.Done():
		}
		w.Stop()
		if ctx.Err() != nil {
			t.carry, cur = cur, nil
			t.log.Warn("audit events were not published before the entry stopped; they wait for its next activation (a reload) and are lost if it has none",
				"waiting", t.q.Len()+1, "err", err)
			break
		}
		backoff = min(2*backoff, maxBackoff)
	}
	t.inTake.Store(0)
	t.reportDrops(false)
}

// permanent reports a publish error no retry can mend.
func permanent(err error) bool {
	return errors.Is(err, nats.ErrMaxPayload) || errors.Is(err, nats.ErrBadSubject)
}

// publish is the trail's send on the entry's connection: it makes sure the
// stream exists (once per connection, and again when no stream took an
// event), then publishes with the event's id as Nats-Msg-Id, expecting the
// configured stream, and waits for the ack.
func (b *bus) publish(ctx context.Context, ev *event) error {
	if b.nc.Status() != nats.CONNECTED {
		return errNotConnected
	}
	conn := b.nc.Stats().Reconnects + 1
	if b.streamFor.Load() != conn {
		_ = b.checkStream(ctx, conn)
	}
	err := b.publishOnce(ctx, ev)
	if errors.Is(err, jetstream.ErrNoStreamResponse) && ctx.Err() == nil && b.checkStream(ctx, conn) == nil {
		err = b.publishOnce(ctx, ev) // the stream was missing: it is there now
	}
	return err
}

// checkStream makes sure the audit stream exists on connection conn. A
// stream that is absent and cannot be created is logged as an error (an
// *absentStream: start fails the entry on it under block); another
// failure is a warning, and publishing goes on (the stream may exist
// where this server may not look). The last failure is in State.
func (b *bus) checkStream(ctx context.Context, conn uint64) error {
	name := b.cfg.Audit.stream()
	err := b.ensureStream(ctx, name)
	var absent *absentStream
	isAbsent := errors.As(err, &absent)
	if ctx.Err() != nil && !isAbsent {
		return err // ask again next time
	}
	msg := ""
	if err != nil {
		msg = err.Error()
		if !isAbsent {
			msg = "the audit stream " + name + " cannot be checked: " + msg
		}
	}
	b.mu.Lock()
	say := msg != "" && msg != b.streamErr // each new error once
	b.streamErr = msg
	b.mu.Unlock()
	switch {
	case say && isAbsent:
		b.log.Error("the audit stream does not exist and cannot be created; audit events wait for it", "stream", name, "err", absent.err,
			"onFailure", string(b.cfg.OnFailure))
	case say:
		b.log.Warn("the audit stream cannot be checked; publishing anyway", "stream", name, "err", err)
	}
	b.streamFor.Store(conn)
	return err
}

func (b *bus) publishOnce(ctx context.Context, ev *event) error {
	msg := nats.NewMsg(auditSubject(b.cfg.Subject, b.host, ev.name))
	msg.Data = ev.data
	msg.Header.Set("Content-Type", "application/cloudevents+json")
	pctx, cancel := b.whileConnected(ctx, publishWait)
	defer cancel()
	_, err := b.js.PublishMsg(pctx, msg, jetstream.WithMsgID(ev.id), jetstream.WithExpectStream(b.cfg.Audit.stream()),
		jetstream.WithRetryAttempts(0))
	if err != nil && ctx.Err() == nil && errors.Is(err, context.Canceled) {
		return errNotConnected // the connection dropped while the ack was awaited
	}
	return err
}

// ensureStream creates the audit stream when it is absent: subjects
// <subject>.audit.> only, a 10-minute duplicate window, file storage, the
// configured limits. An existing stream is used as it is.
func (b *bus) ensureStream(ctx context.Context, name string) error {
	ctx, cancel := context.WithTimeout(ctx, publishWait)
	defer cancel()
	if _, err := b.js.Stream(ctx, name); err == nil || !errors.Is(err, jetstream.ErrStreamNotFound) {
		return err
	}
	a := b.cfg.Audit
	maxBytes := a.MaxBytes
	if maxBytes == 0 {
		maxBytes = -1 // JetStream's "no bound"
	}
	_, err := b.js.CreateStream(ctx, jetstream.StreamConfig{
		Name:        name,
		Description: "dshhost audit trail: CloudEvents of fs/observed and conversation/closed (natsbus)",
		Subjects:    []string{auditSubjects(b.cfg.Subject)},
		Duplicates:  DuplicateWindow,
		Storage:     jetstream.FileStorage,
		MaxAge:      a.MaxAge,
		MaxBytes:    maxBytes,
		Replicas:    max(a.Replicas, 1),
	})
	if err == nil {
		b.log.Info("created the audit stream", "stream", name, "subjects", auditSubjects(b.cfg.Subject))
	}
	if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		return nil // another server created it meanwhile
	}
	if err != nil {
		if last := b.nc.LastError(); last != nil && strings.Contains(last.Error(), "Permissions Violation") {
			err = last // what the server said, rather than the request's timeout
		}
		return &absentStream{name: name, err: err}
	}
	return nil
}

// absentStream is the error of an audit stream that does not exist and
// that this server could not create: every event would wait in vain.
type absentStream struct {
	name string
	err  error
}

func (e *absentStream) Error() string {
	return fmt.Sprintf("the audit stream %s does not exist and this server could not create it (%v); "+
		"create it as the operator (docs/fleet.md) or let this server's user create it", e.name, e.err)
}

func (e *absentStream) Unwrap() error { return e.err }
