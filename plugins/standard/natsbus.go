//go:build natsbus

package standard

// natsbus, the event bus on NATS (plugin-protocol.md §4), is linked in
// only by a build with the tag natsbus: go build -tags natsbus.
import _ "github.com/dsh-go/dsh/plugins/natsbus"
