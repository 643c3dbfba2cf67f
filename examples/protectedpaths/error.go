package protectedpaths

import "github.com/dsh-go/dsh/plugins/fsapi"

// ErrorName is the kind name of [Error], reported by the tool registry as
// error.info.name.
const ErrorName = "ProtectedPathError"

// Code is the code of [Error], reported by the tool registry as
// error.info.code.
const Code = "PATH_PROTECTED"

// Error is the refusal of a write, an edit or a removal whose target is
// protected. Its
// message is, byte for byte,
//
//	cannot <op> "<path>": the path is protected by rule "<rule>"
//
// with Op `write`, `edit` or `remove`, Path the target's display path (invalid UTF-8
// shown as U+FFFD, as fsapi.Display does) and Rule the pattern as
// configured. The quotes are literal. The tool registry finds it through
// ErrorName and ErrorCode and reports {name: "ProtectedPathError", code:
// "PATH_PROTECTED"} (contract §5.2 step 8).
type Error struct {
	// Op is the refused operation: "write", "edit" or "remove".
	Op string
	// Path is the target's display path.
	Path string
	// Rule is the matching pattern, as configured.
	Rule string
}

// Error returns `cannot <op> "<path>": the path is protected by rule "<rule>"`.
func (e *Error) Error() string {
	return `cannot ` + e.Op + ` "` + fsapi.Display(e.Path) + `": the path is protected by rule "` + e.Rule + `"`
}

// ErrorName returns "ProtectedPathError".
func (e *Error) ErrorName() string { return ErrorName }

// ErrorCode returns "PATH_PROTECTED".
func (e *Error) ErrorCode() string { return Code }
