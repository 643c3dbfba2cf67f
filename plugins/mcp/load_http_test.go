package mcp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHTTPFiftyConversationsOfTwentyCalls: 50 clients at once over HTTP,
// half of them legacy sessions and half 2026-07-28 clients with a handle
// each, make 20 calls apiece (a read, then 19 edits of their own file, each
// building on the last): 0 errors and 0 lost edits (conversations.md, issue
// "what it must show").
func TestHTTPFiftyConversationsOfTwentyCalls(t *testing.T) {
	s := serveHTTP(t, nil)
	const clients, calls = 50, 20
	var wg sync.WaitGroup
	errs := make(chan string, clients*calls)
	for i := range clients {
		name := fmt.Sprintf("c%02d.txt", i)
		require.NoError(t, os.WriteFile(filepath.Join(s.W, name), []byte("line 0\n"), 0o644))
		wg.Add(1)
		go func() {
			defer wg.Done()
			var p peer
			var err error
			if i%2 == 0 {
				p.cs, err = s.connect(t, "secret")
			} else {
				p.cs, err = s.connectModern(t, "secret")
				p.handle = fmt.Sprintf("load-%d", i)
			}
			if err != nil {
				errs <- err.Error()
				return
			}
			if text, isErr := p.call(t, "read", map[string]any{"file_path": name}); isErr {
				errs <- text
				return
			}
			for n := 1; n < calls; n++ {
				last := fmt.Sprintf("line %d\n", n-1)
				text, isErr := p.call(t, "edit", map[string]any{"file_path": name, "old_string": last, "new_string": last + fmt.Sprintf("line %d\n", n)})
				if isErr {
					errs <- name + ": " + text
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	var failed []string
	for e := range errs {
		failed = append(failed, e)
	}
	assert.Empty(t, failed, "0 errors")
	var want strings.Builder
	for n := range calls {
		fmt.Fprintf(&want, "line %d\n", n)
	}
	for i := range clients {
		got, err := os.ReadFile(filepath.Join(s.W, fmt.Sprintf("c%02d.txt", i)))
		require.NoError(t, err)
		assert.Equal(t, want.String(), string(got), "0 lost edits in client %d", i)
	}
	assert.Equal(t, clients/2, s.srv.Sessions())
	assert.Equal(t, clients, s.srv.Conversations())
}
