package toolsearch_test

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/stacktest"
)

// TestSummariesMatchTheAdvertisedSchemas: glob's and grep's MCP summaries
// (search.md §5.6, §6.8) are what the spec lists, satisfy the schemas the
// tools advertise, and never carry a matched line.
func TestSummariesMatchTheAdvertisedSchemas(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{ToolSearch: map[string]any{"grepMaxMatches": 2}})
	writeFiles(t, s.W, map[string]string{"a.txt": "SECRET x\nSECRET x\nSECRET x\n", "b/c\xff.txt": "SECRET x\n"})
	tests := []struct{ tool, args, want string }{
		{"grep", `{"pattern":"x"}`, `{"root":".","offset":1,"shownMatches":2,"totalMatches":4,"files":2}`},
		{"grep", `{"pattern":"x","offset":3}`, `{"root":".","offset":3,"shownMatches":2,"totalMatches":4,"files":2}`},
		{"grep", `{"pattern":"nothing"}`, `{"root":".","offset":1,"shownMatches":0,"totalMatches":0,"files":0}`},
		{"glob", `{"pattern":"*.txt","path":"b"}`, `{"root":"b","offset":1,"paths":["b/c\ufffd.txt"],"totalPaths":1}`},
		{"glob", `{"pattern":"none"}`, `{"root":".","offset":1,"paths":[],"totalPaths":0}`},
	}
	for _, tc := range tests {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			res := s.Call(t.Context(), s.Conversation("s"), tc.tool, tc.args)
			require.False(t, res.IsError, res.Text())
			b, err := json.Marshal(res.Summary)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(b))
			assert.NotContains(t, string(b), "SECRET")
			tool, ok := s.Registry.Lookup(tc.tool)
			require.True(t, ok)
			var schema jsonschema.Schema
			require.NoError(t, json.Unmarshal(tool.SummarySchema, &schema))
			resolved, err := schema.Resolve(nil)
			require.NoError(t, err)
			var doc any
			require.NoError(t, json.Unmarshal(b, &doc))
			assert.NoError(t, resolved.Validate(doc))
		})
	}
}
