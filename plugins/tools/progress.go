package tools

import (
	"sync"
	"time"
)

// ProgressFunc receives a call's progress (MCP's notifications/progress):
// done units of total (0: total unknown) and a short message for people.
type ProgressFunc func(done, total float64, message string)

// The throttle of progress reports (conversations.md §4.3): a call reports
// nothing in its first second, then at most once every interval.
const (
	progressQuiet    = time.Second
	progressInterval = 250 * time.Millisecond
)

// Progress throttles one call's progress reports, so that a tool may call
// Report as often as it makes progress. A nil *Progress (the call's client
// asked for none) reports nothing. It is safe for concurrent use.
type Progress struct {
	fn    ProgressFunc
	start time.Time

	mu   sync.Mutex
	last time.Time
}

// Progress returns the call's progress reporter, or nil when its client
// asked for no progress.
func (e *Exec) Progress() *Progress {
	if e == nil || e.Report == nil {
		return nil
	}
	return &Progress{fn: e.Report, start: time.Now()}
}

// Report passes done, total and message on unless the call started less
// than a second ago or the last report passed less than 250 ms ago.
func (p *Progress) Report(done, total float64, message string) {
	if p == nil {
		return
	}
	now := time.Now()
	p.mu.Lock()
	if now.Sub(p.start) < progressQuiet || now.Sub(p.last) < progressInterval {
		p.mu.Unlock()
		return
	}
	p.last = now
	p.mu.Unlock()
	p.fn(done, total, message)
}

// Bytes returns a reporter of done of total bytes with message, through p's
// throttle, for a provider's writes (fsapi.WithBytesProgress); nil when p is
// nil.
func (p *Progress) Bytes(message string) func(done, total int64) {
	if p == nil {
		return nil
	}
	return func(done, total int64) { p.Report(float64(done), float64(total), message) }
}
