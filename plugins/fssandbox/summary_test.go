package fssandbox_test

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fssandbox"
)

// TestTheValueIsTheMCPSummary: sandbox_mode's summary (structuredContent
// over MCP, contract §5.4a) is its value, and satisfies the advertised
// schema (sandbox.md §4.2).
func TestTheValueIsTheMCPSummary(t *testing.T) {
	b := newBox(t, map[string]any{"sessionSwitch": true}, false)
	tool, ok := b.Registry.Lookup(fssandbox.ToolName)
	require.True(t, ok)
	res := b.call(t, "sandbox_mode", `{"mode":"read-only"}`)
	require.False(t, res.IsError, res.Text())
	assert.Equal(t, res.Value, res.Summary)

	var sch jsonschema.Schema
	require.NoError(t, json.Unmarshal(tool.SummarySchema, &sch))
	resolved, err := sch.Resolve(nil)
	require.NoError(t, err)
	raw, err := json.Marshal(res.Summary)
	require.NoError(t, err)
	assert.JSONEq(t, `{"mode":"read-only","previous":"workspace-write"}`, string(raw))
	var doc any
	require.NoError(t, json.Unmarshal(raw, &doc))
	assert.NoError(t, resolved.Validate(doc))
}
