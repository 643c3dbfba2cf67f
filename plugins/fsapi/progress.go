package fsapi

import (
	"context"
	"io"
)

// ProgressMinBytes is the size from which a write reports its bytes
// (conversations.md §4.3: writes and edits of files of 10 MiB or more).
const ProgressMinBytes = 10 << 20

// progressChunk is how many bytes a reporting write hands the file at a
// time.
const progressChunk = 4 << 20

// BytesProgress receives a write's progress: done bytes of total.
type BytesProgress func(done, total int64)

type progressKey struct{}

// WithBytesProgress returns ctx carrying fn, to which a provider reports the
// bytes it writes for a change made under ctx (WriteProgress).
func WithBytesProgress(ctx context.Context, fn BytesProgress) context.Context {
	if fn == nil {
		return ctx
	}
	return context.WithValue(ctx, progressKey{}, fn)
}

// WriteProgress writes data to w, and when ctx carries a BytesProgress and
// data is ProgressMinBytes or more, in 4 MiB pieces, reporting the bytes
// written after each; otherwise in one write. It returns the first error.
func WriteProgress(ctx context.Context, w io.Writer, data string) error {
	fn, _ := ctx.Value(progressKey{}).(BytesProgress)
	if fn == nil || len(data) < ProgressMinBytes {
		_, err := io.WriteString(w, data)
		return err
	}
	total := int64(len(data))
	for done := 0; done < len(data); {
		n := min(progressChunk, len(data)-done)
		if _, err := io.WriteString(w, data[done:done+n]); err != nil {
			return err
		}
		done += n
		fn(int64(done), total)
	}
	return nil
}
