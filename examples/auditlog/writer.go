package auditlog

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
)

// writer appends records to the file. Only the plugin's goroutine uses it.
type writer struct {
	path     string
	log      *slog.Logger
	file     *os.File
	lost     int64 // records that could not be written
	reported bool  // the first failure was logged
}

// run is the scope goroutine: it opens the file, appends every batch the
// queue yields until ctx is done, then flushes what is still queued and
// closes the file.
func (w *writer) run(ctx context.Context, q *queue) {
	if err := w.open(); err != nil {
		w.fail(err, 0)
	}
	var batch []Record
	for {
		select {
		case r := <-q.ch:
			batch = q.take(append(batch[:0], r))
			w.write(batch)
		case <-ctx.Done():
			q.close()
			w.write(q.take(batch[:0]))
			w.finish(q.dropped.Load())
			return
		}
	}
}

// open opens the file for appending, creating it if needed.
func (w *writer) open() error {
	f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	w.file = f
	return nil
}

// write appends batch as JSON lines in one write. On failure the records
// are counted as lost and the file is reopened for the next batch.
func (w *writer) write(batch []Record) {
	if len(batch) == 0 {
		return
	}
	if w.file == nil {
		if err := w.open(); err != nil {
			w.fail(err, len(batch))
			return
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, r := range batch {
		_ = enc.Encode(r) // a Record always encodes
	}
	if _, err := w.file.Write(buf.Bytes()); err != nil {
		_ = w.file.Close()
		w.file = nil
		w.fail(err, len(batch))
	}
}

// fail counts n lost records and logs the first failure, once.
func (w *writer) fail(err error, n int) {
	w.lost += int64(n)
	if !w.reported {
		w.reported = true
		w.log.Error("audit log cannot be written; records are lost until it can", "path", w.path, "err", err)
	}
}

// finish closes the file and reports what went missing.
func (w *writer) finish(dropped int64) {
	if w.file != nil {
		if err := w.file.Close(); err != nil {
			w.log.Error("closing the audit log", "path", w.path, "err", err)
		}
		w.file = nil
	}
	if dropped > 0 {
		w.log.Warn("audit records dropped because the queue was full", "path", w.path, "count", dropped)
	}
	if w.lost > 0 {
		w.log.Warn("audit records lost because the file could not be written", "path", w.path, "count", w.lost)
	}
}
