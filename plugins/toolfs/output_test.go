package toolfs

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

func resolveSchema(t *testing.T, raw string) *jsonschema.Resolved {
	t.Helper()
	var s jsonschema.Schema
	require.NoError(t, json.Unmarshal([]byte(raw), &s))
	r, err := s.Resolve(nil)
	require.NoError(t, err)
	return r
}

// validateJSON checks v's JSON form with a JSON Schema validator.
func validateJSON(t *testing.T, schema *jsonschema.Resolved, v any) error {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var doc any
	require.NoError(t, json.Unmarshal(b, &doc))
	return schema.Validate(doc)
}

// TestValuesMatchThePublishedSchemas: the values the tools build satisfy
// the output schemas of contract §6.2, and CheckOutput agrees with the
// generic validator on values that break them.
func TestValuesMatchThePublishedSchemas(t *testing.T) {
	before := "a\n"
	page, err := newListPage("/w", []fsapi.DirEntry{{Name: "d", Type: fsapi.TypeDirectory}, {Name: "f", Type: fsapi.TypeFile}, {Name: "s", Type: fsapi.TypeOther}}, 1, 200)
	require.NoError(t, err)
	empty, err := newListPage("/w", nil, 1, 200)
	require.NoError(t, err)
	tests := []struct {
		name   string
		schema string
		value  interface{ CheckOutput() error }
		valid  bool
	}{
		{"a list page", listOutput, page, true},
		{"an empty list page", listOutput, empty, true},
		{"a list page with a null entries array", listOutput, listPage{Path: "/w", Offset: 1}, false},
		{"a list entry of an unknown type", listOutput, listPage{Path: "/w", Offset: 1, Entries: []listEntry{{Name: "x", Type: fsapi.TypeSymlink}}}, false},
		{"a read window", readOutput, readValue{Path: "/w/a", Offset: 1, Lines: []line{{1, "a"}}, TotalLines: new(1)}, true},
		{"an empty read window", readOutput, readValue{Path: "/w/a", Offset: 1, Lines: []line{}, TotalLines: new(0)}, true},
		{"a capped read window states no total [D26]", readOutput, readValue{Path: "/w/a", Offset: 1, Lines: []line{{1, "a"}}}, true},
		{"a read window with null lines", readOutput, readValue{Path: "/w/a", Offset: 1}, false},
		{"a create", writeOutput, writeValue{Path: "/w/a", Operation: fsapi.OperationCreate, After: "x"}, true},
		{"an update", writeOutput, writeValue{Path: "/w/a", Operation: fsapi.OperationUpdate, Before: &before, After: "x"}, true},
		{"an unknown operation", writeOutput, writeValue{Path: "/w/a", Operation: "delete", After: "x"}, false},
		{"an edit", editOutput, editValue{Path: "/w/a", Before: "a", After: "b"}, true},
		{"a multi_edit", multiEditOutput, multiEditValue{Path: "/w/a", Before: "a", After: "b", edits: 1}, true},
		{"a multi_edit dry run", multiEditOutput, multiEditValue{Path: "/w/a", DryRun: true}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			generic := validateJSON(t, resolveSchema(t, tc.schema), tc.value)
			own := tc.value.CheckOutput()
			if tc.valid {
				assert.NoError(t, generic)
				assert.NoError(t, own)
			} else {
				assert.Error(t, generic)
				assert.Error(t, own)
			}
		})
	}
}
