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

// counting is a provider with the TextScanner capability; it records that
// it was used and returns rest for whatever its consumer did.
type counting struct {
	lending
	used *bool
	rest fsapi.TextRest
}

func (c counting) ScanText(_ context.Context, _ fsapi.Target, consume func([]byte) bool) (fsapi.TextRest, error) {
	*c.used = true
	consume([]byte("first"))
	return c.rest, nil
}

// takeUntil returns a consumer that copies what it is given and stops once
// it holds n bytes or more, and the builder it copies into.
func takeUntil(n int) (func(string) bool, *strings.Builder) {
	var b strings.Builder
	return func(c string) bool {
		b.WriteString(c)
		return b.Len() < n
	}, &b
}

func TestScanCountingWithoutTheCapability(t *testing.T) {
	ctx := context.Background()
	text := "one\ntwo\r\nthree\nfour"
	tests := []struct {
		name     string
		fsys     fsapi.FileSystem
		stopAt   int
		consumed string
		rest     fsapi.TextRest
	}{
		{"the rest after the stop is only counted", lending{plain: plain{text: text}}, 5, "one\ntw", fsapi.TextRest{Bytes: 13, Newlines: 2, Unterminated: true}},
		{"a rest ending with LF is terminated", lending{plain: plain{text: text + "\n"}}, 1, "one", fsapi.TextRest{Bytes: 17, Newlines: 4}},
		{"a consumer that never stops takes everything", lending{plain: plain{text: text}}, 1000, text, fsapi.TextRest{}},
		{"a stop on the last chunk leaves an empty rest", lending{plain: plain{text: "abcdef"}}, 6, "abcdef", fsapi.TextRest{}},
		{"without a byte stream, ReadText's text is one chunk", plain{text: text}, 1, text, fsapi.TextRest{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			consume, got := takeUntil(tc.stopAt)
			rest, err := textstream.ScanCounting(ctx, tc.fsys, fsapi.Target{}, consume)
			require.NoError(t, err)
			assert.Equal(t, tc.consumed, got.String())
			assert.Equal(t, tc.rest, rest)
		})
	}

	boom := errors.New("read aborted")
	consume, _ := takeUntil(1)
	_, err := textstream.ScanCounting(ctx, lending{plain: plain{text: "abcdefgh"}, err: boom}, fsapi.Target{}, consume)
	assert.ErrorIs(t, err, boom, "an error met while counting the rest is the result")
}

func TestScanCountingUsesTheCapability(t *testing.T) {
	used := false
	want := fsapi.TextRest{Bytes: 7, Newlines: 2}
	consume, got := takeUntil(1)
	rest, err := textstream.ScanCounting(context.Background(), counting{lending: lending{plain: plain{text: "ignored"}}, used: &used, rest: want}, fsapi.Target{}, consume)
	require.NoError(t, err)
	assert.True(t, used)
	assert.Equal(t, "first", got.String(), "the provider's chunks reach the consumer")
	assert.Equal(t, want, rest, "the provider's count is the result")
}
