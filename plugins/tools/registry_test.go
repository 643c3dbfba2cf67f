package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/tools"
)

const echoParams = `{"type":"object","properties":{"file_path":{"type":"string"},"offset":{"type":"number"},"flag":{"type":"boolean"}},"required":["file_path","content"]}`

type codedErr struct{}

func (codedErr) Error() string     { return "cannot read \"/w/x\": not found" }
func (codedErr) ErrorName() string { return "FsError" }
func (codedErr) ErrorCode() string { return "FS_NOT_FOUND" }

// newRegistry mounts the tools plugin on a fresh host and returns its
// registry and a scope to register tools on.
func newRegistry(t *testing.T) (*tools.Registry, *host.Scope) {
	t.Helper()
	h := host.New()
	t.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	inst, err := h.Plugin(t.Context(), tools.Plugin, nil)
	require.NoError(t, err)
	require.NoError(t, inst.Wait(t.Context()))
	reg, ok := tools.Key.Get(h.Root())
	require.True(t, ok)
	return reg, h.Root()
}

func register(t *testing.T, reg *tools.Registry, s *host.Scope, tool tools.Tool) host.Disposer {
	t.Helper()
	d, err := reg.Register(s, tool)
	require.NoError(t, err)
	return d
}

func TestExecuteValidatesArgumentsInContractOrder(t *testing.T) {
	reg, s := newRegistry(t)
	ran := false
	register(t, reg, s, tools.Tool{Name: "echo", Parameters: json.RawMessage(echoParams),
		Execute: func(context.Context, tools.Args, *tools.Exec) (any, error) { ran = true; return "ok", nil }})
	tests := []struct {
		name, args, want string
	}{
		{"missing keys in required order, then wrong types in declaration order", `{"flag":"x","offset":"2"}`,
			`Error: invalid arguments: missing required property "file_path"; missing required property "content"; "offset" must be a number; "flag" must be a boolean`},
		{"null is not absent", `{"file_path":"a","content":"","offset":null}`, `Error: invalid arguments: "offset" must be a number`},
		{"an array root is not an object", `[]`, `Error: invalid arguments: "arguments" must be an object`},
		{"an explicit null root is not an object", `null`, `Error: invalid arguments: "arguments" must be an object`},
		{"a number beyond float64 is not a number", `{"file_path":"a","content":"","offset":1e400}`, `Error: invalid arguments: "offset" must be a number`},
		{"a string where a string is declared but a number given", `{"file_path":3,"content":""}`, `Error: invalid arguments: "file_path" must be a string`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := reg.Execute(t.Context(), "echo", json.RawMessage(tc.args), nil)
			assert.True(t, res.IsError)
			assert.Equal(t, tc.want, res.Text())
			assert.Equal(t, "INVALID_ARGS", res.Code())
			assert.Equal(t, "ToolArgsError", res.Error.Info.Name)
		})
	}
	assert.False(t, ran, "the body never runs on invalid arguments")
}

func TestExecuteAcceptsNumberForms(t *testing.T) {
	reg, s := newRegistry(t)
	var got tools.Args
	register(t, reg, s, tools.Tool{Name: "echo", Parameters: json.RawMessage(echoParams),
		Execute: func(_ context.Context, a tools.Args, _ *tools.Exec) (any, error) { got = a; return "ok", nil }})
	res := reg.Execute(t.Context(), "echo", json.RawMessage(`{"file_path":"a","content":"","offset":1e0}`), nil)
	require.False(t, res.IsError, res.Text())
	off, ok := got.Number("offset")
	assert.True(t, ok)
	assert.Equal(t, 1.0, off)
}

// Unknown keys are refused after the other violations, in byte order, with
// the declared properties listed (contract §5.3 [D22]); a tool's ExtraKeys
// and the keys of a schema open to more pass.
func TestExecuteRefusesUnknownKeys(t *testing.T) {
	reg, s := newRegistry(t)
	var got tools.Args
	body := func(_ context.Context, a tools.Args, _ *tools.Exec) (any, error) { got = a; return "ok", nil }
	register(t, reg, s, tools.Tool{Name: "echo", Parameters: json.RawMessage(echoParams), ExtraKeys: []string{"why"}, Execute: body})
	register(t, reg, s, tools.Tool{Name: "open", Parameters: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":true}`), Execute: body})
	register(t, reg, s, tools.Tool{Name: "bare", Execute: body})

	res := reg.Execute(t.Context(), "echo", json.RawMessage(`{"zeta":1,"file_path":"a","offset":"x","Flag":true,"content":""}`), nil)
	assert.Equal(t, `Error: invalid arguments: "offset" must be a number; unknown property "Flag"; unknown property "zeta"; known properties: file_path, offset, flag`, res.Text())
	assert.Equal(t, "INVALID_ARGS", res.Code())
	assert.Nil(t, got, "the body never runs")

	res = reg.Execute(t.Context(), "echo", json.RawMessage(`{"file_path":"a","content":"","why":null}`), nil)
	require.False(t, res.IsError, res.Text())
	assert.True(t, got.Has("why"), "an extra key reaches the body as sent")

	res = reg.Execute(t.Context(), "open", json.RawMessage(`{"a":"x","b":2}`), nil)
	require.False(t, res.IsError, res.Text())
	assert.True(t, got.Has("b"))

	res = reg.Execute(t.Context(), "bare", json.RawMessage(`{"k":1}`), nil)
	assert.Equal(t, `Error: invalid arguments: unknown property "k"; known properties: none`, res.Text())
}

func TestExecuteTreatsMissingArgumentsAsEmptyObject(t *testing.T) {
	reg, s := newRegistry(t)
	register(t, reg, s, tools.Tool{Name: "noargs", Parameters: json.RawMessage(`{"type":"object","properties":{}}`),
		Execute: func(context.Context, tools.Args, *tools.Exec) (any, error) { return "fine", nil }})
	res := reg.Execute(t.Context(), "noargs", nil, nil)
	assert.False(t, res.IsError)
	assert.Equal(t, `"fine"`, res.Text())
}

func TestExecuteOutcomes(t *testing.T) {
	reg, s := newRegistry(t)
	register(t, reg, s, tools.Tool{Name: "coded", Execute: func(context.Context, tools.Args, *tools.Exec) (any, error) {
		return nil, errors.Join(errors.New("context"), codedErr{})
	}})
	register(t, reg, s, tools.Tool{Name: "plain", Execute: func(context.Context, tools.Args, *tools.Exec) (any, error) {
		return nil, errors.New("offset must be a positive integer")
	}})
	register(t, reg, s, tools.Tool{Name: "boom", Execute: func(context.Context, tools.Args, *tools.Exec) (any, error) {
		panic("boom")
	}})
	register(t, reg, s, tools.Tool{Name: "bad-output", Output: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`),
		Execute: func(context.Context, tools.Args, *tools.Exec) (any, error) { return map[string]any{"n": "x"}, nil }})

	t.Run("a coded error anywhere in the chain gives info", func(t *testing.T) {
		res := reg.Execute(t.Context(), "coded", nil, nil)
		assert.Equal(t, "Error: context\ncannot read \"/w/x\": not found", res.Text())
		assert.Equal(t, &tools.ErrorInfo{Name: "FsError", Code: "FS_NOT_FOUND"}, res.Error.Info)
	})
	t.Run("an uncoded error carries no info", func(t *testing.T) {
		res := reg.Execute(t.Context(), "plain", nil, nil)
		assert.Equal(t, "Error: offset must be a positive integer", res.Text())
		assert.Nil(t, res.Error.Info)
	})
	t.Run("a panicking body becomes an error result (host §6 item 26)", func(t *testing.T) {
		res := reg.Execute(t.Context(), "boom", nil, nil)
		assert.True(t, res.IsError)
		assert.Equal(t, `Error: tool "boom" panicked: boom`, res.Text())
		again := reg.Execute(t.Context(), "plain", nil, nil)
		assert.Equal(t, "Error: offset must be a positive integer", again.Text(), "other calls continue")
	})
	t.Run("an output that breaks the schema is a failure", func(t *testing.T) {
		res := reg.Execute(t.Context(), "bad-output", nil, nil)
		assert.True(t, res.IsError)
		assert.Contains(t, res.Text(), `Error: tool "bad-output" returned invalid output: `)
		assert.Equal(t, "INVALID_TOOL_OUTPUT", res.Code())
	})
	t.Run("an unknown tool is looked up before arguments are validated", func(t *testing.T) {
		res := reg.Execute(t.Context(), "rm", json.RawMessage(`[]`), nil)
		assert.Equal(t, `Error: unknown tool "rm"`, res.Text())
		assert.Equal(t, &tools.ErrorInfo{Name: "ToolNotFoundError", Code: "UNKNOWN_TOOL"}, res.Error.Info)
	})
}

func TestExecuteCancellation(t *testing.T) {
	reg, s := newRegistry(t)
	ran := 0
	register(t, reg, s, tools.Tool{Name: "work", Execute: func(ctx context.Context, _ tools.Args, _ *tools.Exec) (any, error) {
		ran++
		if v := ctx.Value(cancelKey{}); v != nil {
			v.(context.CancelFunc)()
		}
		return "done", nil
	}})
	t.Run("an already cancelled call runs nothing", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		res := reg.Execute(ctx, "work", nil, nil)
		assert.Equal(t, "Error: tool call aborted before dispatch", res.Text())
		assert.Equal(t, &tools.ErrorInfo{Name: "AbortError", Code: "ABORTED_BEFORE_DISPATCH"}, res.Error.Info)
		assert.Equal(t, 0, ran)
	})
	t.Run("a body that succeeds after cancellation is reported aborted", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		res := reg.Execute(context.WithValue(ctx, cancelKey{}, cancel), "work", nil, nil)
		assert.Equal(t, "Error: tool call aborted", res.Text())
		assert.Equal(t, &tools.ErrorInfo{Name: "AbortError", Code: "ABORTED"}, res.Error.Info)
		assert.Equal(t, 1, ran)
	})
}

type cancelKey struct{}

func TestCallRefusesArgumentsThatAreNotJSON(t *testing.T) {
	reg, s := newRegistry(t)
	register(t, reg, s, tools.Tool{Name: "x", Execute: func(context.Context, tools.Args, *tools.Exec) (any, error) { return 1, nil }})
	res := reg.Call(t.Context(), "x", map[string]any{"offset": math.NaN()}, nil)
	assert.Equal(t, "Error: tool execution arguments must be losslessly JSON-serializable", res.Text())
	assert.Nil(t, res.Error.Info)
}

func TestExecPassesSessionAndMetaOnlyAtTopLevel(t *testing.T) {
	reg, s := newRegistry(t)
	var seen *tools.Exec
	register(t, reg, s, tools.Tool{Name: "m",
		Execute: func(_ context.Context, _ tools.Args, e *tools.Exec) (any, error) { seen = e; return "v", nil },
		Render:  func(tools.Args, any) []tools.Block { return []tools.Block{tools.TextBlock("text")} },
		Meta:    func(tools.Args, any) any { return "meta" }})
	sess := &tools.Conversation{ID: "s1", Cwd: "/w"}
	res := reg.Execute(t.Context(), "m", nil, &tools.Exec{Conv: sess})
	assert.Equal(t, "text", res.Text())
	assert.Equal(t, "meta", res.Meta)
	id, ok := seen.SessionID()
	assert.True(t, ok)
	assert.Equal(t, "s1", id)
	assert.Equal(t, "m", seen.ToolName())
	assert.NotEmpty(t, seen.CallID)

	nested := reg.Execute(t.Context(), "m", nil, &tools.Exec{Parent: &tools.Exec{Tool: "outer"}})
	assert.Nil(t, nested.Meta)
	_, ok = (&tools.Exec{}).SessionID()
	assert.False(t, ok)
}

func TestRegisterRefusesDuplicatesAndInactiveScopes(t *testing.T) {
	reg, s := newRegistry(t)
	tool := tools.Tool{Name: "x", Execute: func(context.Context, tools.Args, *tools.Exec) (any, error) { return 1, nil }}
	register(t, reg, s, tool)
	_, err := reg.Register(s, tool)
	assert.EqualError(t, err, `tool "x" is already registered`)

	h := s.Host()
	inst, err := h.Plugin(t.Context(), host.Define("owner", func(context.Context, *host.Scope, struct{}) error { return nil }), nil)
	require.NoError(t, err)
	owner := inst.Scope()
	require.NoError(t, inst.Dispose(t.Context()))
	_, err = reg.Register(owner, tools.Tool{Name: "y", Execute: tool.Execute})
	assert.ErrorIs(t, err, host.ErrInactive)
	_, ok := reg.Lookup("y")
	assert.False(t, ok)
}

func TestDisposingTheOwnerWithdrawsToolsAndSections(t *testing.T) {
	reg, s := newRegistry(t)
	h := s.Host()
	before := h.Counts()
	changes := 0
	_, err := reg.OnChange(s, func() { changes++ })
	require.NoError(t, err)
	owner := host.Define("owner", func(_ context.Context, s *host.Scope, _ struct{}) error {
		for _, n := range []string{"list", "read"} {
			if _, err := reg.Register(s, tools.Tool{Name: n, Execute: func(context.Context, tools.Args, *tools.Exec) (any, error) { return 1, nil }}); err != nil {
				return err
			}
			if _, err := reg.AddSection(s, tools.Section{Name: "tool:" + n, Order: 100, Text: n}); err != nil {
				return err
			}
		}
		return nil
	})
	inst, err := h.Plugin(t.Context(), owner, nil)
	require.NoError(t, err)
	require.NoError(t, inst.Wait(t.Context()))
	assert.Len(t, reg.Tools(), 2)
	assert.Equal(t, "list\n\nread", reg.Prompt())
	require.NoError(t, inst.Dispose(t.Context()))
	assert.Empty(t, reg.Tools())
	assert.Empty(t, reg.Sections())
	assert.Equal(t, 8, changes, "4 registrations and 4 removals each notify")
	after := h.Counts()
	assert.Equal(t, before.Listeners, after.Listeners)
	assert.Equal(t, before.Effects+1, after.Effects, "only the OnChange watcher remains")
}

func TestPromptOrdersSectionsByOrderThenRegistration(t *testing.T) {
	reg, s := newRegistry(t)
	for _, sec := range []tools.Section{{"b", 101, "B"}, {"a", 99, "A"}, {"c", 101, "C"}, {"d", 100, "D"}} {
		_, err := reg.AddSection(s, sec)
		require.NoError(t, err)
	}
	assert.Equal(t, "A\n\nD\n\nB\n\nC", reg.Prompt())
}

func TestClassify(t *testing.T) {
	reg, s := newRegistry(t)
	exec := func(context.Context, tools.Args, *tools.Exec) (any, error) { return 1, nil }
	register(t, reg, s, tools.Tool{Name: "safe", Parameters: json.RawMessage(`{"type":"object","properties":{"n":{"type":"number"}}}`),
		Execute: exec, ConcurrencySafe: func(tools.Args) bool { return true }})
	register(t, reg, s, tools.Tool{Name: "plain", Execute: exec})
	assert.Equal(t, tools.Parallel, reg.Classify("safe", json.RawMessage(`{"n":1}`)))
	assert.Equal(t, tools.Exclusive, reg.Classify("safe", json.RawMessage(`{"n":"x"}`)), "invalid arguments are exclusive")
	assert.Equal(t, tools.Exclusive, reg.Classify("plain", nil), "no classifier is exclusive")
	assert.Equal(t, tools.Exclusive, reg.Classify("nope", nil), "unknown tools are exclusive")
}

// MCP clients get the parameters closed: additionalProperties false added
// unless the schema gives it (contract §5.3 [D22]).
func TestInputSchemaIsClosed(t *testing.T) {
	for params, want := range map[string]string{
		``:     `{"type":"object","additionalProperties":false}`,
		`null`: `{"type":"object","additionalProperties":false}`,
		`{}`:   `{"additionalProperties":false}`,
		`{"type":"object","properties":{"a":{"type":"string"}}}`: `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`,
		` {"type":"object"} `:                           `{"type":"object","additionalProperties":false}`,
		`{"type":"object","additionalProperties":true}`: `{"type":"object","additionalProperties":true}`,
	} {
		got := tools.Tool{Parameters: json.RawMessage(params)}.InputSchema()
		assert.JSONEq(t, want, string(got), "parameters %q", params)
	}
}
