package auditlog_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/examples/auditlog"
	"github.com/dsh-go/dsh/host/hosttest"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// BenchmarkObserved measures what the audit log adds to one fs/observed
// emit: building a record and offering it to the queue, while the writer
// appends to a real file.
func BenchmarkObserved(b *testing.B) {
	h := hosttest.New(b)
	path := filepath.Join(b.TempDir(), "audit.jsonl")
	_, err := h.Plugin(b.Context(), auditlog.Plugin, auditlog.Config{Path: path, Queue: 1024})
	require.NoError(b, err)
	o := events.Observation{Target: fsapi.Target{Key: "/w/a.txt", DisplayPath: "/w/a.txt"}, Kind: events.Present, Version: "1:2:3:4:5"}
	for b.Loop() {
		if err := events.FSObserved.Emit(b.Context(), h.Root(), o); err != nil {
			b.Fatal(err)
		}
	}
}
