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

// lending streams its text in 3-byte chunks through one reused buffer, then
// fails with err.
type lending struct {
	core
	err error
}

func (l lending) StreamBytes(context.Context, fsapi.Target) (iter.Seq2[[]byte, error], error) {
	return func(yield func([]byte, error) bool) {
		buf := make([]byte, 3)
		for s := l.text; s != ""; {
			n := copy(buf, s)
			if !yield(buf[:n], nil) {
				return
			}
			s = s[n:]
		}
		if l.err != nil {
			yield(nil, l.err)
		}
	}, nil
}

// scanned copies the chunks of a byte scan before each next step, as
// ScanBytes asks, and returns them with the last pair's error.
func scanned(t *testing.T, fsys fsapi.FileSystem) ([]string, error) {
	t.Helper()
	seq, err := fsapi.ScanBytes(context.Background(), fsys, fsapi.Target{})
	require.NoError(t, err)
	var out []string
	for c, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, string(c))
	}
	return out, nil
}

func TestScanBytes(t *testing.T) {
	got, err := scanned(t, lending{core: core{text: "abcdefgh"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"abc", "def", "gh"}, got, "a byte stream's chunks, in order")

	boom := errors.New("read aborted")
	got, err = scanned(t, lending{core: core{text: "abcd"}, err: boom})
	assert.ErrorIs(t, err, boom, "a mid-stream error is the last pair's")
	assert.Equal(t, []string{"abc", "d"}, got)

	got, err = scanned(t, streaming{core{text: "abc"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"ab", "c"}, got, "without a byte stream, the text stream's chunks")

	got, err = scanned(t, core{text: "whole text"})
	require.NoError(t, err)
	assert.Equal(t, []string{"whole text"}, got, "without either, ReadText's text")
}

func TestRealPath(t *testing.T) {
	real, ok := fsapi.RealPath(streaming{}, fsapi.Target{Key: "/k"})
	assert.True(t, ok)
	assert.Equal(t, "/real/k", real)
	real, ok = fsapi.RealPath(core{}, fsapi.Target{Key: "/k"})
	assert.False(t, ok, "a provider without the capability has no real path")
	assert.Empty(t, real)
}
