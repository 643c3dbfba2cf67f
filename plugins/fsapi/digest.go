package fsapi

import (
	"context"
	"fmt"
	"hash/crc32"
	"math"
	"strconv"
	"strings"
	"unsafe"
)

// DefaultDigestMaxBytes is the default bound of content digests, 10485760
// bytes (10 MiB): fslocal's digestMaxBytes ([D24]).
const DefaultDigestMaxBytes int64 = 10 << 20

// castagnoli is the CRC-32C table (hash/crc32 uses the SSE4.2 instruction
// with it where there is one).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Digest is a 64-bit digest of a file's whole content, with the content's
// length in bytes: what content-based freshness compares when a guard's
// version no longer matches ([D24]). Its 64 bits are the content's CRC-32C
// and its CRC-32 (IEEE), two polynomials without a common factor, so the
// pair is a CRC of degree 64: any change confined to 8 consecutive bytes
// always changes it, and two different contents of one length share it
// with a chance of 2⁻⁶⁴. Both are computed with the processor's CRC
// instructions (SSE4.2, PCLMULQDQ), at several GB/s; SHA-256, at about
// 1 GB/s, would cost more than the read. Digests are comparable with ==.
// The zero Digest means "no digest": a guard or observation without one is
// compared by version alone.
type Digest struct {
	sum  uint64 // CRC-32C << 32 | CRC-32 IEEE
	size int64  // the content's length + 1; 0 for the zero Digest
}

// DigestOf returns the digest of content (the whole raw bytes of a file).
func DigestOf(content string) Digest {
	h := NewDigestHash()
	for len(content) > 0 {
		n := min(len(content), digestBlock)
		h.add(unsafe.Slice(unsafe.StringData(content), n))
		content = content[n:]
	}
	return h.Digest()
}

// digestBlock is how much of a content both CRCs take in turn: the second
// finds the block still in the cache.
const digestBlock = 64 << 10

// IsZero reports whether d is the zero Digest (no digest).
func (d Digest) IsZero() bool { return d.size == 0 }

// Size returns the length in bytes of the content d digests; -1 for the
// zero Digest.
func (d Digest) Size() int64 { return d.size - 1 }

// DigestHash computes a [Digest] of content written to it in pieces, as
// [DigestOf] would of the whole: how a provider digests a file it streams.
// Its zero value is not usable; use [NewDigestHash].
type DigestHash struct {
	c, ieee uint32
	n       int64
}

// NewDigestHash returns an empty DigestHash.
func NewDigestHash() *DigestHash { return &DigestHash{} }

// Write adds p to the content; it never fails.
func (d *DigestHash) Write(p []byte) (int, error) {
	for rest := p; len(rest) > 0; {
		n := min(len(rest), digestBlock)
		d.add(rest[:n])
		rest = rest[n:]
	}
	return len(p), nil
}

func (d *DigestHash) add(p []byte) {
	d.c = crc32.Update(d.c, castagnoli, p)
	d.ieee = crc32.Update(d.ieee, crc32.IEEETable, p)
	d.n += int64(len(p))
}

// Digest returns the digest of the content written so far.
func (d *DigestHash) Digest() Digest {
	return Digest{sum: uint64(d.c)<<32 | uint64(d.ieee), size: d.n + 1}
}

type digestKey struct{}

// WithDigestSink returns ctx carrying sink, to which a provider reports the
// [Digest] of the content of the file version a call under ctx observes,
// when it had that content whole anyway ([D24]): ReadText of a file of at
// most the provider's digest bound, a stream read to its end, or the bytes
// a WriteText, EditText, InsertText or EditTexts committed. A call reports
// at most once, and never for a file over the bound or a stream stopped
// early; the tool then observes the version alone. A nil sink returns ctx.
func WithDigestSink(ctx context.Context, sink func(Digest)) context.Context {
	if sink == nil {
		return ctx
	}
	return context.WithValue(ctx, digestKey{}, sink)
}

// DigestSink returns the sink carried by ctx, or nil when it carries none:
// a provider digests nothing then.
func DigestSink(ctx context.Context) func(Digest) {
	sink, _ := ctx.Value(digestKey{}).(func(Digest))
	return sink
}

// String returns d as `<16 hex digits>:<size in bytes>`, and "" for the
// zero Digest: how a plugin that keeps digests on disk writes them
// (ParseDigest reads them back).
func (d Digest) String() string {
	if d.IsZero() {
		return ""
	}
	return fmt.Sprintf("%016x:%d", d.sum, d.Size())
}

// ParseDigest reads a Digest written by [Digest.String]; "" is the zero
// Digest. Anything else fails.
func ParseDigest(s string) (Digest, error) {
	if s == "" {
		return Digest{}, nil
	}
	hexSum, size, ok := strings.Cut(s, ":")
	sum, err := strconv.ParseUint(hexSum, 16, 64)
	if !ok || len(hexSum) != 16 || err != nil {
		return Digest{}, fmt.Errorf("invalid digest %q", s)
	}
	n, err := strconv.ParseInt(size, 10, 64)
	if err != nil || n < 0 || n == math.MaxInt64 {
		return Digest{}, fmt.Errorf("invalid digest %q", s)
	}
	return Digest{sum: sum, size: n + 1}, nil
}
