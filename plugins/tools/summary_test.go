package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/tools"
)

// counted is a value with file content in it; its summary keeps only the
// count.
type counted struct {
	Path  string
	Lines []string
}

type countedSummary struct {
	Path  string `json:"path"`
	Lines int    `json:"lines"`
}

const countedSummarySchema = `{"type":"object","properties":{"path":{"type":"string"},"lines":{"type":"integer"}},"required":["path","lines"],"additionalProperties":false}`

func TestSummaryIsTheToolsOwnAndOnlyOnSuccess(t *testing.T) {
	reg, s := newRegistry(t)
	fail := false
	var sawArgs tools.Args
	register(t, reg, s, tools.Tool{Name: "count", Parameters: json.RawMessage(`{"type":"object","properties":{"k":{"type":"number"}}}`),
		Execute: func(context.Context, tools.Args, *tools.Exec) (any, error) {
			if fail {
				return nil, errors.New("no such file")
			}
			return counted{Path: "/w/a", Lines: []string{"x", "y"}}, nil
		},
		Summary: func(args tools.Args, v any) any {
			sawArgs = args
			c := v.(counted)
			return countedSummary{Path: c.Path, Lines: len(c.Lines)}
		},
		SummarySchema: json.RawMessage(countedSummarySchema),
	})

	res := reg.Execute(t.Context(), "count", json.RawMessage(`{"k":1}`), nil)
	require.False(t, res.IsError, res.Text())
	assert.Equal(t, countedSummary{Path: "/w/a", Lines: 2}, res.Summary)
	assert.Equal(t, counted{Path: "/w/a", Lines: []string{"x", "y"}}, res.Value, "the in-process value is still the full one")
	n, _ := sawArgs.Number("k")
	assert.Equal(t, 1.0, n, "the summarizer gets the call's arguments")

	fail = true
	res = reg.Execute(t.Context(), "count", nil, nil)
	assert.True(t, res.IsError)
	assert.Nil(t, res.Summary, "a failure has no summary")
}

func TestToolWithoutSummarizerHasNoSummary(t *testing.T) {
	reg, s := newRegistry(t)
	register(t, reg, s, tools.Tool{Name: "plain",
		Execute: func(context.Context, tools.Args, *tools.Exec) (any, error) { return "value", nil }})
	res := reg.Execute(t.Context(), "plain", nil, nil)
	require.False(t, res.IsError)
	assert.Nil(t, res.Summary)
	assert.Equal(t, "value", res.Value)
}

func TestPanickingSummarizerIsAFailureResult(t *testing.T) {
	reg, s := newRegistry(t)
	register(t, reg, s, tools.Tool{Name: "bad",
		Execute:       func(context.Context, tools.Args, *tools.Exec) (any, error) { return 1, nil },
		Summary:       func(tools.Args, any) any { panic("summary broke") },
		SummarySchema: json.RawMessage(`{"type":"object"}`),
	})
	res := reg.Execute(t.Context(), "bad", nil, nil)
	assert.True(t, res.IsError)
	assert.Equal(t, `Error: tool "bad" panicked: summary broke`, res.Text())
	assert.Nil(t, res.Summary)
}

func TestRegisterChecksSummaryAndOutputSchemas(t *testing.T) {
	reg, s := newRegistry(t)
	exec := func(context.Context, tools.Args, *tools.Exec) (any, error) { return nil, nil }
	_, err := reg.Register(s, tools.Tool{Name: "a", Execute: exec, Summary: func(tools.Args, any) any { return nil }})
	assert.EqualError(t, err, `tool "a": a Summary needs a SummarySchema`)
	_, err = reg.Register(s, tools.Tool{Name: "b", Execute: exec, SummarySchema: json.RawMessage(`[1]`)})
	assert.EqualError(t, err, `tool "b": summary schema: not a JSON object`)
	_, err = reg.Register(s, tools.Tool{Name: "c", Execute: exec, Output: json.RawMessage(`{"type":`)})
	assert.EqualError(t, err, `tool "c": output schema: not a JSON object`)
}

func TestOutputSchemaIsCompiledOnFirstUseNotAtRegistration(t *testing.T) {
	reg, s := newRegistry(t)
	// Valid JSON, but the reference cannot be resolved: compiling fails.
	// Registration succeeds because nothing is compiled there; the first
	// call that needs the schema reports it.
	register(t, reg, s, tools.Tool{Name: "unresolved", Output: json.RawMessage(`{"$ref":"#/$defs/missing"}`),
		Execute: func(context.Context, tools.Args, *tools.Exec) (any, error) { return map[string]any{}, nil }})
	res := reg.Execute(t.Context(), "unresolved", nil, nil)
	assert.True(t, res.IsError)
	assert.Equal(t, "INVALID_TOOL_OUTPUT", res.Code())
	assert.Contains(t, res.Text(), `Error: tool "unresolved" returned invalid output: `)
}
