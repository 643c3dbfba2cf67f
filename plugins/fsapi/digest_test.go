package fsapi_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

func TestDigest(t *testing.T) {
	var zero fsapi.Digest
	assert.True(t, zero.IsZero())
	assert.Equal(t, int64(-1), zero.Size())

	empty := fsapi.DigestOf("")
	assert.False(t, empty.IsZero(), "an empty file has a digest")
	assert.Equal(t, int64(0), empty.Size())

	text := strings.Repeat("line of text\n", 10000)
	d := fsapi.DigestOf(text)
	assert.Equal(t, int64(len(text)), d.Size())
	assert.Equal(t, d, fsapi.DigestOf(strings.Clone(text)), "equal contents, equal digests")

	h := fsapi.NewDigestHash()
	for s := text; s != ""; {
		n := min(len(s), 4093) // pieces that do not divide the buffers
		h.Write([]byte(s[:n]))
		s = s[n:]
	}
	assert.Equal(t, d, h.Digest(), "a digest in pieces is the digest of the whole")

	for _, i := range []int{0, len(text) / 2, len(text) - 1} {
		b := []byte(text)
		b[i] ^= 1
		assert.NotEqual(t, d, fsapi.DigestOf(string(b)), "one changed byte changes the digest")
	}
	assert.NotEqual(t, d, fsapi.DigestOf(text+"x"))
	assert.NotEqual(t, fsapi.DigestOf("\ufeffab"), fsapi.DigestOf("ab"), "the BOM is content")
}

func TestDigestSink(t *testing.T) {
	ctx := context.Background()
	assert.Nil(t, fsapi.DigestSink(ctx))
	assert.Equal(t, ctx, fsapi.WithDigestSink(ctx, nil))
	var got fsapi.Digest
	sink := fsapi.DigestSink(fsapi.WithDigestSink(ctx, func(d fsapi.Digest) { got = d }))
	if assert.NotNil(t, sink) {
		sink(fsapi.DigestOf("x"))
	}
	assert.Equal(t, fsapi.DigestOf("x"), got)
}

func TestADigestReadsBackFromItsString(t *testing.T) {
	for _, content := range []string{"", "a", "hello\nworld\n"} {
		d := fsapi.DigestOf(content)
		got, err := fsapi.ParseDigest(d.String())
		if err != nil || got != d {
			t.Fatalf("ParseDigest(%q) = %v, %v; want %v", d.String(), got, err, d)
		}
	}
	if z, err := fsapi.ParseDigest(""); err != nil || !z.IsZero() || fsapi.DigestOf("").String() == "" {
		t.Fatal("the zero Digest is the empty string, and only it")
	}
	for _, bad := range []string{"x", "0123456789abcdef", "0123456789abcdef:-1", "0123:5", "0123456789abcdeg:1"} {
		if _, err := fsapi.ParseDigest(bad); err == nil {
			t.Errorf("ParseDigest(%q) succeeded", bad)
		}
	}
}
