package fsapi_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// A write of 10 MiB or more reports its bytes piece by piece, up to the
// whole; a smaller one, or one without a reporter, reports nothing and
// writes the same bytes.
func TestWriteProgressReportsLargeWrites(t *testing.T) {
	var got []int64
	ctx := fsapi.WithBytesProgress(context.Background(), func(done, total int64) {
		assert.Equal(t, int64(fsapi.ProgressMinBytes+1), total)
		got = append(got, done)
	})
	data := strings.Repeat("x", fsapi.ProgressMinBytes+1)
	var b strings.Builder
	require.NoError(t, fsapi.WriteProgress(ctx, &b, data))
	assert.Equal(t, data, b.String())
	assert.Equal(t, []int64{4 << 20, 8 << 20, 10<<20 + 1}, got)

	got = nil
	b.Reset()
	require.NoError(t, fsapi.WriteProgress(ctx, &b, data[:fsapi.ProgressMinBytes-1]))
	assert.Empty(t, got)
	assert.Equal(t, fsapi.ProgressMinBytes-1, b.Len())
	b.Reset()
	require.NoError(t, fsapi.WriteProgress(context.Background(), &b, data))
	assert.Equal(t, data, b.String())
}
