package exec

import "github.com/dsh-go/dsh/events/wire"

// notification is one queued notification: fs/observed with an
// events.Observation, conversation/closed with the id, or cancel with a
// call id. It is encoded when written, off the tool call's goroutine.
type notification struct {
	method  string
	payload any
}

// queue holds the notifications waiting for the child (plugin-protocol.md
// §1), the carriers' bounded queue. It outlives the child's restarts, so
// what was queued while the child was down reaches the next one.
type queue = wire.Queue[notification]

func newQueue(max int) *queue { return wire.NewQueue[notification](max) }
