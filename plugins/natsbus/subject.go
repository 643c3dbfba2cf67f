//go:build natsbus

package natsbus

import (
	"os"
	"strings"
)

// hostName returns name as §4 spells a host in subjects and events: every
// byte outside [A-Za-z0-9_-], dots included, becomes `_`. An empty name is
// the machine's hostname ("unknown" when it has none).
func hostName(name string) string {
	if name == "" {
		name, _ = os.Hostname()
		if name == "" {
			name = "unknown"
		}
	}
	b := []byte(name)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b)
}

// eventToken returns an event's name as subject tokens: fs/observed is
// fs.observed, fs/write-intent fs.write-intent.
func eventToken(event string) string { return strings.ReplaceAll(event, "/", ".") }

// auditSubject is where an event of host is published:
// <subject>.audit.<host>.<event>.
func auditSubject(prefix, host, event string) string {
	return prefix + ".audit." + host + "." + eventToken(event)
}

// auditSubjects is the one subject filter of a stream natsbus creates:
// <subject>.audit.>, so that the stream never answers an intent request.
func auditSubjects(prefix string) string { return prefix + ".audit.>" }

// intentSubject is where a remote guard is asked about event:
// <subject>.intent.<event>.
func intentSubject(prefix, event string) string { return prefix + ".intent." + eventToken(event) }
