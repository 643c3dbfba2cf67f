//go:build natsbus

package natsbus

import "github.com/nats-io/nats.go"

// natsMaxPayload is nats.go's error for a message over the server's
// max_payload.
var natsMaxPayload = nats.ErrMaxPayload
