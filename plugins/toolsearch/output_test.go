package toolsearch

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestValuesMatchThePublishedSchemas: the values glob and grep build
// satisfy their output schemas (search.md §5.1, §6.1), and CheckOutput
// agrees with a JSON Schema validator on values that break them.
func TestValuesMatchThePublishedSchemas(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		value  interface{ CheckOutput() error }
		valid  bool
	}{
		{"a glob value", globOutput, globValue{Root: ".", Offset: 1, Paths: []string{"a.go"}, TotalPaths: 1, KeptPaths: 1}, true},
		{"an empty glob value", globOutput, globValue{Root: ".", Offset: 1, Paths: []string{}}, true},
		{"a glob value with null paths", globOutput, globValue{Root: ".", Offset: 1}, false},
		{"a grep value", grepOutput, grepValue{Root: ".", Offset: 1, Matches: []grepMatch{{"a.go", 1, "x"}}, TotalMatches: 1, FilesSearched: 1, Stop: stopLimit}, true},
		{"an empty grep value", grepOutput, grepValue{Root: ".", Offset: 1, Matches: []grepMatch{}, Stop: stopNone}, true},
		{"a grep value with null matches", grepOutput, grepValue{Root: ".", Offset: 1, Stop: stopNone}, false},
		{"a grep value with a bad stop", grepOutput, grepValue{Root: ".", Offset: 1, Matches: []grepMatch{}, Stop: "later"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s jsonschema.Schema
			require.NoError(t, json.Unmarshal([]byte(tc.schema), &s))
			r, err := s.Resolve(nil)
			require.NoError(t, err)
			b, err := json.Marshal(tc.value)
			require.NoError(t, err)
			var doc any
			require.NoError(t, json.Unmarshal(b, &doc))
			assert.Equal(t, tc.valid, r.Validate(doc) == nil, "validator")
			assert.Equal(t, tc.valid, tc.value.CheckOutput() == nil, "CheckOutput")
		})
	}
}
