package hosttest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/host/hosttest"
)

// fakeTB records what hosttest reports instead of failing the real test.
type fakeTB struct {
	testing.TB
	out      bytes.Buffer
	errs     []string
	cleanups []func()
}

func (f *fakeTB) Helper()           {}
func (f *fakeTB) Output() io.Writer { return &f.out }
func (f *fakeTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeTB) Errorf(format string, args ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}

func (f *fakeTB) runCleanups() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}

var ev = host.NewNotify[int]("hosttest/ping")

func leaky(ctx context.Context, s *host.Scope, _ struct{}) error {
	s.Logger().Info("hello")
	_, err := ev.On(s, func(context.Context, int) error { return nil })
	return err
}

func TestNewLogsToTheTestAndShutsDownAtCleanup(t *testing.T) {
	f := &fakeTB{}
	h := hosttest.New(f)
	inst, err := h.Plugin(context.Background(), host.Define("leaky", leaky), nil)
	require.NoError(t, err)
	require.Equal(t, host.StateActive, inst.State())
	assert.Contains(t, f.out.String(), "msg=hello plugin=leaky instance=leaky")
	assert.Contains(t, f.out.String(), "level=DEBUG msg=state plugin=leaky instance=leaky from=LOADING to=ACTIVE")

	f.runCleanups()
	assert.Equal(t, host.StateDisposed, inst.State())
	assert.Empty(t, f.errs)
}

func TestNewReportsAFailedShutdown(t *testing.T) {
	f := &fakeTB{}
	h := hosttest.New(f)
	_, err := h.Plugin(context.Background(), host.Define("messy", func(_ context.Context, s *host.Scope, _ struct{}) error {
		_, err := s.Effect("close", func(context.Context) error { return errors.New("close failed") })
		return err
	}), nil)
	require.NoError(t, err)
	f.runCleanups()
	assert.Equal(t, []string{"hosttest: shutdown at cleanup: close failed"}, f.errs)
}

func TestNewAppliesOptionsAfterItsLogger(t *testing.T) {
	f := &fakeTB{}
	var buf bytes.Buffer
	h := hosttest.New(f, host.WithLogger(slogTo(&buf)))
	_, err := h.Plugin(context.Background(), host.Define("leaky", leaky), nil)
	require.NoError(t, err)
	assert.Contains(t, buf.String(), "msg=hello")
	assert.Empty(t, f.out.String())
	f.runCleanups()
}

func TestBaseline(t *testing.T) {
	h := hosttest.New(t)
	base := hosttest.TakeBaseline(h)
	assert.Equal(t, host.Counts{}, base.Counts())
	assert.NoError(t, base.Check())

	inst, err := h.Plugin(context.Background(), host.Define("leaky", leaky), nil)
	require.NoError(t, err)
	assert.EqualError(t, base.Check(), "host census differs: instances 1, want 0; listeners 1, want 0; effects 2, want 0")
	f := &fakeTB{}
	assert.False(t, base.Assert(f))
	assert.Equal(t, []string{"host census differs: instances 1, want 0; listeners 1, want 0; effects 2, want 0"}, f.errs)

	require.NoError(t, inst.Dispose(context.Background()))
	assert.True(t, base.Assert(t))
}

func TestDiff(t *testing.T) {
	assert.NoError(t, hosttest.Diff(host.Counts{Instances: 1, Services: 2}, host.Counts{Instances: 1, Services: 2}))
	assert.EqualError(t, hosttest.Diff(host.Counts{Services: 2}, host.Counts{Services: 1}), "host census differs: services 1, want 2")
}

func slogTo(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }
