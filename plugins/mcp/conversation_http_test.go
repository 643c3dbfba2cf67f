package mcp_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/config"
	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/internal/stacktest"
	mcpserver "github.com/dsh-go/dsh/plugins/mcp"
)

// namedTokens serves HTTP with the default token "secret" and the named
// tokens alice (from a file) and bob (from a variable), over a stack whose
// conversations may switch their sandbox mode.
func namedTokens(t *testing.T) *served {
	t.Helper()
	file := filepath.Join(t.TempDir(), "alice.token")
	require.NoError(t, os.WriteFile(file, []byte("alice-token\n"), 0o600))
	return serveStackHTTP(t, stacktest.Options{FSSandbox: map[string]any{"sessionSwitch": true}}, func(c *mcpserver.Config) {
		c.Tokens = map[string]mcpserver.TokenSource{"alice": {File: file}, "bob": {Env: "BOB_TOKEN"}}
		c.Environ = []string{"BOB_TOKEN=bob-token"}
	})
}

// TestHTTPConversationsByHandleAndPrincipal: conversations.md §5.2 over
// HTTP with 2026-07-28 clients. Two clients share observations and modes
// exactly when their handles and principals are equal (no handle: the
// principal's own conversation).
func TestHTTPConversationsByHandleAndPrincipal(t *testing.T) {
	s := namedTokens(t)
	st := &stack{Stack: s.Stack, srv: s.srv}
	modern := func(token string) peerFunc {
		cs, err := s.connectModern(t, token)
		require.NoError(t, err)
		return func(h string) peer { return peer{cs, h} }
	}
	alice, alice2, bob, def := modern("alice-token"), modern("alice-token"), modern("bob-token"), modern("secret")
	assert.Zero(t, s.srv.Sessions(), "2026-07-28 clients have no session")

	t.Run("the same handle and principal on two connections share", func(t *testing.T) {
		assertShared(t, st, alice("h"), alice2("h"))
	})
	t.Run("another handle does not", func(t *testing.T) {
		assertIsolated(t, st, alice("h1"), alice2("h2"))
	})
	t.Run("another principal with the same handle does not", func(t *testing.T) {
		assertIsolated(t, st, alice("same"), bob("same"))
	})
	t.Run("no handle: one conversation per principal", func(t *testing.T) {
		assertShared(t, st, alice(""), alice2(""))
		assertIsolated(t, st, bob(""), def(""))
	})
	t.Run("modes follow the conversation", func(t *testing.T) {
		text, isErr := alice("narrow").call(t, "sandbox_mode", map[string]any{"mode": "read-only"})
		require.False(t, isErr, text)
		text, _ = alice2("narrow").call(t, "sandbox_mode", map[string]any{})
		assert.Equal(t, "Sandbox mode: read-only", text, "the same conversation")
		for _, other := range []peer{alice("wide"), bob("narrow"), alice("")} {
			text, _ = other.call(t, "sandbox_mode", map[string]any{})
			assert.Contains(t, text, "Sandbox mode: workspace-write", "another conversation keeps the configured mode")
		}
	})
}

// peerFunc names a conversation of one client by handle.
type peerFunc func(handle string) peer

// TestHTTPCallsCarryTheirPrincipal: the actor of an fs event names the
// principal of the token and the conversation built on it.
func TestHTTPCallsCarryTheirPrincipal(t *testing.T) {
	s := namedTokens(t)
	var mu sync.Mutex
	var seen [][2]string
	_, err := events.FSObserved.On(s.Host.Root(), func(_ context.Context, o events.Observation) error {
		id, _ := o.Actor.Conversation()
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, [2]string{o.Actor.Principal(), id})
		return nil
	})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(s.W, "a.txt"), []byte("a\n"), 0o644))
	bob, err := s.connectModern(t, "bob-token")
	require.NoError(t, err)
	legacy, err := s.connect(t, "alice-token")
	require.NoError(t, err)
	for _, p := range []peer{{bob, "t-1"}, {bob, ""}, {legacy, ""}, {legacy, "t-1"}} {
		_, isErr := p.call(t, "read", map[string]any{"file_path": "a.txt"})
		require.False(t, isErr)
	}
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, seen, 4)
	assert.Equal(t, [2]string{"bob", "bob/c/t-1"}, seen[0])
	assert.Equal(t, [2]string{"bob", "bob"}, seen[1])
	assert.Equal(t, "alice", seen[2][0])
	assert.Regexp(t, `^alice/s/[0-9a-f-]{36}$`, seen[2][1], "a legacy session's internal id, never its Mcp-Session-Id")
	assert.NotContains(t, seen[2][1], legacy.ID())
	assert.Equal(t, [2]string{"alice", "alice/c/t-1"}, seen[3])
}

// TestHTTPASessionIsBoundToItsPrincipal: a legacy session begun with one
// token is refused with another (its Mcp-Session-Id is not enough).
func TestHTTPASessionIsBoundToItsPrincipal(t *testing.T) {
	s := namedTokens(t)
	cs, err := s.connect(t, "alice-token")
	require.NoError(t, err)
	list := `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`
	hdr := map[string]string{"Mcp-Session-Id": cs.ID(), "Mcp-Protocol-Version": "2025-06-18"}
	hdr["Authorization"] = "Bearer bob-token"
	assert.Equal(t, http.StatusForbidden, s.post(t, list, hdr).StatusCode)
	hdr["Authorization"] = "Bearer alice-token"
	assert.Equal(t, http.StatusOK, s.post(t, list, hdr).StatusCode)
}

// TestHTTPTokensAreReadAgain: a token file's new content replaces the old
// token when the tokens are read again (at a reload).
func TestHTTPTokensAreReadAgain(t *testing.T) {
	file := filepath.Join(t.TempDir(), "carol.token")
	require.NoError(t, os.WriteFile(file, []byte("one"), 0o600))
	var cfg mcpserver.Config
	s := serveHTTP(t, func(c *mcpserver.Config) {
		c.Token, c.Tokens = "", map[string]mcpserver.TokenSource{"carol": {File: file}}
		cfg = *c
	})
	_, err := s.connect(t, "one")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, []byte("two\n"), 0o600))
	require.NoError(t, s.srv.ReadTokens(cfg))
	_, err = s.connect(t, "one")
	assert.Error(t, err, "the old token is refused")
	_, err = s.connect(t, "two")
	assert.NoError(t, err)

	require.NoError(t, os.WriteFile(file, nil, 0o600))
	assert.EqualError(t, s.srv.ReadTokens(cfg), "mcp: tokens.carol "+file+" is empty")
	_, err = s.connect(t, "two")
	assert.NoError(t, err, "a failed read keeps the tokens in force")
}

// TestNamedTokenRules: names, sources and values are checked at load
// (conversations.md §4.2).
func TestNamedTokenRules(t *testing.T) {
	p := mcpserver.Plugin
	for _, tc := range []struct {
		tokens map[string]any
		extra  map[string]any
		want   string
	}{
		{map[string]any{"Alice": map[string]any{"file": "f"}}, nil, `mcp: tokens: "Alice" is not a principal name ([a-z0-9_-], 1 to 32 bytes)`},
		{map[string]any{"a-very-long-principal-name-of-33b": map[string]any{"file": "f"}}, nil, `is not a principal name`},
		{map[string]any{"default": map[string]any{"file": "f"}}, nil, `mcp: tokens: "default" is a reserved principal name (default, stdio, cli and anonymous are)`},
		{map[string]any{"stdio": map[string]any{"env": "X"}}, nil, `"stdio" is a reserved principal name`},
		{map[string]any{"cli": map[string]any{"env": "X"}}, nil, `"cli" is a reserved principal name`},
		{map[string]any{"anonymous": map[string]any{"env": "X"}}, nil, `"anonymous" is a reserved principal name`},
		{map[string]any{"a": map[string]any{}}, nil, "mcp: tokens.a needs exactly one of file and env (never the token itself)"},
		{map[string]any{"a": map[string]any{"file": "f", "env": "X"}}, nil, "mcp: tokens.a needs exactly one of file and env"},
		{map[string]any{"a": map[string]any{"value": "hunter2"}}, nil, "unknown key"},
		{map[string]any{"a": map[string]any{"env": "X"}}, map[string]any{"noAuth": true}, "mcp: noAuth and tokens exclude each other"},
		{map[string]any{"a": map[string]any{"env": "DSH_A_TOKEN"}}, nil, "mcp: tokens.a: env DSH_A_TOKEN is in the DSH_ namespace, which holds dshhost's config keys; name a variable without the DSH_ prefix"},
		{map[string]any{"a": "hunter2"}, nil, "tokens[a]: expected a mapping, got a string"},
	} {
		raw := map[string]any{"tokens": tc.tokens}
		for k, v := range tc.extra {
			raw[k] = v
		}
		_, err := config.Decode(p, raw)
		assert.ErrorContains(t, err, tc.want, "%v", tc.tokens)
	}
	_, err := config.Decode(p, map[string]any{"http": "0.0.0.0:0", "tokens": map[string]any{"ci_bot-1": map[string]any{"env": "X"}}})
	assert.NoError(t, err, "named tokens are explicit tokens")
	_, err = config.Decode(p, map[string]any{"sessionIdleTimeout": "5m"})
	assert.ErrorContains(t, err, "mcp: sessionIdleTimeout is renamed to conversationIdleTimeout")
}

// TestTwoPrincipalsWithOneTokenAreRefused: the same value under two names
// is refused when the tokens are read, as are an unset variable and an
// empty file.
func TestTwoPrincipalsWithOneTokenAreRefused(t *testing.T) {
	dir := t.TempDir()
	same, empty, fifo, big := filepath.Join(dir, "same"), filepath.Join(dir, "empty"), filepath.Join(dir, "fifo"), filepath.Join(dir, "big")
	require.NoError(t, os.WriteFile(same, []byte("shared\n"), 0o600))
	require.NoError(t, os.WriteFile(empty, []byte("\n"), 0o600))
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	require.NoError(t, os.WriteFile(big, make([]byte, 65<<10), 0o600))
	for _, tc := range []struct {
		edit func(*mcpserver.Config)
		want string
	}{
		{func(c *mcpserver.Config) {
			c.Token = "shared"
			c.Tokens = map[string]mcpserver.TokenSource{"ci": {File: same}}
		}, `mcp: the principals "default" and "ci" have the same token`},
		{func(c *mcpserver.Config) {
			c.Token, c.Environ = "", []string{"A=shared"}
			c.Tokens = map[string]mcpserver.TokenSource{"a": {Env: "A"}, "b": {File: same}}
		}, `mcp: the principals "a" and "b" have the same token`},
		{func(c *mcpserver.Config) {
			c.Token, c.Environ = "", []string{}
			c.Tokens = map[string]mcpserver.TokenSource{"a": {Env: "A"}}
		}, `mcp: tokens.a: the variable A is unset or empty`},
		{func(c *mcpserver.Config) {
			c.Tokens = map[string]mcpserver.TokenSource{"a": {File: empty}}
		}, `mcp: tokens.a ` + empty + ` is empty`},
		{func(c *mcpserver.Config) { // never a start that blocks
			c.Token, c.TokenFile = "", fifo
		}, `mcp: tokenFile ` + fifo + ` is not a regular file`},
		{func(c *mcpserver.Config) {
			c.Tokens = map[string]mcpserver.TokenSource{"a": {File: "/dev/zero"}}
		}, `mcp: tokens.a /dev/zero is not a regular file`},
		{func(c *mcpserver.Config) {
			c.Tokens = map[string]mcpserver.TokenSource{"a": {File: big}}
		}, `mcp: tokens.a ` + big + ` is larger than 64 KiB`},
	} {
		st := stacktest.New(t, stacktest.Options{})
		cfg := mcpserver.Plugin.DefaultConfig().(mcpserver.Config)
		cfg.HTTP, cfg.Token, cfg.Stderr, cfg.Workspace = "127.0.0.1:0", "secret", io.Discard, fixedDir(st.W)
		tc.edit(&cfg)
		inst, err := st.Host.Plugin(t.Context(), mcpserver.Plugin, cfg)
		require.NoError(t, err)
		err = inst.Wait(t.Context())
		require.Error(t, err)
		assert.ErrorContains(t, err, tc.want)
	}
}
