package stacktest_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/fslocal"
	"github.com/dsh-go/dsh/plugins/fspolicy"
	"github.com/dsh-go/dsh/plugins/toolfs"
	"github.com/dsh-go/dsh/plugins/tools"
)

func write(t *testing.T, s *stacktest.Stack, name, text string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(s.W, name), []byte(text), 0o644))
}

func read(t *testing.T, s *stacktest.Stack, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.W, name))
	require.NoError(t, err)
	return string(b)
}

// TestValidationMessages: every argument check of the four tools, in the
// contract's order, as uncoded errors (contract §6.6.1, §6.7.1, §6.8, §6.9).
func TestValidationMessages(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{ToolFS: map[string]any{"readLimit": 5}})
	write(t, s, "a.txt", "a a a\n")
	sess := s.Conversation("v")
	tests := []struct {
		name, tool, args, want string
	}{
		{"list: a blank path", "list", `{"path":" \t\u3000"}`, "path must be a non-empty string when given"},
		{"list: offset zero", "list", `{"offset":0}`, "offset must be a positive integer"},
		{"list: a fractional offset", "list", `{"offset":1.5}`, "offset must be a positive integer"},
		{"read: a blank path comes first", "read", `{"file_path":"\u00a0","offset":0}`, "file_path must be a non-empty string"},
		{"read: a negative offset", "read", `{"file_path":"a.txt","offset":-1}`, "offset must be a positive integer"},
		{"read: offset before limit", "read", `{"file_path":"a.txt","offset":0.5,"limit":0}`, "offset must be a positive integer"},
		{"read: limit zero", "read", `{"file_path":"a.txt","limit":0}`, "limit must be a positive integer"},
		{"read: limit above readLimit", "read", `{"file_path":"a.txt","limit":6}`, "limit must be less than or equal to 5"},
		{"write: a blank path", "write", `{"file_path":"","content":"x"}`, "file_path must be a non-empty string"},
		{"write: permissions without justification", "write", `{"file_path":"n.txt","content":"x","sandbox_permissions":null}`, "invalid escalation: sandbox_permissions requires a justification"},
		{"write: justification alone", "write", `{"file_path":"n.txt","content":"x","justification":"because"}`, "invalid escalation: justification is only valid together with sandbox_permissions"},
		{"write: a blank justification", "write", `{"file_path":"n.txt","content":"x","sandbox_permissions":"x","justification":" "}`, "invalid justification: expected a non-empty sentence"},
		{"write: a justification that is not a string", "write", `{"file_path":"n.txt","content":"x","sandbox_permissions":"x","justification":3}`, "invalid justification: expected a non-empty sentence"},
		{"write: a valid escalation is not available", "write", `{"file_path":"n.txt","content":"x","sandbox_permissions":"x","justification":"needed"}`, "sandbox_permissions is not available in this composition (no sandboxing filesystem to escalate)"},
		{"edit: a blank path", "edit", `{"file_path":" ","old_string":"","new_string":""}`, "file_path must be a non-empty string"},
		{"edit: an empty old_string", "edit", `{"file_path":"a.txt","old_string":"","new_string":"x"}`, "old_string must be a non-empty string"},
		{"edit: equal strings, compared raw", "edit", `{"file_path":"a.txt","old_string":"a","new_string":"a"}`, "old_string and new_string must differ"},
		{"write: prefix_rule alone", "write", `{"file_path":"n.txt","content":"x","prefix_rule":["git"]}`, "invalid escalation: prefix_rule is only valid together with sandbox_permissions"},
		{"edit: escalation after validation", "edit", `{"file_path":"a.txt","old_string":"a","new_string":"b","justification":"j"}`, "invalid escalation: justification is only valid together with sandbox_permissions"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := s.Call(t.Context(), sess, tc.tool, tc.args)
			assert.True(t, res.IsError)
			assert.Equal(t, "Error: "+tc.want, res.Text())
			assert.Empty(t, res.Code(), "argument checks carry no code")
		})
	}
	_, err := os.Stat(filepath.Join(s.W, "n.txt"))
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing is written when an escalation check fires")

	res := s.Call(t.Context(), sess, "read", `{"file_path":"\u0085"}`)
	assert.Equal(t, "Error: cannot read \""+s.W+"/\u0085\": not found", res.Text(), "U+0085 is not blank: the path is resolved")
}

// TestToolfsFollowsItsServices is host §6 item 22.
func TestToolfsFollowsItsServices(t *testing.T) {
	ctx := t.Context()
	h := host.New()
	defer h.Shutdown(context.Background())
	tf, err := h.Plugin(ctx, toolfs.Plugin, nil)
	require.NoError(t, err)
	assert.Equal(t, host.StatePending, tf.State(), "toolfs waits without fs and tools")
	assert.Equal(t, []string{"fs", "tools"}, tf.Missing())
	_, err = h.Plugin(ctx, tools.Plugin, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"fs"}, tf.Missing())
	w, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	fs1, err := h.Plugin(ctx, fslocal.Plugin, fslocal.Config{Cwd: w, Root: w})
	require.NoError(t, err)
	require.Equal(t, host.StateActive, tf.State())
	reg, _ := tools.Key.Get(h.Root())
	assert.Len(t, reg.Tools(), 4)
	assert.Len(t, reg.Sections(), 4)

	fs2, err := h.Plugin(ctx, fslocal.Plugin, fslocal.Config{Cwd: w, Root: w})
	require.NoError(t, err)
	assert.Equal(t, host.StateFailed, fs2.State())
	assert.ErrorIs(t, fs2.Err(), host.ErrDuplicateService)
	assert.Equal(t, host.StateActive, fs1.State(), "the first provider is unaffected")
	assert.Len(t, reg.Tools(), 4)

	require.NoError(t, fs1.Dispose(ctx))
	assert.Equal(t, host.StatePending, tf.State())
	assert.Empty(t, reg.Tools(), "disposing fs withdraws the 4 tools")
	assert.Empty(t, reg.Sections(), "and the 4 prompt sections")

	_, err = h.Plugin(ctx, fslocal.Plugin, fslocal.Config{Cwd: w, Root: w})
	require.NoError(t, err)
	assert.Equal(t, host.StateActive, tf.State(), "a new provider brings them back")
	assert.Len(t, reg.Tools(), 4)
	assert.Len(t, reg.Sections(), 4)
}

// TestDisposingThePolicyGivesTheBareProvider is host §6 item 23, through
// the tools.
func TestDisposingThePolicyGivesTheBareProvider(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{})
	write(t, s, "a.txt", "hello world")
	sess := s.Conversation("s1")
	require.False(t, s.Call(t.Context(), sess, "read", `{"file_path":"a.txt"}`).IsError)
	require.NoError(t, s.Policy.Dispose(t.Context()))

	res := s.Call(t.Context(), s.Conversation("other"), "write", `{"file_path":"a.txt","content":"clobber"}`)
	assert.False(t, res.IsError, "an unread overwrite succeeds without the policy: %s", res.Text())
	res = s.Call(t.Context(), s.Conversation("other"), "edit", `{"file_path":"a.txt","old_string":"clobber","new_string":"edited"}`)
	assert.False(t, res.IsError, "an unread edit succeeds: %s", res.Text())
	assert.Equal(t, "edited", read(t, s, "a.txt"))

	_, err := s.Host.Plugin(t.Context(), fspolicy.Plugin, nil)
	require.NoError(t, err)
	res = s.Call(t.Context(), sess, "edit", `{"file_path":"a.txt","old_string":"edited","new_string":"x"}`)
	assert.Equal(t, `Error: edit requires reading "`+s.W+`/a.txt" first — read the file, then retry`, res.Text(), "a re-mounted policy starts empty, even for the session that read before")
}

// TestALaterDeciderIsNeverReached is host §6 item 24, through the tools.
func TestALaterDeciderIsNeverReached(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{})
	write(t, s, "a.txt", "x")
	reached := false
	_, err := events.FSWriteIntent.On(s.Host.Root(), func(context.Context, events.IntentRequest, host.Next[*fsapi.WriteIntent]) (*fsapi.WriteIntent, error) {
		reached = true
		return nil, nil // would mean "unconditional"
	})
	require.NoError(t, err)
	res := s.Call(t.Context(), s.Conversation("s"), "write", `{"file_path":"a.txt","content":"y"}`)
	assert.Equal(t, "FS_NOT_OBSERVED", res.Code(), "the policy decided CreateIfAbsent")
	assert.False(t, reached)
}

// TestObservationFailures is host §6 item 25 and contract §1.1 [D10].
func TestObservationFailures(t *testing.T) {
	t.Run("one failing listener: its error is the result, the file stays, later listeners run", func(t *testing.T) {
		s := stacktest.New(t, stacktest.Options{})
		var recorded []events.Observation
		_, err := events.FSObserved.On(s.Host.Root(), func(context.Context, events.Observation) error { return errors.New("boom") })
		require.NoError(t, err)
		_, err = events.FSObserved.On(s.Host.Root(), func(_ context.Context, o events.Observation) error { recorded = append(recorded, o); return nil })
		require.NoError(t, err)
		res := s.Call(t.Context(), s.Conversation("s"), "write", `{"file_path":"w.txt","content":"durable"}`)
		assert.Equal(t, "Error: boom", res.Text())
		assert.Nil(t, res.Error.Info)
		assert.Equal(t, "durable", read(t, s, "w.txt"))
		require.Len(t, recorded, 1)
		assert.Equal(t, events.Present, recorded[0].Kind)
		assert.NotEmpty(t, recorded[0].Version)
	})
	t.Run("several failures are joined with LF, info from the first coded one, panics included", func(t *testing.T) {
		s := stacktest.New(t, stacktest.Options{})
		_, err := events.FSObserved.On(s.Host.Root(), func(context.Context, events.Observation) error { return errors.New("first") })
		require.NoError(t, err)
		_, err = events.FSObserved.On(s.Host.Root(), func(context.Context, events.Observation) error { panic("second") })
		require.NoError(t, err)
		_, err = events.FSObserved.On(s.Host.Root(), func(context.Context, events.Observation) error {
			return fsapi.ErrChanged("write", "/x")
		})
		require.NoError(t, err)
		res := s.Call(t.Context(), s.Conversation("s"), "write", `{"file_path":"w.txt","content":"durable"}`)
		assert.Equal(t, "Error: first\nlistener of \"fs/observed\" panicked: second\ncannot write \"/x\": file changed since it was read", res.Text())
		assert.Equal(t, &tools.ErrorInfo{Name: "FsError", Code: "FS_STALE_VERSION"}, res.Error.Info)
	})
	t.Run("a failure after a read that found nothing keeps the not-found result", func(t *testing.T) {
		s := stacktest.New(t, stacktest.Options{})
		_, err := events.FSObserved.On(s.Host.Root(), func(context.Context, events.Observation) error { return errors.New("boom") })
		require.NoError(t, err)
		res := s.Call(t.Context(), s.Conversation("s"), "read", `{"file_path":"missing.txt"}`)
		assert.Equal(t, `Error: cannot read "`+s.W+`/missing.txt": not found`, res.Text())
		assert.Equal(t, "FS_NOT_FOUND", res.Code())
	})
}

// TestTheActorAnswersSessionAndTool: listeners see the execution value as
// the actor, and it answers both questions (contract §1.1).
func TestTheActorAnswersSessionAndTool(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{})
	type seen struct {
		session string
		ok      bool
		tool    string
	}
	var got []seen
	_, err := events.FSObserved.On(s.Host.Root(), func(_ context.Context, o events.Observation) error {
		id, ok := o.Actor.SessionID()
		got = append(got, seen{id, ok, o.Actor.ToolName()})
		return nil
	})
	require.NoError(t, err)
	s.Call(t.Context(), s.Conversation("s1"), "write", `{"file_path":"n.txt","content":"x"}`)
	s.Call(t.Context(), nil, "read", `{"file_path":"n.txt"}`)
	assert.Equal(t, []seen{{"s1", true, "write"}, {"", false, "read"}}, got)
}

// TestPolicyAcrossTwoSessions: one session's read never authorises another
// session's write or edit; a change by one makes the other's observation
// stale.
func TestPolicyAcrossTwoSessions(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{})
	write(t, s, "a.txt", "one two three")
	a, b := s.Conversation("a"), s.Conversation("b")
	ctx := t.Context()
	p := s.W + "/a.txt"
	require.False(t, s.Call(ctx, a, "read", `{"file_path":"a.txt"}`).IsError)

	res := s.Call(ctx, b, "edit", `{"file_path":"a.txt","old_string":"one","new_string":"1"}`)
	assert.Equal(t, `Error: edit requires reading "`+p+`" first — read the file, then retry`, res.Text())
	res = s.Call(ctx, b, "write", `{"file_path":"a.txt","content":"b"}`)
	assert.Equal(t, `Error: cannot overwrite existing "`+p+`" without reading it first — read the file, then retry`, res.Text())

	require.False(t, s.Call(ctx, b, "read", `{"file_path":"a.txt"}`).IsError)
	res = s.Call(ctx, b, "edit", `{"file_path":"a.txt","old_string":"two","new_string":"2"}`)
	require.False(t, res.IsError, res.Text())

	res = s.Call(ctx, a, "edit", `{"file_path":"a.txt","old_string":"one","new_string":"1"}`)
	assert.Equal(t, `Error: cannot edit "`+p+`": file changed since it was read — re-read the file, then retry`, res.Text())
	assert.Equal(t, "FS_STALE_VERSION", res.Code())
	assert.Equal(t, "one 2 three", read(t, s, "a.txt"))
}

// TestCancellation: a call cancelled before dispatch changes nothing; one
// cancelled after its write succeeded reports the abort although the file is
// on disk (contract §5.2 steps 2 and 9, E40).
func TestCancellation(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	res := s.Call(ctx, s.Conversation("s"), "write", `{"file_path":"n.txt","content":"x"}`)
	assert.Equal(t, "Error: tool call aborted before dispatch", res.Text())
	assert.Equal(t, "ABORTED_BEFORE_DISPATCH", res.Code())
	_, err := os.Stat(filepath.Join(s.W, "n.txt"))
	assert.ErrorIs(t, err, os.ErrNotExist)

	ctx, cancel = context.WithCancel(t.Context())
	defer cancel()
	var once sync.Once
	_, err = events.FSObserved.On(s.Host.Root(), func(context.Context, events.Observation) error { once.Do(cancel); return nil })
	require.NoError(t, err)
	res = s.Call(ctx, s.Conversation("s"), "write", `{"file_path":"n.txt","content":"x"}`)
	assert.Equal(t, "Error: tool call aborted", res.Text())
	assert.Equal(t, "ABORTED", res.Code())
	assert.Equal(t, "x", read(t, s, "n.txt"), "the write is already on disk")
}

// readOnly hides every capability of a provider but the core FileSystem,
// as io/fs tests hide StatFS (style §2.4).
type readOnly struct{ fsapi.FileSystem }

// TestReadIsTheSameWithoutStreaming: read returns the same text whether or
// not the provider streams and whatever readStreamMinSize says (contract
// §6.1).
func TestReadIsTheSameWithoutStreaming(t *testing.T) {
	results := readEveryWay(t, "a\r\nb\n\xef\xbb\xbfnot a BOM here\nlast", `{"file_path":"f.txt"}`)
	assert.Equal(t, results["read whole"], results["streamed"])
	assert.Equal(t, results["read whole"], results["streamed, provider cannot stream"])
	assert.Contains(t, results["read whole"], "1: a\n2: b\n3: \ufeffnot a BOM here\n4: last")
}

// TestReadOfALargeFileIsTheSameEveryWay: a 9 MiB file, whose lines after
// the window are still counted when the window ends at its limit, reads
// exactly as when it is read whole or streamed chunk by chunk, for windows
// at its start, middle and end, and out of range (contract §6.7).
func TestReadOfALargeFileIsTheSameEveryWay(t *testing.T) {
	var b strings.Builder
	b.WriteString("\uFEFF")
	lines := 0
	for ; b.Len() < 9<<20; lines++ {
		b.WriteString("ligne é€😀 ")
		b.WriteString(strings.Repeat("x", lines%13))
		b.WriteString("\r\n")
	}
	for total, text := range map[int]string{lines: b.String(), lines + 1: b.String() + "no final LF"} {
		for _, args := range []string{
			`{"file_path":"f.txt"}`,
			`{"file_path":"f.txt","offset":300000,"limit":3}`,
			`{"file_path":"f.txt","offset":` + strconv.Itoa(lines) + `}`,
			`{"file_path":"f.txt","offset":` + strconv.Itoa(lines+2) + `}`,
			`{"file_path":"f.txt","limit":1}`,
		} {
			results := readEveryWay(t, text, args)
			assert.Equal(t, results["read whole"], results["streamed"], args)
			assert.Equal(t, results["read whole"], results["streamed, provider cannot stream"], args)
			assert.Contains(t, results["read whole"], strconv.Itoa(total), "%s: every line is counted", args)
		}
	}
}

// contract §6.7.5a [D26]: a streamed read whose window ends at the byte cap
// does not read the rest of the file, so an invalid byte past the window is
// never met, and states no total; a window that ends at its limit reads to
// the end for its total and meets it.
func TestACappedStreamedReadReadsNoFurther(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{NoPolicy: true, ToolFS: map[string]any{"readStreamMinSize": 1}})
	line := strings.Repeat("x", 999) + "\n"
	write(t, s, "f.txt", strings.Repeat(line, 2000)+"\xff\n")
	res := s.Call(t.Context(), s.Conversation("s"), "read", `{"file_path":"f.txt"}`)
	require.False(t, res.IsError, res.Text())
	assert.Contains(t, res.Text(), "\n\n(Output capped. Showing lines 1-51. Use offset=52 to continue.)\n</content>")
	summary, err := json.Marshal(res.Summary)
	require.NoError(t, err)
	assert.Contains(t, string(summary), `"totalLines":null,"capped":true`)

	res = s.Call(t.Context(), s.Conversation("s"), "read", `{"file_path":"f.txt","limit":3}`)
	assert.True(t, res.IsError)
	assert.Equal(t, `Error: cannot read "`+s.W+`/f.txt": invalid UTF-8 text`, res.Text())
}

// readEveryWay writes text to f.txt in a fresh workspace and calls read
// with args three ways: read whole, streamed, and streamed through a
// provider that hides its capabilities. It returns each result's text
// (after the workspace path, which differs), prefixed "error: " for an
// error result.
func readEveryWay(t *testing.T, text, args string) map[string]string {
	t.Helper()
	results := map[string]string{}
	for name, variant := range map[string]struct {
		streamMin int
		hide      bool
	}{"read whole": {1 << 30, false}, "streamed": {1, false}, "streamed, provider cannot stream": {1, true}} {
		w, err := filepath.EvalSymlinks(t.TempDir())
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(w, "f.txt"), []byte(text), 0o644))
		h := host.New()
		ctx := t.Context()
		_, err = h.Plugin(ctx, tools.Plugin, nil)
		require.NoError(t, err)
		provider := host.Define("wrapped-fs", func(_ context.Context, s *host.Scope, _ struct{}) error {
			p, err := fslocal.New(fslocal.Config{Cwd: w, Root: w})
			if err != nil {
				return err
			}
			var fsys fsapi.FileSystem = p
			if variant.hide {
				fsys = readOnly{p}
			}
			_, err = fsapi.Key.Provide(s, fsys)
			return err
		})
		_, err = h.Plugin(ctx, provider, nil)
		require.NoError(t, err)
		tc := toolfs.DefaultConfig()
		tc.ReadStreamMinSize = int64(variant.streamMin)
		_, err = h.Plugin(ctx, toolfs.Plugin, tc)
		require.NoError(t, err)
		require.NoError(t, h.Audit())
		reg, _ := tools.Key.Get(h.Root())
		res := reg.Execute(ctx, "read", []byte(args), &tools.Exec{Conv: &tools.Conversation{ID: "s", Cwd: w}})
		out := strings.ReplaceAll(res.Text(), w, "<w>")
		if res.IsError {
			out = "error: " + out
		}
		results[name] = out
		_ = h.Shutdown(context.Background())
	}
	return results
}

// TestNonTextReadAuthorisesAReplace is contract §4 [D14]: a read refused as binary or invalid UTF-8 records a present
// observation, so the write that follows replaces the file, and an edit
// fails in the provider, not in the policy. Large files take the streamed
// path, which must record the same.
func TestNonTextReadAuthorisesAReplace(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{ToolFS: map[string]any{"readStreamMinSize": 1024}})
	tests := []struct{ name, content, readErr, editErr string }{
		{"bin", "a\x00b", "binary file", "binary file"},
		{"latin1", "caf\xe9\n", "invalid UTF-8 text", "invalid UTF-8 text"},
		{"bigbin", strings.Repeat("x", 4096) + "\x00", "binary file", "binary file"},
		{"biglatin1", strings.Repeat("x", 4096) + "\xe9", "invalid UTF-8 text", "invalid UTF-8 text"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			write(t, s, tc.name, tc.content)
			sess := s.Conversation("d14-" + tc.name)
			p := filepath.Join(s.W, tc.name)
			res := s.Call(t.Context(), sess, "read", `{"file_path":"`+tc.name+`"}`)
			assert.Equal(t, `Error: cannot read "`+p+`": `+tc.readErr, res.Text())
			res = s.Call(t.Context(), sess, "edit", `{"file_path":"`+tc.name+`","old_string":"x","new_string":"y"}`)
			assert.Equal(t, `Error: cannot edit "`+p+`": `+tc.editErr, res.Text(), "the edit reaches the provider")
			assert.Equal(t, "FS_NOT_TEXT", res.Code())
			res = s.Call(t.Context(), sess, "write", `{"file_path":"`+tc.name+`","content":"text\n"}`)
			assert.False(t, res.IsError, res.Text())
			assert.Equal(t, "text\n", read(t, s, tc.name))
		})
	}
	t.Run("another session is still refused", func(t *testing.T) {
		write(t, s, "other", "\x00")
		res := s.Call(t.Context(), s.Conversation("reader"), "read", `{"file_path":"other"}`)
		require.True(t, res.IsError)
		res = s.Call(t.Context(), s.Conversation("writer"), "write", `{"file_path":"other","content":"x"}`)
		assert.Equal(t, "FS_NOT_OBSERVED", res.Code())
	})
}
