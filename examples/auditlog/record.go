package auditlog

import (
	"time"

	"github.com/dsh-go/dsh/events"
)

// Record is one line of the audit log, one per fs/observed event, written
// as JSON with the keys in this order:
//
//	{"time":"2026-05-01T09:30:00.123456789Z","conversation":"stdio/s/…","principal":"stdio","tool":"edit","path":"/w/a.txt","kind":"present","version":"64768:131:12:…"}
//
// Conversation and Principal are empty for a call without a conversation,
// Tool is empty when the event has no actor, and Version is empty for the
// `absent` kind.
type Record struct {
	// Time is when the observation was made, in UTC.
	Time time.Time `json:"time"`
	// Conversation is the ID of the calling conversation.
	Conversation string `json:"conversation"`
	// Principal is who presented the call (conversations.md §1).
	Principal string `json:"principal"`
	// Tool is the name of the tool that observed the file: read, write,
	// edit, move (the source absent, then the destination present) or
	// delete (absent).
	Tool string `json:"tool"`
	// Path is the target's display path.
	Path string `json:"path"`
	// Kind is "present" or "absent" (a read that found no file, a deleted
	// file or a move's source).
	Kind string `json:"kind"`
	// Version is the file's opaque version after the call.
	Version string `json:"version"`
}

// newRecord makes the record of o at now. It does no I/O.
func newRecord(o events.Observation, now time.Time) Record {
	r := Record{Time: now.UTC(), Path: o.Target.DisplayPath, Kind: string(o.Kind), Version: string(o.Version)}
	if o.Actor != nil {
		r.Conversation, _ = o.Actor.Conversation()
		r.Principal = o.Actor.Principal()
		r.Tool = o.Actor.ToolName()
	}
	return r
}
