package fsapi_test

import (
	"context"
	"errors"
	"iter"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// core is a FileSystem with only the required methods; ReadText returns
// text or err.
type core struct {
	text string
	err  error
}

func (c core) Resolve(context.Context, string, fsapi.ResolveOptions) (fsapi.Target, error) {
	return fsapi.Target{}, nil
}
func (c core) Stat(context.Context, fsapi.Target) (*fsapi.Info, error)         { return nil, nil }
func (c core) ReadText(context.Context, fsapi.Target) (string, error)          { return c.text, c.err }
func (c core) ListDir(context.Context, fsapi.Target) ([]fsapi.DirEntry, error) { return nil, nil }
func (c core) WriteText(context.Context, fsapi.Target, string, *fsapi.WriteIntent) (fsapi.WriteOutcome, error) {
	return fsapi.WriteOutcome{}, nil
}
func (c core) EditText(context.Context, fsapi.Target, fsapi.EditRequest, *fsapi.EditGuard) (fsapi.EditOutcome, error) {
	return fsapi.EditOutcome{}, nil
}

// streaming adds StreamText (two chunks) and RealPath.
type streaming struct{ core }

func (s streaming) StreamText(context.Context, fsapi.Target) (iter.Seq2[string, error], error) {
	return func(yield func(string, error) bool) {
		if yield("ab", nil) {
			yield("c", nil)
		}
	}, nil
}

func (s streaming) RealPath(t fsapi.Target) (string, bool) { return "/real" + t.Key, true }

func chunks(t *testing.T, seq iter.Seq2[string, error]) []string {
	t.Helper()
	var out []string
	for c, err := range seq {
		require.NoError(t, err)
		out = append(out, c)
	}
	return out
}

func TestStreamUsesTheCapabilityWhenPresent(t *testing.T) {
	seq, err := fsapi.Stream(context.Background(), streaming{core{text: "abc"}}, fsapi.Target{})
	require.NoError(t, err)
	assert.Equal(t, []string{"ab", "c"}, chunks(t, seq))
}

func TestStreamFallsBackToOneChunkOfReadText(t *testing.T) {
	seq, err := fsapi.Stream(context.Background(), core{text: "abc"}, fsapi.Target{})
	require.NoError(t, err)
	assert.Equal(t, []string{"abc"}, chunks(t, seq))

	fail := errors.New("boom")
	_, err = fsapi.Stream(context.Background(), core{err: fail}, fsapi.Target{})
	assert.Same(t, fail, err, "ReadText's error is returned before any chunk")
}

func TestRealPath(t *testing.T) {
	real, ok := fsapi.RealPath(streaming{}, fsapi.Target{Key: "/k"})
	assert.True(t, ok)
	assert.Equal(t, "/real/k", real)
	real, ok = fsapi.RealPath(core{}, fsapi.Target{Key: "/k"})
	assert.False(t, ok, "a provider without the capability has no real path")
	assert.Empty(t, real)
}
