package tools

import (
	"errors"
	"strings"
)

// Block is one piece of a result's content. The registry only makes text
// blocks: Type "text" with Text set (contract §5.4).
type Block struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// TextBlock returns a text block.
func TextBlock(text string) Block { return Block{Type: "text", Text: text} }

// ErrorInfo is the `{name, code}` of a coded failure (contract §5.2 step 8),
// e.g. {"FsError", "FS_NOT_FOUND"} or {"ToolArgsError", "INVALID_ARGS"}.
type ErrorInfo struct {
	Name string `json:"name"`
	Code string `json:"code"`
}

// Failure describes a failed call: Message is the error's text (without the
// `Error: ` prefix of the content), Info is present only for coded errors.
type Failure struct {
	Message string     `json:"message"`
	Info    *ErrorInfo `json:"info,omitempty"`
}

// Result is what every call returns (contract §5.4). On success IsError is
// false, Value is the structured value (in process only, checked against the
// tool's output schema), Meta the optional metadata of a top-level call, and
// Summary the tool's summary (nil without a [Summarizer]), which MCP sends
// as structuredContent (contract §5.4a [D20]). On failure IsError is true,
// Content is the single text block `Error: <message>`, Error describes it,
// and there is no Value and no Summary.
type Result struct {
	IsError bool
	Content []Block
	Value   any
	Meta    any
	Summary any
	Error   *Failure
}

// Text returns the concatenated text of the content blocks: for the
// filesystem tools, the exact text the model sees.
func (r Result) Text() string {
	if len(r.Content) == 1 {
		return r.Content[0].Text
	}
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// Code returns the failure's info code, or "" when there is none.
func (r Result) Code() string {
	if r.Error == nil || r.Error.Info == nil {
		return ""
	}
	return r.Error.Info.Code
}

// CodedError is the interface by which the registry recognises a coded
// error anywhere in an error chain (contract §5.2 step 8): fsapi.Error
// implements it, and so does the registry's own [Error].
type CodedError interface {
	error
	ErrorName() string
	ErrorCode() string
}

// Error is a coded error raised by the registry itself: unknown tools,
// invalid arguments, invalid output, aborts (contract §5.2).
type Error struct {
	Name    string
	Code    string
	Message string
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// ErrorName returns the kind name, e.g. "ToolArgsError".
func (e *Error) ErrorName() string { return e.Name }

// ErrorCode returns the code, e.g. "INVALID_ARGS".
func (e *Error) ErrorCode() string { return e.Code }

// failure builds the failure result of err (contract §5.2 step 8).
func failure(err error) Result {
	f := &Failure{Message: err.Error()}
	var coded CodedError
	if errors.As(err, &coded) {
		f.Info = &ErrorInfo{Name: coded.ErrorName(), Code: coded.ErrorCode()}
	}
	return Result{IsError: true, Content: []Block{TextBlock("Error: " + f.Message)}, Error: f}
}
