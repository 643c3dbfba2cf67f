package fslocal_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// The small-file write and edit benchmarks show the fixed cost of one
// mutation, where the safety checks (the directory flock, the permission
// check, the extended attributes, the NFC lookup of a create)
// weigh most: a 4 KiB file, every op committed with both fsyncs.

// BenchmarkWriteTextSmall overwrites a 4 KiB file (unguarded).
func BenchmarkWriteTextSmall(b *testing.B) {
	p, dir := benchProvider(b)
	content := strings.Repeat("x", 4095) + "\n"
	require.NoError(b, os.WriteFile(filepath.Join(dir, "f.txt"), []byte(content), 0o644))
	tg, err := p.Resolve(context.Background(), "f.txt", fsapi.ResolveOptions{})
	require.NoError(b, err)
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.WriteText(context.Background(), tg, content, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteTextCreate resolves and creates a 4 KiB file with
// CreateIfAbsent in a directory of 100 files, then removes it (outside the
// timing only in the sense that it is cheap: one unlink).
func BenchmarkWriteTextCreate(b *testing.B) {
	p, dir := benchProvider(b)
	for i := range 100 {
		require.NoError(b, os.WriteFile(filepath.Join(dir, "other-"+strings.Repeat("y", i%7)+string(rune('a'+i%26))+string(rune('a'+i/26))), nil, 0o644))
	}
	content := strings.Repeat("x", 4095) + "\n"
	intent := &fsapi.WriteIntent{Kind: fsapi.CreateIfAbsent}
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		tg, err := p.Resolve(context.Background(), "new.txt", fsapi.ResolveOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.WriteText(context.Background(), tg, content, intent); err != nil {
			b.Fatal(err)
		}
		if err := os.Remove(tg.Key); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEditTextSmall edits one line of a 4 KiB file, back and forth.
func BenchmarkEditTextSmall(b *testing.B) {
	p, dir := benchProvider(b)
	content := strings.Repeat("x", 4086) + "\nMARKER-A\n"
	require.NoError(b, os.WriteFile(filepath.Join(dir, "f.txt"), []byte(content), 0o644))
	tg, err := p.Resolve(context.Background(), "f.txt", fsapi.ResolveOptions{})
	require.NoError(b, err)
	reqs := []fsapi.EditRequest{{OldString: "MARKER-A", NewString: "MARKER-B"}, {OldString: "MARKER-B", NewString: "MARKER-A"}}
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := p.EditText(context.Background(), tg, reqs[i%2], nil); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
