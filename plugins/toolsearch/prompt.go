package toolsearch

import "github.com/dsh-go/dsh/plugins/tools"

// sections are the prompt sections of the two tools, byte for byte
// (search.md §5.1, §6.1).
var sections = []tools.Section{
	{Name: "tool:glob", Order: 103, Text: `Use the glob tool rather than running find in a shell to locate files by name or path. A pattern without "/" is matched against file names in every directory ("*.go" finds all Go files); a pattern with "/" is matched against the whole path below the search directory ("cmd/*.go" looks only in cmd, "/*.go" only at the top). Results are files only, newest first, hidden and ignored files included. When a result is capped, continue with the offset named in its footer.`},
	{Name: "tool:grep", Order: 104, Text: `Use the grep tool rather than running grep or rg in a shell to search inside files. The pattern is a Go RE2 regular expression matched one line at a time; set ignore_case for case-insensitive matching and include to limit which files are searched. Hidden, binary and git-ignored files are skipped. Matches come grouped by file with line numbers; read a matched file to see the lines around a match. When a result is capped, continue with the offset named in its footer.`},
}
