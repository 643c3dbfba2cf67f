package toolsearch

// ErrorName is the error name of the search tools' own coded errors
// (error.info.name, search.md §4.9).
const ErrorName = "SearchError"

// The codes of search.md §4.9.
const (
	CodeInvalidPattern = "SEARCH_INVALID_PATTERN"
	CodeAborted        = "SEARCH_ABORTED"
	CodeFailed         = "SEARCH_FAILED"
)

// Error is a coded search error (search.md §4.9). Error() is the contract
// message; the registry reports ErrorName and ErrorCode as the result's
// info.
type Error struct {
	Code    string
	Message string
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// ErrorName returns "SearchError".
func (e *Error) ErrorName() string { return ErrorName }

// ErrorCode returns the code, e.g. "SEARCH_ABORTED".
func (e *Error) ErrorCode() string { return e.Code }

// errAborted is SEARCH_ABORTED `<tool> was aborted before completion (tool
// timeout or caller cancellation)` (§4.8).
func errAborted(tool string) *Error {
	return &Error{Code: CodeAborted, Message: tool + " was aborted before completion (tool timeout or caller cancellation)"}
}

// errUnavailable is SEARCH_FAILED `<tool> is unavailable: the fs service
// cannot walk directories and open files` (§4.9).
func errUnavailable(tool string) *Error {
	return &Error{Code: CodeFailed, Message: tool + " is unavailable: the fs service cannot walk directories and open files"}
}

// errInvalidGlob is SEARCH_INVALID_PATTERN for glob's pattern (§5.2 step 4,
// what "glob pattern") or grep's include (§6.2 step 9, "grep include").
func errInvalidGlob(what, reason string) *Error {
	return &Error{Code: CodeInvalidPattern, Message: what + " is not a valid glob (" + reason + "); put a backslash before * ? [ ] { } or \\ to match that character literally"}
}

// errInvalidRegexp is SEARCH_INVALID_PATTERN for a pattern that does not
// compile (§6.2 step 7).
func errInvalidRegexp(reason string) *Error {
	return &Error{Code: CodeInvalidPattern, Message: "grep pattern is not a valid regular expression (" + reason + "); put a backslash before . * + ? ( ) [ ] { } ^ $ | or \\ to match that character literally"}
}

// errLineBreak is SEARCH_INVALID_PATTERN for a pattern holding a literal
// line feed (§6.2 step 8).
func errLineBreak() *Error {
	return &Error{Code: CodeInvalidPattern, Message: "grep pattern cannot match a line break: lines are searched one at a time, so search for a single line of the text"}
}
