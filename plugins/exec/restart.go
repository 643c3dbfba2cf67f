package exec

import (
	"context"
	"fmt"
	"time"
)

// Restart policy (plugin-protocol.md §3): a child that exits is started
// again after a backoff that doubles with each start in the last minute
// (250ms, 500ms, 1s, 2s), and never more than maxStarts times in any
// minute.
const (
	maxStarts    = 5
	startsWindow = time.Minute
	firstBackoff = 250 * time.Millisecond
)

// starts remembers the latest starts of an entry's child.
type starts struct {
	times []time.Time // the last maxStarts starts, oldest first
}

// record notes a start at t.
func (s *starts) record(t time.Time) {
	s.times = append(s.times, t)
	if len(s.times) > maxStarts {
		s.times = s.times[len(s.times)-maxStarts:]
	}
}

// next returns how long to wait at now before the next start: the backoff
// for the starts of the last minute, and at least until the oldest of
// maxStarts starts is a minute old.
func (s *starts) next(now time.Time) time.Duration {
	recent := 0
	for _, t := range s.times {
		if now.Sub(t) < startsWindow {
			recent++
		}
	}
	d := time.Duration(0)
	if recent > 0 {
		d = firstBackoff << (recent - 1)
	}
	if len(s.times) == maxStarts {
		if w := s.times[0].Add(startsWindow).Sub(now); w > d {
			d = w
		}
	}
	return d
}

// supervise owns the running child: it restarts it when it exits, and
// stops it when the activation ends.
func (e *entry) supervise(ctx context.Context, p *proc, first initResult) {
	var lim starts
	lim.record(time.Now())
	for {
		select {
		case <-ctx.Done():
			stop, cancel := context.WithTimeout(context.Background(), 3*stopGrace)
			p.stop(stop)
			cancel()
			e.setDown("stopped", "")
			e.logDrops()
			return
		case <-p.done:
		}
		e.mu.Lock()
		retired := e.retired
		e.mu.Unlock()
		if retired {
			<-ctx.Done()
			return
		}
		cause := p.endCause()
		e.setDown("restarting: "+cause, cause)
		e.log.Warn("the plugin's process ended; restarting it", "cause", cause)
		for {
			d := lim.next(time.Now())
			e.setDown(fmt.Sprintf("restarting in %s: %s", d.Round(time.Millisecond), cause), "")
			t := time.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				e.setDown("stopped", "")
				e.logDrops()
				return
			case <-t.C:
			}
			lim.record(time.Now())
			np, init, err := e.launch(ctx)
			if err == nil {
				if !init.sameDeclaration(first) {
					e.log.Warn("the restarted plugin declared other events or tools; those of its first initialize stay until the entry restarts",
						"events", init.Events, "tools", init.toolNames())
				}
				p = np
				e.mu.Lock()
				e.restarts++
				e.mu.Unlock()
				e.log.Info("the plugin's process was restarted", "pid", p.pid)
				break
			}
			cause = err.Error()
			e.log.Warn("the plugin's process did not restart", "err", cause)
		}
	}
}

// logDrops logs the drops not yet logged, at the end of the activation.
func (e *entry) logDrops() {
	if n, total, ok := e.q.DropsToReport(time.Now(), true); ok {
		e.log.Warn("notifications dropped because the plugin's queue was full", "dropped", n, "total", total)
	}
}
