package toolfs

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

func argsOf(t *testing.T, raw string) tools.Args {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(raw), &m))
	return tools.Args(m)
}

// TestSummariesMatchTheAdvertisedSchemas: every summary the tools build
// satisfies the schema MCP advertises for it (contract §5.4a [D20]), and
// none carries file content.
func TestSummariesMatchTheAdvertisedSchemas(t *testing.T) {
	ts := &toolset{cfg: DefaultConfig()}
	page, err := newListPage("/w", []fsapi.DirEntry{{Name: "d", Type: fsapi.TypeDirectory}, {Name: "f\xff", Type: fsapi.TypeFile}, {Name: "s", Type: fsapi.TypeOther}}, 2, 1)
	require.NoError(t, err)
	empty, err := newListPage("/w", nil, 1, 200)
	require.NoError(t, err)
	secret := "SECRET-FILE-CONTENT"
	window := readValue{Path: "/w/a", Offset: 3, Lines: []line{{3, secret}, {4, secret}}, TotalLines: new(10)}
	tests := []struct {
		name   string
		schema string
		got    any
		want   string
	}{
		{"a list page", listSummarySchema, summarizeList(nil, page),
			`{"path":"/w","offset":2,"shown":1,"total":3,"entries":[{"name":"f\ufffd","type":"file"}]}`},
		{"an empty list page", listSummarySchema, summarizeList(nil, empty),
			`{"path":"/w","offset":1,"shown":0,"total":0,"entries":[]}`},
		{"a read window under the call's limit", readSummarySchema, ts.summarizeRead(argsOf(t, `{"limit":2}`), window),
			`{"path":"/w/a","offset":3,"endLine":4,"totalLines":10,"capped":false}`},
		{"a read window short of its limit before the end", readSummarySchema, ts.summarizeRead(argsOf(t, `{}`), window),
			`{"path":"/w/a","offset":3,"endLine":4,"totalLines":10,"capped":true}`},
		{"a read window cut by the byte cap states no total [D26]", readSummarySchema, ts.summarizeRead(argsOf(t, `{}`), readValue{Path: "/w/a", Offset: 3, Lines: []line{{3, secret}}}),
			`{"path":"/w/a","offset":3,"endLine":3,"totalLines":null,"capped":true}`},
		{"an empty read window", readSummarySchema, ts.summarizeRead(argsOf(t, `{}`), readValue{Path: "/w/e", Offset: 1, Lines: []line{}, TotalLines: new(0)}),
			`{"path":"/w/e","offset":1,"endLine":0,"totalLines":0,"capped":false}`},
		{"a write", writeSummarySchema, summarizeWrite(nil, writeValue{Path: "/w/a", Operation: fsapi.OperationUpdate, Before: &secret, After: secret}),
			`{"path":"/w/a","operation":"update"}`},
		{"an edit", editSummarySchema, summarizeEdit(nil, editValue{Path: "/w/a\xff", Before: secret, After: secret, replacements: 3}),
			`{"path":"/w/a\ufffd","replacements":3}`},
		{"a multi_edit", multiEditSummarySchema, summarizeMultiEdit(nil, multiEditValue{Path: "/w/a", Before: secret, After: secret, edits: 2, replacements: 5}),
			`{"path":"/w/a","dryRun":false,"edits":2,"replacements":5}`},
		{"a multi_edit dry run", multiEditSummarySchema, summarizeMultiEdit(nil, multiEditValue{Path: "/w/a", DryRun: true, Before: secret, After: secret, edits: 1, replacements: 1}),
			`{"path":"/w/a","dryRun":true,"edits":1,"replacements":1}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, validateJSON(t, resolveSchema(t, tc.schema), tc.got))
			b, err := json.Marshal(tc.got)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(b))
			assert.NotContains(t, string(b), secret, "a summary never carries file content")
		})
	}
}

// TestEveryToolAdvertisesItsSummary: each of the four tools, and
// multi_edit, registers a summarizer with a summary schema that is a
// closed object.
func TestEveryToolAdvertisesItsSummary(t *testing.T) {
	ts := &toolset{cfg: DefaultConfig()}
	me, _ := (&toolset{fs: multiEditorStub{}}).multiEditTool()
	for _, tool := range append(ts.tools(), me) {
		t.Run(tool.Name, func(t *testing.T) {
			require.NotNil(t, tool.Summary)
			var sch map[string]any
			require.NoError(t, json.Unmarshal(tool.SummarySchema, &sch))
			assert.Equal(t, false, sch["additionalProperties"])
			assert.NotContains(t, string(tool.SummarySchema), `"lines"`)
			assert.False(t, strings.Contains(string(tool.SummarySchema), `"before"`) || strings.Contains(string(tool.SummarySchema), `"after"`))
		})
	}
}

// A list summary appends itself exactly as json.Marshal encodes it.
func TestListSummaryAppendsAsMarshal(t *testing.T) {
	names := []string{"plain.txt", `q"uote`, `back\slash`, "<a&b>", "line\u2028sep", "bad\xffname", "tab\tnl\n", "é日本🙂", ""}
	var entries []listEntry
	for i, n := range names {
		entries = append(entries, listEntry{Name: n, Type: []fsapi.EntryType{fsapi.TypeFile, fsapi.TypeDirectory, "other"}[i%3], raw: "x"})
	}
	for _, s := range []listSummary{
		{Path: "/w/<dir>", Offset: 1, Shown: len(entries), Total: 900, Entries: entries},
		{Path: "rel", Offset: 3, Shown: 0, Total: 2, Entries: []listEntry{}},
		{Path: "", Offset: -1, Entries: nil},
	} {
		want, err := json.Marshal(s)
		require.NoError(t, err)
		got, err := s.AppendJSON([]byte("prefix"))
		require.NoError(t, err)
		assert.Equal(t, "prefix"+string(want), string(got))
	}
}

// multiEditorStub is an fs service that can apply several edits; only its
// type matters here.
type multiEditorStub struct{ fsapi.FileSystem }

func (multiEditorStub) EditTexts(context.Context, fsapi.Target, fsapi.MultiEditRequest, *fsapi.EditGuard) (fsapi.EditOutcome, error) {
	return fsapi.EditOutcome{}, nil
}
