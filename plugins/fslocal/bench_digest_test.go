package fslocal_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// BenchmarkReadTextDigest is the read cost of freshness by content
// ([D24]): ReadText of a file of 64 KiB, 1 MiB and 10 MiB (the digest
// bound) with a digest sink, as the read tool calls it, and without one,
// alternately in one loop so both see the same load. Reported per size:
// the median time of each (plain-ms, digest-ms) and their ratio
// (digest/plain), the digest's share of a whole read.
//
//	go test -run '^$' -bench ReadTextDigest -benchtime 100x ./plugins/fslocal/
func BenchmarkReadTextDigest(b *testing.B) {
	p, dir := benchProvider(b)
	for _, size := range []int{64 << 10, 1 << 20, 10 << 20} {
		name := filepath.Join(dir, "f"+itoa(int64(size)))
		writeBig(b, name, size, 100)
		tg, err := p.Resolve(context.Background(), name, fsapi.ResolveOptions{})
		require.NoError(b, err)
		b.Run(itoa(int64(size>>10))+"KiB", func(b *testing.B) {
			var got fsapi.Digest
			sink := fsapi.WithDigestSink(context.Background(), func(d fsapi.Digest) { got = d })
			var plain, digest []time.Duration
			read := func(ctx context.Context) time.Duration {
				start := time.Now()
				if _, err := p.ReadText(ctx, tg); err != nil {
					b.Fatal(err)
				}
				return time.Since(start)
			}
			b.SetBytes(2 * int64(size))
			for b.Loop() {
				plain = append(plain, read(context.Background()))
				digest = append(digest, read(sink))
			}
			require.Equal(b, int64(size), got.Size(), "the digest was computed")
			mp, md := median(plain), median(digest)
			b.ReportMetric(float64(mp)/1e6, "plain-ms")
			b.ReportMetric(float64(md)/1e6, "digest-ms")
			b.ReportMetric(float64(md)/float64(mp), "ratio")
		})
	}
}

// median returns the median of ds.
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
