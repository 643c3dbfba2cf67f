//go:build natsbus

package natsbus

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

// The connection's timing: reconnects start at once and then every
// reconnectWait (with jitter), forever; a silent server is noticed after
// pingInterval × maxPings.
const (
	reconnectWait = 250 * time.Millisecond
	pingInterval  = 10 * time.Second
	maxPings      = 3
)

// connect opens the entry's connection to serverURL, which messages call
// where. It returns at once:
// a server that cannot be reached is retried in the background, forever
// (nats.go gives up only on a server that refuses the credentials twice).
// Nothing is buffered while the connection is down, so a request or a
// publish then fails at once instead of waiting for its timeout. changed
// is called on every connect and reconnect (true) and on each disconnect
// and the close (false); the log says each.
func connect(serverURL, where, host string, log *slog.Logger, changed func(up bool), opts ...nats.Option) (*nats.Conn, error) {
	opts = append([]nats.Option{
		nats.Name("dshhost " + host),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(reconnectWait),
		nats.ReconnectJitter(100*time.Millisecond, time.Second),
		nats.RetryOnFailedConnect(true),
		nats.ReconnectBufSize(-1),
		nats.PingInterval(pingInterval),
		nats.MaxPingsOutstanding(maxPings),
		nats.NoCallbacksAfterClientClose(),
		nats.ConnectHandler(func(*nats.Conn) {
			log.Info("connected to NATS", "server", where)
			changed(true)
		}),
		nats.ReconnectHandler(func(*nats.Conn) {
			log.Info("reconnected to NATS", "server", where)
			changed(true)
		}),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("disconnected from NATS; reconnecting", "server", where, "err", err)
			}
			changed(false)
		}),
		nats.ClosedHandler(func(nc *nats.Conn) {
			if err := nc.LastError(); err != nil {
				log.Error("the NATS connection is closed", "server", where, "err", err)
			}
			changed(false)
		}),
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			log.Warn("NATS reported an error", "server", where, "err", err)
		}),
	}, opts...)
	return nats.Connect(serverURL, opts...)
}

// redact returns a server list for messages: each URL without its
// password or token.
func redact(servers string) string {
	parts := strings.Split(servers, ",")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if u, err := url.Parse(p); err == nil && u.User != nil {
			if _, has := u.User.Password(); has {
				p = u.Redacted()
			} else {
				u.User = url.User("xxxxx") // a token alone
				p = u.String()
			}
		}
		parts[i] = p
	}
	return strings.Join(parts, ",")
}

// checkCredentials reports a credentials file that cannot be read or is
// not one: nats.go would only say so on each connection attempt.
func checkCredentials(file string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("credentials: %w", err)
	}
	if !bytes.Contains(b, []byte("BEGIN NATS USER JWT")) || !bytes.Contains(b, []byte("NKEY SEED")) {
		return fmt.Errorf("credentials: %s is not a NATS credentials file (a user JWT and its nkey seed, as nsc writes them)", file)
	}
	return nil
}
