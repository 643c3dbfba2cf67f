package hosttest

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/dsh-go/dsh/host"
)

// ShutdownTimeout bounds the checked shutdown New registers as a cleanup.
const ShutdownTimeout = 30 * time.Second

// New returns a fresh host for t with no plugins. Its logger writes text
// records at debug level to t.Output(), so they are shown only for a failed
// or verbose test; opts are applied after that default, so [host.WithLogger]
// in opts replaces it. When t ends, the host is shut down and a non-nil
// Shutdown error (a disposer that failed, panicked or timed out, host §3.6)
// fails t with t.Errorf. A test that shuts the host down itself is
// unaffected: a second Shutdown returns nil.
func New(t testing.TB, opts ...host.Option) *host.Host {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := host.New(append([]host.Option{host.WithLogger(logger)}, opts...)...)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
		defer cancel()
		if err := h.Shutdown(ctx); err != nil {
			t.Errorf("hosttest: shutdown at cleanup: %v", err)
		}
	})
	return h
}

// Baseline is a census of one host taken at one moment, to compare the
// host against later.
type Baseline struct {
	h      *host.Host
	counts host.Counts
}

// TakeBaseline records h.Counts() now.
func TakeBaseline(h *host.Host) Baseline {
	return Baseline{h: h, counts: h.Counts()}
}

// Counts returns the figures recorded by TakeBaseline.
func (b Baseline) Counts() host.Counts { return b.counts }

// Check compares the host's current census with the baseline. It returns
// nil when every figure is equal, else an error naming each figure that
// differs, in the order instances, listeners, services, effects:
// `host census differs: listeners 3, want 1; services 1, want 0`.
func (b Baseline) Check() error {
	return Diff(b.counts, b.h.Counts())
}

// Assert reports a Check failure with t.Errorf and returns whether the
// host is back at its baseline.
func (b Baseline) Assert(t testing.TB) bool {
	t.Helper()
	if err := b.Check(); err != nil {
		t.Errorf("%v", err)
		return false
	}
	return true
}

// Diff returns nil when got equals want, else an error naming each figure
// that differs, as [Baseline.Check] does. It lets a test compare the counts
// of a first mount with those of a re-mount.
func Diff(want, got host.Counts) error {
	var parts []string
	add := func(name string, g, w int) {
		if g != w {
			parts = append(parts, fmt.Sprintf("%s %d, want %d", name, g, w))
		}
	}
	add("instances", got.Instances, want.Instances)
	add("listeners", got.Listeners, want.Listeners)
	add("services", got.Services, want.Services)
	add("effects", got.Effects, want.Effects)
	if len(parts) == 0 {
		return nil
	}
	return fmt.Errorf("host census differs: %s", strings.Join(parts, "; "))
}
