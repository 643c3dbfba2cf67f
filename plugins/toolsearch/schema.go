package toolsearch

import "strconv"

// The model-facing schemas, byte for byte with the key order of search.md
// §5.1 and §6.1. The descriptions name the configured page sizes.

// globDescription returns the glob description with n (the configured
// globMaxResults) in it.
func globDescription(n int) string {
	return "Find files by glob pattern. Returns paths of files only, never directories, newest first, relative to the session workspace; hidden and ignored files are included and VCS metadata directories (.git, .svn, .hg, .bzr, .jj, .sl) are skipped. Up to " + strconv.Itoa(n) + " paths are returned from the requested offset, and the footer gives the total plus a next offset when more remain."
}

const globParameters = `{"type":"object","properties":{"pattern":{"type":"string","description":"Glob to match. Without \"/\" it is matched against each file's name at any depth (\"*.go\", \"*.{ts,tsx}\"); with \"/\" it is matched against the path below the search directory (\"src/**/*.go\"), and a leading \"/\" anchors a pattern at that directory (\"/*.md\"). Wildcards: * and ? (never crossing \"/\"), ** (any number of directories), [abc], [!abc], {a,b}; a backslash makes the next character literal."},"path":{"type":"string","description":"Directory whose tree is searched; the session workspace when omitted. A relative path is taken from the workspace."},"offset":{"type":"number","description":"1-based position of the first path to return. Defaults to 1; take the next value from the footer."}},"required":["pattern"]}`

// grepDescription returns the grep description with n (the configured
// grepMaxMatches) in it.
func grepDescription(n int) string {
	return "Search file contents with a Go RE2 regular expression, one line at a time. Returns the matching lines with their line numbers, grouped by file, files in path order; hidden files, binary files and files excluded by .gitignore or .ignore are skipped. Up to " + strconv.Itoa(n) + " matches are returned from the requested offset, and the footer gives the count plus a next offset when more remain. Read a matched file for the lines around a match."
}

const grepParameters = `{"type":"object","properties":{"pattern":{"type":"string","description":"Regular expression, Go RE2 syntax (no backreferences or lookaround). Matched against each line without its line ending; put a backslash before . * + ? ( ) [ ] { } ^ $ | to match that character literally."},"path":{"type":"string","description":"File or directory to search; the session workspace when omitted. A relative path is taken from the workspace. A file named here is searched even if it is hidden, ignored or binary."},"include":{"type":"string","description":"One glob selecting the files searched, matched like a glob pattern: \"*.go\", \"*.{ts,tsx}\", \"src/**/*.py\". One pattern, not a list; no \"!\" negation."},"ignore_case":{"type":"boolean","description":"Match letters regardless of case. Defaults to false."},"offset":{"type":"number","description":"1-based position of the first match to return. Defaults to 1; take the next value from the footer."}},"required":["pattern"]}`

// Output schemas (search.md §5.1, §6.1): closed objects, every key
// required.

const globOutput = `{"type":"object","properties":{"root":{"type":"string"},"offset":{"type":"integer"},"paths":{"type":"array","items":{"type":"string"}},"totalPaths":{"type":"integer"},"keptPaths":{"type":"integer"},"unreadable":{"type":"integer"}},"required":["root","offset","paths","totalPaths","keptPaths","unreadable"],"additionalProperties":false}`

const grepOutput = `{"type":"object","properties":{"root":{"type":"string"},"offset":{"type":"integer"},"matches":{"type":"array","items":{"type":"object","properties":{"path":{"type":"string"},"lineNumber":{"type":"integer"},"line":{"type":"string"}},"required":["path","lineNumber","line"],"additionalProperties":false}},"totalMatches":{"type":"integer"},"filesSearched":{"type":"integer"},"stop":{"enum":["none","limit","time"]},"skippedLarge":{"type":"integer"},"unreadable":{"type":"integer"}},"required":["root","offset","matches","totalMatches","filesSearched","stop","skippedLarge","unreadable"],"additionalProperties":false}`
