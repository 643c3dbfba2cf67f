package protectedpaths_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// BenchmarkGuard measures one fs/write-intent dispatch that passes ten
// rules (none matches) on its way to fspolicy.
func BenchmarkGuard(b *testing.B) {
	s := newStack(b, tempDir(b), ".git", ".env", "secrets/**", "**/*.pem", "**/*.key", "build", "dist/*", "vendor", "*.lock", "config/prod.yaml")
	target, err := s.fs.Resolve(b.Context(), "src/deep/main.go", fsapi.ResolveOptions{})
	require.NoError(b, err)
	inner := func(context.Context) (*fsapi.WriteIntent, error) { return nil, nil }
	for b.Loop() {
		if _, err := events.FSWriteIntent.Waterfall(b.Context(), s.h.Root(), events.IntentRequest{Target: target}, inner); err != nil {
			b.Fatal(err)
		}
	}
}
