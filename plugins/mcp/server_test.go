package mcp_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/fslocal"
	mcpserver "github.com/dsh-go/dsh/plugins/mcp"
	"github.com/dsh-go/dsh/plugins/tools"
)

// stack is the default deployment (stacktest) behind one MCP server.
type stack struct {
	*stacktest.Stack
	srv     *mcpserver.Server
	changed chan struct{}
}

func newStack(t *testing.T) *stack {
	t.Helper()
	st := stacktest.New(t, stacktest.Options{})
	srv, err := mcpserver.New(st.Host.Root(), st.Registry, mcpserver.Options{Name: "test", Version: "1", Cwd: func() string { return st.W }})
	require.NoError(t, err)
	return &stack{Stack: st, srv: srv, changed: make(chan struct{}, 16)}
}

// connect opens one more legacy MCP session (2025-11-25) on the same
// server: a conversation of its own.
func (s *stack) connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	return s.connectAt(t, oldProtocol)
}

// connectAt opens one more MCP connection at protocol version ("": the
// SDK's latest, 2026-07-28, which has no sessions).
func (s *stack) connectAt(t *testing.T, version string) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.srv.MCP().Connect(t.Context(), st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case s.changed <- struct{}{}:
			default:
			}
		},
	})
	cs, err := client.Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	return callIn(t, cs, "", name, args)
}

// callIn calls a tool in the conversation handle names ("": none).
func callIn(t *testing.T, cs *mcp.ClientSession, handle, name string, args map[string]any) (string, bool) {
	t.Helper()
	p := &mcp.CallToolParams{Name: name, Arguments: args}
	if handle != "" {
		p.Meta = mcp.Meta{mcpserver.ConversationMetaKey: handle}
	}
	res, err := cs.CallTool(t.Context(), p)
	require.NoError(t, err)
	require.Len(t, res.Content, 1)
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

// TestWhoSharesObservations: on ONE server, a file read in one
// conversation cannot be edited in another (contract §4); two legacy
// sessions are two conversations, and so are two 2026-07-28 clients with
// different handles, while the same handle, or none, is one conversation
// (conversations.md §1, §5.2).
func TestWhoSharesObservations(t *testing.T) {
	t.Run("two legacy sessions", func(t *testing.T) {
		s := newStack(t)
		assertIsolated(t, s, peer{cs: s.connect(t)}, peer{cs: s.connect(t)})
		assert.Equal(t, 2, s.srv.Sessions())
		assert.Equal(t, 2, s.srv.Conversations())
	})
	t.Run("two handles", func(t *testing.T) {
		s := newStack(t)
		assertIsolated(t, s, peer{s.connectAt(t, ""), "alpha"}, peer{s.connectAt(t, ""), "beta"})
		assert.Zero(t, s.srv.Sessions(), "no legacy session")
		assert.Equal(t, 2, s.srv.Conversations())
	})
	t.Run("one handle on two connections", func(t *testing.T) {
		s := newStack(t)
		assertShared(t, s, peer{s.connectAt(t, ""), "same"}, peer{s.connectAt(t, ""), "same"})
	})
	t.Run("a handle on a legacy session", func(t *testing.T) {
		s := newStack(t)
		assertShared(t, s, peer{s.connect(t), "same"}, peer{s.connectAt(t, ""), "same"})
	})
	t.Run("no handle: the principal's conversation", func(t *testing.T) {
		s := newStack(t)
		assertShared(t, s, peer{cs: s.connectAt(t, "")}, peer{cs: s.connectAt(t, "")})
		assert.Equal(t, 1, s.srv.Conversations())
	})
}

// peer is one client connection and the conversation handle it passes
// ("" for none).
type peer struct {
	cs     *mcp.ClientSession
	handle string
}

func (p peer) call(t *testing.T, name string, args map[string]any) (string, bool) {
	t.Helper()
	return callIn(t, p.cs, p.handle, name, args)
}

// assertIsolated checks on a and b, two conversations of s's server, that
// a read by a does not let b edit, and that a can.
func assertIsolated(t *testing.T, s *stack, a, b peer) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(s.W, "a.txt"), []byte("hello world\n"), 0o644))
	_, isErr := a.call(t, "read", map[string]any{"file_path": "a.txt"})
	require.False(t, isErr)
	text, isErr := b.call(t, "edit", map[string]any{"file_path": "a.txt", "old_string": "world", "new_string": "there"})
	assert.True(t, isErr)
	assert.Equal(t, `Error: edit requires reading "`+s.W+`/a.txt" first — read the file, then retry`, text)

	text, isErr = a.call(t, "edit", map[string]any{"file_path": "a.txt", "old_string": "world", "new_string": "there"})
	assert.False(t, isErr, text)
	assert.Equal(t, "The file "+s.W+"/a.txt has been updated successfully.", text)
}

// assertShared checks on a and b that a read by a lets b edit.
func assertShared(t *testing.T, s *stack, a, b peer) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(s.W, "a.txt"), []byte("hello world\n"), 0o644))
	_, isErr := a.call(t, "read", map[string]any{"file_path": "a.txt"})
	require.False(t, isErr)
	text, isErr := b.call(t, "edit", map[string]any{"file_path": "a.txt", "old_string": "world", "new_string": "there"})
	assert.False(t, isErr, text)
}

func waitChanged(t *testing.T, s *stack) {
	t.Helper()
	select {
	case <-s.changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no tools/list_changed notification")
	}
}

// TestToolListFollowsTheProvider: disposing fs withdraws the tools (host
// §6 item 22) and clients get tools/list_changed; a new provider brings
// them back.
func TestToolListFollowsTheProvider(t *testing.T) {
	s := newStack(t)
	cs := s.connect(t)
	tl, err := cs.ListTools(t.Context(), nil)
	require.NoError(t, err)
	require.Len(t, tl.Tools, 10, "list, read, write, edit, move, delete, mkdir, file_info, glob, grep")
	for len(s.changed) > 0 {
		<-s.changed
	}

	require.NoError(t, s.FS.Dispose(t.Context()))
	waitChanged(t, s)
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		tl, err := cs.ListTools(t.Context(), nil)
		if assert.NoError(c, err) {
			assert.Empty(c, tl.Tools)
		}
	}, 5*time.Second, 20*time.Millisecond)
	assert.Empty(t, s.Registry.Prompt(), "the 10 prompt sections went with the tools")

	_, err = s.Host.Plugin(t.Context(), fslocal.Plugin, fslocal.Config{Cwd: s.W, Root: s.W})
	require.NoError(t, err)
	waitChanged(t, s)
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		tl, err := cs.ListTools(t.Context(), nil)
		if assert.NoError(c, err) {
			assert.Len(c, tl.Tools, 10)
		}
	}, 5*time.Second, 20*time.Millisecond)
}

// TestCancellationReachesTheTool: a client's cancellation reaches the
// tool's context.
func TestCancellationReachesTheTool(t *testing.T) {
	s := newStack(t)
	started, saw := make(chan struct{}), make(chan error, 1)
	_, err := s.Registry.Register(s.Host.Root(), tools.Tool{Name: "block", Parameters: []byte(`{"type":"object","properties":{}}`),
		Execute: func(ctx context.Context, _ tools.Args, _ *tools.Exec) (any, error) {
			close(started)
			select {
			case <-ctx.Done():
				saw <- ctx.Err()
			case <-time.After(10 * time.Second):
				saw <- nil
			}
			return nil, ctx.Err()
		}})
	require.NoError(t, err)
	cs := s.connect(t)
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-started; cancel() }()
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "block", Arguments: map[string]any{}})
	assert.Error(t, err)
	select {
	case got := <-saw:
		assert.ErrorIs(t, got, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("the tool never returned")
	}
}

// TestToolsHaveTitlesAndHints: every tool has a title clients show and
// says it stays in the workspace (openWorldHint false), besides its
// read-only and destructive hints (conversations.md §4.3).
func TestToolsHaveTitlesAndHints(t *testing.T) {
	s := newStack(t)
	tl, err := s.connect(t).ListTools(t.Context(), nil)
	require.NoError(t, err)
	titles := map[string]string{}
	for _, tool := range tl.Tools {
		titles[tool.Name] = tool.Title
		require.NotNil(t, tool.Annotations, tool.Name)
		require.NotNil(t, tool.Annotations.OpenWorldHint, tool.Name)
		assert.False(t, *tool.Annotations.OpenWorldHint, tool.Name)
	}
	assert.Equal(t, map[string]string{"list": "List directory", "read": "Read file", "write": "Write file", "edit": "Edit file",
		"move": "Move or rename", "delete": "Delete", "mkdir": "Make directory", "file_info": "File info",
		"glob": "Find files", "grep": "Search file contents"}, titles)
}

// TestProgressReachesTheClient: a call whose request carries a progress
// token gets the tool's progress as notifications/progress, throttled by
// the registry (nothing in the first second), in both eras; a call without
// a token gets none.
func TestProgressReachesTheClient(t *testing.T) {
	for _, version := range []string{oldProtocol, ""} {
		t.Run("protocol "+version, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newStack(t)
				_, err := s.Registry.Register(s.Host.Root(), tools.Tool{Name: "slow", Parameters: []byte(`{"type":"object","properties":{}}`),
					Execute: func(ctx context.Context, _ tools.Args, exec *tools.Exec) (any, error) {
						p := exec.Progress()
						for i := range 20 {
							p.Report(float64(i), 20, "step "+strconv.Itoa(i))
							time.Sleep(100 * time.Millisecond)
						}
						return "done", nil
					}})
				require.NoError(t, err)
				var got []float64
				st, ct := mcp.NewInMemoryTransports()
				ss, err := s.srv.MCP().Connect(t.Context(), st, nil)
				require.NoError(t, err)
				defer ss.Close()
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
					ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
						got = append(got, r.Params.Progress)
						assert.Equal(t, "tok", r.Params.ProgressToken)
						assert.Equal(t, float64(20), r.Params.Total)
					}}).Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
				require.NoError(t, err)
				defer cs.Close()
				p := &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}}
				p.SetProgressToken("tok")
				_, err = cs.CallTool(t.Context(), p)
				require.NoError(t, err)
				synctest.Wait()
				assert.Equal(t, []float64{10, 13, 16, 19}, got, "after 1 s, every 250 ms at most")
				got = nil
				_, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}})
				require.NoError(t, err)
				synctest.Wait()
				assert.Empty(t, got, "no token, no progress")
			})
		})
	}
}

// TestLogMessagesReachTheClientsThatAskForThem: a legacy session that set
// a level gets the warnings about its own calls and the server's
// announcements at or above it, and nothing before it sets one; a
// 2026-07-28 request gets its call's messages at the level its _meta names
// (conversations.md §4.3).
func TestLogMessagesReachTheClientsThatAskForThem(t *testing.T) {
	for _, version := range []string{oldProtocol, ""} {
		t.Run("protocol "+version, func(t *testing.T) {
			s := newStack(t)
			_, err := s.Registry.Register(s.Host.Root(), tools.Tool{Name: "chatty", Parameters: []byte(`{"type":"object","properties":{}}`),
				Execute: func(ctx context.Context, _ tools.Args, exec *tools.Exec) (any, error) {
					exec.Notify("info", "an info")
					exec.Notify("warning", "a warning")
					return "done", nil
				}})
			require.NoError(t, err)
			got := make(chan string, 16)
			st, ct := mcp.NewInMemoryTransports()
			ss, err := s.srv.MCP().Connect(t.Context(), st, nil)
			require.NoError(t, err)
			defer ss.Close()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
				LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
					got <- string(r.Params.Level) + " " + r.Params.Data.(string)
				}}).Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
			require.NoError(t, err)
			defer cs.Close()
			// The client handles notifications apart from responses, so the
			// messages are awaited (bounded); the levels are applied as the
			// server sends, so a message it dropped never comes.
			receive := func(n int) []string {
				var m []string
				for range n {
					select {
					case msg := <-got:
						m = append(m, msg)
					case <-time.After(5 * time.Second):
						t.Fatalf("%d of %d messages within 5 s: %q", len(m), n, m)
					}
				}
				return m
			}
			call := func(level string) {
				p := &mcp.CallToolParams{Name: "chatty", Arguments: map[string]any{}}
				if level != "" {
					p.Meta = mcp.Meta{mcp.MetaKeyLogLevel: level}
				}
				res, err := cs.CallTool(t.Context(), p)
				require.NoError(t, err)
				require.False(t, res.IsError)
			}
			call("")
			s.srv.Announce("info", "config reloaded: nothing changed")
			if version == oldProtocol {
				require.NoError(t, cs.SetLoggingLevel(t.Context(), &mcp.SetLoggingLevelParams{Level: "warning"}))
				call("")
				s.srv.Announce("info", "config reloaded: nothing changed")
				s.srv.Announce("error", "config reload refused")
				assert.ElementsMatch(t, []string{"warning a warning", "error config reload refused"}, receive(2),
					"at the session's level and above, and nothing before it set one")
			} else {
				call("info")
				call("warning")
				assert.ElementsMatch(t, []string{"info an info", "warning a warning", "warning a warning"}, receive(3),
					"at each request's level, and nothing for the request that named none")
			}
			require.NoError(t, cs.Ping(t.Context(), nil))
			assert.Empty(t, got)
		})
	}
}

// TestATimedOutCallWarnsItsSession: the server's warning about a call it
// timed out reaches the legacy session that made it.
func TestATimedOutCallWarnsItsSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := stacktest.New(t, stacktest.Options{})
		srv, err := mcpserver.New(st.Host.Root(), st.Registry, mcpserver.Options{Name: "test", Version: "1", Cwd: func() string { return st.W }, CallTimeout: time.Second})
		require.NoError(t, err)
		_, err = st.Registry.Register(st.Host.Root(), tools.Tool{Name: "stuck", Parameters: []byte(`{"type":"object","properties":{}}`),
			Execute: func(ctx context.Context, _ tools.Args, _ *tools.Exec) (any, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			}})
		require.NoError(t, err)
		var got []string
		sst, ct := mcp.NewInMemoryTransports()
		ss, err := srv.MCP().Connect(t.Context(), sst, nil)
		require.NoError(t, err)
		defer ss.Close()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
			LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
				got = append(got, string(r.Params.Level)+" "+r.Params.Data.(string))
			}}).Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: oldProtocol})
		require.NoError(t, err)
		defer cs.Close()
		require.NoError(t, cs.SetLoggingLevel(t.Context(), &mcp.SetLoggingLevelParams{Level: "info"}))
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "stuck", Arguments: map[string]any{}})
		require.NoError(t, err)
		require.True(t, res.IsError)
		synctest.Wait()
		assert.Equal(t, []string{"warning tool stuck: tool call timed out after 1000 ms"}, got)
	})
}
