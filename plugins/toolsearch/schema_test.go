package toolsearch

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The schemas and prompt sections of search.md §5.1 and §6.1, byte for
// byte, as the spec prints them for the default config.
const (
	specGlobSchema = "{\"name\":\"glob\",\"description\":\"Find files by glob pattern. Returns paths of files only, never directories, newest first, relative to the session workspace; hidden and ignored files are included and VCS metadata directories (.git, .svn, .hg, .bzr, .jj, .sl) are skipped. Up to 100 paths are returned from the requested offset, and the footer gives the total plus a next offset when more remain.\",\"parameters\":{\"type\":\"object\",\"properties\":{\"pattern\":{\"type\":\"string\",\"description\":\"Glob to match. Without \\\"/\\\" it is matched against each file's name at any depth (\\\"*.go\\\", \\\"*.{ts,tsx}\\\"); with \\\"/\\\" it is matched against the path below the search directory (\\\"src/**/*.go\\\"), and a leading \\\"/\\\" anchors a pattern at that directory (\\\"/*.md\\\"). Wildcards: * and ? (never crossing \\\"/\\\"), ** (any number of directories), [abc], [!abc], {a,b}; a backslash makes the next character literal.\"},\"path\":{\"type\":\"string\",\"description\":\"Directory whose tree is searched; the session workspace when omitted. A relative path is taken from the workspace.\"},\"offset\":{\"type\":\"number\",\"description\":\"1-based position of the first path to return. Defaults to 1; take the next value from the footer.\"}},\"required\":[\"pattern\"]}}"
	specGrepSchema = "{\"name\":\"grep\",\"description\":\"Search file contents with a Go RE2 regular expression, one line at a time. Returns the matching lines with their line numbers, grouped by file, files in path order; hidden files, binary files and files excluded by .gitignore or .ignore are skipped. Up to 250 matches are returned from the requested offset, and the footer gives the count plus a next offset when more remain. Read a matched file for the lines around a match.\",\"parameters\":{\"type\":\"object\",\"properties\":{\"pattern\":{\"type\":\"string\",\"description\":\"Regular expression, Go RE2 syntax (no backreferences or lookaround). Matched against each line without its line ending; put a backslash before . * + ? ( ) [ ] { } ^ $ | to match that character literally.\"},\"path\":{\"type\":\"string\",\"description\":\"File or directory to search; the session workspace when omitted. A relative path is taken from the workspace. A file named here is searched even if it is hidden, ignored or binary.\"},\"include\":{\"type\":\"string\",\"description\":\"One glob selecting the files searched, matched like a glob pattern: \\\"*.go\\\", \\\"*.{ts,tsx}\\\", \\\"src/**/*.py\\\". One pattern, not a list; no \\\"!\\\" negation.\"},\"ignore_case\":{\"type\":\"boolean\",\"description\":\"Match letters regardless of case. Defaults to false.\"},\"offset\":{\"type\":\"number\",\"description\":\"1-based position of the first match to return. Defaults to 1; take the next value from the footer.\"}},\"required\":[\"pattern\"]}}"
	specGlobPrompt = "Use the glob tool rather than running find in a shell to locate files by name or path. A pattern without \"/\" is matched against file names in every directory (\"*.go\" finds all Go files); a pattern with \"/\" is matched against the whole path below the search directory (\"cmd/*.go\" looks only in cmd, \"/*.go\" only at the top). Results are files only, newest first, hidden and ignored files included. When a result is capped, continue with the offset named in its footer."
	specGrepPrompt = "Use the grep tool rather than running grep or rg in a shell to search inside files. The pattern is a Go RE2 regular expression matched one line at a time; set ignore_case for case-insensitive matching and include to limit which files are searched. Hidden, binary and git-ignored files are skipped. Matches come grouped by file with line numbers; read a matched file to see the lines around a match. When a result is capped, continue with the offset named in its footer."
)

// TestSchemasAndSectionsAreTheSpecs checks the model-facing texts byte for
// byte: each tool's {"name","description","parameters"} as search.md prints
// it, and the prompt sections.
func TestSchemasAndSectionsAreTheSpecs(t *testing.T) {
	se := &searcher{cfg: DefaultConfig()}
	ts := se.tools()
	require.Len(t, ts, 2)
	for i, want := range []string{specGlobSchema, specGrepSchema} {
		got, err := json.Marshal(struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}{ts[i].Name, ts[i].Description, ts[i].Parameters})
		require.NoError(t, err)
		assert.Equal(t, want, string(got))
	}
	assert.Equal(t, specGlobPrompt, sections[0].Text)
	assert.Equal(t, specGrepPrompt, sections[1].Text)

	se.cfg.GlobMaxResults, se.cfg.GrepMaxMatches = 7, 9
	ts = se.tools()
	assert.Contains(t, ts[0].Description, " Up to 7 paths are returned ")
	assert.Contains(t, ts[1].Description, " Up to 9 matches are returned ")
}
