package protectedpaths_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/examples/protectedpaths"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// TestPatterns dispatches fs/write-intent for one path under a set of
// patterns, on the real local provider, and checks which rule refuses it.
func TestPatterns(t *testing.T) {
	w := tempDir(t)
	writeFile(t, w, "secret.txt", "s\n")
	writeFile(t, w, "notes.txt", "n\n")
	writeFile(t, w, "secrets/deep/key.pem", "k\n")
	writeFile(t, w, "sub/deep/a.env", "e\n")
	require.NoError(t, os.Symlink("secret.txt", filepath.Join(w, "link.txt")))
	require.NoError(t, os.Symlink("secrets", filepath.Join(w, "linkdir")))
	outside := tempDir(t)
	alias := filepath.Join(outside, "alias")
	require.NoError(t, os.Symlink(w, alias)) // the workspace under another name

	tests := []struct {
		name     string
		patterns []string
		path     string
		wantRule string // "" when the write is let through
	}{
		{"a relative pattern names a file in the workspace", []string{"secret.txt"}, "secret.txt", "secret.txt"},
		{"other files pass", []string{"secret.txt"}, "notes.txt", ""},
		{"an absolute pattern names a file", []string{w + "/notes.txt"}, "notes.txt", w + "/notes.txt"},
		{"a protected directory protects everything beneath it", []string{"secrets"}, "secrets/deep/key.pem", "secrets"},
		{"a star stays within one segment", []string{"*.env"}, "sub/deep/a.env", ""},
		{"a star matches in its own segment", []string{"sub/*/*.env"}, "sub/deep/a.env", "sub/*/*.env"},
		{"a double star matches any depth", []string{"**/*.env"}, "sub/deep/a.env", "**/*.env"},
		{"a double star matches no segment at all", []string{"**/*.env"}, "top.env", "**/*.env"},
		{"a file not yet created is protected", []string{"new/**"}, "new/dir/file.txt", "new/**"},
		{"the first matching rule names the refusal", []string{"nothing", "secret.txt", "*.txt"}, "secret.txt", "secret.txt"},
		{"a symlink to a protected file is refused", []string{"secret.txt"}, "link.txt", "secret.txt"},
		{"a symlinked directory does not bypass a protected tree", []string{"secrets/**"}, "linkdir/deep/key.pem", "secrets/**"},
		{"a pattern spelled through a symlink matches the real file", []string{alias + "/secret.txt"}, "secret.txt", alias + "/secret.txt"},
		{"a path spelled through a symlink matches the pattern", []string{"secret.txt"}, alias + "/secret.txt", "secret.txt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newStack(t, w, tc.patterns...)
			target, err := s.fs.Resolve(t.Context(), tc.path, fsapi.ResolveOptions{})
			require.NoError(t, err)
			decided := &fsapi.WriteIntent{Kind: fsapi.CreateIfAbsent}
			got, err := events.FSWriteIntent.Waterfall(t.Context(), s.h.Root(), events.IntentRequest{Target: target},
				func(context.Context) (*fsapi.WriteIntent, error) { return decided, nil })
			if tc.wantRule == "" {
				require.NoError(t, err)
				assert.Equal(t, &fsapi.WriteIntent{Kind: fsapi.CreateIfAbsent}, got, "fspolicy's decision is returned unchanged")
				return
			}
			assert.EqualError(t, err, `cannot write "`+target.DisplayPath+`": the path is protected by rule "`+tc.wantRule+`"`)
			var pe *protectedpaths.Error
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, protectedpaths.Error{Op: "write", Path: target.DisplayPath, Rule: tc.wantRule}, *pe)
			assert.Nil(t, got)
		})
	}
}
