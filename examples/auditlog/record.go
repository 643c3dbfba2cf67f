package auditlog

import (
	"time"

	"github.com/dsh-go/dsh/events"
)

// Record is one line of the audit log, one per fs/observed event, written
// as JSON with the keys in this order:
//
//	{"time":"2026-05-01T09:30:00.123456789Z","session":"mcp-…","tool":"edit","path":"/w/a.txt","kind":"present","version":"64768:131:12:…"}
//
// Session is empty for a call without a session, Tool is empty when the
// event has no actor, and Version is empty for the `absent` kind.
type Record struct {
	// Time is when the observation was made, in UTC.
	Time time.Time `json:"time"`
	// Session is the calling session's ID.
	Session string `json:"session"`
	// Tool is the name of the tool that observed the file: read, write or edit.
	Tool string `json:"tool"`
	// Path is the target's display path.
	Path string `json:"path"`
	// Kind is "present" or "absent" (a read that found no file).
	Kind string `json:"kind"`
	// Version is the file's opaque version after the call.
	Version string `json:"version"`
}

// newRecord makes the record of o at now. It does no I/O.
func newRecord(o events.Observation, now time.Time) Record {
	r := Record{Time: now.UTC(), Path: o.Target.DisplayPath, Kind: string(o.Kind), Version: string(o.Version)}
	if o.Actor != nil {
		r.Session, _ = o.Actor.SessionID()
		r.Tool = o.Actor.ToolName()
	}
	return r
}
