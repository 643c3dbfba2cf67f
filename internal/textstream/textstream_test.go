package textstream_test

import (
	"context"
	"errors"
	"iter"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/textstream"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// plain is a provider with only ReadText.
type plain struct {
	fsapi.FileSystem
	text string
}

func (p plain) ReadText(context.Context, fsapi.Target) (string, error) { return p.text, nil }

// lending streams its text in 3-byte chunks through one reused buffer, then
// fails with err.
type lending struct {
	plain
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

func collect(t *testing.T, chunks iter.Seq2[string, error]) (string, error) {
	t.Helper()
	var b strings.Builder
	for c, err := range chunks {
		if err != nil {
			return b.String(), err
		}
		b.WriteString(c) // copies before the next step, as Scan requires
	}
	return b.String(), nil
}

func TestScan(t *testing.T) {
	ctx := context.Background()
	chunks, err := textstream.Scan(ctx, plain{text: "whole text"}, fsapi.Target{})
	require.NoError(t, err)
	got, err := collect(t, chunks)
	require.NoError(t, err)
	assert.Equal(t, "whole text", got, "without a byte stream, ReadText's text")

	chunks, err = textstream.Scan(ctx, lending{plain: plain{text: "abcdefgh"}}, fsapi.Target{})
	require.NoError(t, err)
	got, err = collect(t, chunks)
	require.NoError(t, err)
	assert.Equal(t, "abcdefgh", got, "the lent chunks, in order")

	boom := errors.New("read aborted")
	chunks, err = textstream.Scan(ctx, lending{plain: plain{text: "abcd"}, err: boom}, fsapi.Target{})
	require.NoError(t, err)
	got, err = collect(t, chunks)
	assert.ErrorIs(t, err, boom, "a mid-stream error is the last pair's")
	assert.Equal(t, "abcd", got)
}
