//go:build natsbus

package natsbus

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/events/wire"
)

// HostHeader is the header of an intent request that names the server
// asking (its `host`), for guards that judge by server.
const HostHeader = "Dsh-Host"

// guard is the entry's guard (wire.Entry.Guard): it asks the remote
// guards about event with a NATS request within the timeout and applies
// onFailure to a failure (§2).
func (b *bus) guard(ctx context.Context, event string, req events.IntentRequest) error {
	subject := intentSubject(b.cfg.Subject, event)
	if b.nc.Status() != nats.CONNECTED {
		cause := "not connected to NATS (" + b.where + ")"
		if err := b.nc.LastError(); err != nil {
			cause += ": " + err.Error()
		}
		return b.cfg.OnFailure.Fail(b.log, b.id, event, cause)
	}
	data, err := b.intent(req)
	if err != nil {
		return b.cfg.OnFailure.Fail(b.log, b.id, event, err.Error())
	}
	msg := &nats.Msg{Subject: subject, Data: data, Header: nats.Header{HostHeader: []string{b.host}}}
	rctx, cancel := b.whileConnected(ctx, b.cfg.Timeout)
	reply, err := b.nc.RequestMsgWithContext(rctx, msg)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err() // the call itself ended
		}
		if errors.Is(err, context.Canceled) {
			err = nats.ErrConnectionReconnecting // the connection dropped while the answer was awaited
		}
		return b.cfg.OnFailure.Fail(b.log, b.id, event, b.cause(subject, err))
	}
	deny, err := wire.ParseDecision(b.id, reply.Data)
	if err != nil {
		return b.cfg.OnFailure.Fail(b.log, b.id, event, err.Error())
	}
	return deny
}

// intent encodes req's params, with the arguments left out (null and
// argumentsOmitted) when the request would be larger than the server's
// max_payload.
func (b *bus) intent(req events.IntentRequest) ([]byte, error) {
	in := b.codec.Intent(req)
	data, err := wire.Marshal(in)
	if err != nil {
		return nil, err
	}
	if max := b.nc.MaxPayload(); max > 0 && int64(len(data)+len(HostHeader)+len(b.host)+64) > max && in.Arguments != nil {
		in.Arguments, in.ArgumentsOmitted = nil, true
		return wire.Marshal(in)
	}
	return data, nil
}

// cause words a failed request as a §2 cause.
func (b *bus) cause(subject string, err error) string {
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return "no responders on " + subject
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout):
		return fmt.Sprintf("no answer within %s", b.cfg.Timeout)
	case errors.Is(err, nats.ErrConnectionClosed), errors.Is(err, nats.ErrConnectionReconnecting),
		errors.Is(err, nats.ErrReconnectBufExceeded):
		return "not connected to NATS (" + b.where + ")"
	}
	return err.Error()
}
