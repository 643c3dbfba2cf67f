package tools

import (
	"errors"
	"strconv"
	"strings"
)

// Block is one piece of a result's content (contract §5.4): text (Type
// "text", Text), an image or an audio clip (Type "image" or "audio", Data
// and MIMEType), or an embedded resource (Type "resource", URI, MIMEType,
// and Text or Data). The registry and the filesystem tools make text
// blocks; a front end sends each kind as its protocol's content (MCP's
// text, image, audio and resource content).
type Block struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Data     []byte `json:"data,omitempty"`
	MIMEType string `json:"mimeType,omitempty"`
	URI      string `json:"uri,omitempty"`
}

// TextBlock returns a text block.
func TextBlock(text string) Block { return Block{Type: "text", Text: text} }

// ImageBlock returns an image block of data, a file of type mimeType (e.g.
// "image/png").
func ImageBlock(mimeType string, data []byte) Block {
	return Block{Type: "image", Data: data, MIMEType: mimeType}
}

// AudioBlock returns an audio block of data, of type mimeType.
func AudioBlock(mimeType string, data []byte) Block {
	return Block{Type: "audio", Data: data, MIMEType: mimeType}
}

// ResourceBlock returns an embedded resource: uri with its text, or with
// data when text is empty and data is not.
func ResourceBlock(uri, mimeType, text string, data []byte) Block {
	return Block{Type: "resource", URI: uri, MIMEType: mimeType, Text: text, Data: data}
}

// describe is a block's text for a reader of text only (`dshhost call` and
// `run`): a text block's text; `[image/png, 1234 bytes]` for an image or
// audio clip; `[resource <uri>]` and its text for a resource.
func (b Block) describe() string {
	switch b.Type {
	case "image", "audio":
		return "[" + b.MIMEType + ", " + strconv.Itoa(len(b.Data)) + " bytes]"
	case "resource":
		if b.Text != "" {
			return "[resource " + b.URI + "]\n" + b.Text
		}
		return "[resource " + b.URI + ", " + strconv.Itoa(len(b.Data)) + " bytes]"
	}
	return b.Text
}

// ProtocolError fails a call as a request: the front end answers with its
// protocol's error (MCP: a JSON-RPC error of Code, Message and Data), not
// with a result. Tools of this project never do; it is the seam of tools
// that exercise a protocol (the MCP conformance fixtures).
type ProtocolError struct {
	Code    int64
	Message string
	Data    any
}

// Error returns the message; a tool returns a *ProtocolError as its error
// and the registry makes it the result's Protocol.
func (e *ProtocolError) Error() string { return e.Message }

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
	// Protocol, when set, is the answer instead of the result: a protocol
	// error of the request.
	Protocol *ProtocolError
	// Input, when set, is the answer instead of the result: the call
	// needs its client's input first ([InputRequired]); IsError is set, so
	// that a caller with no client to ask (`dshhost call`) sees a failure.
	Input *InputRequired
}

// Text returns the concatenated text of the content blocks: for the
// filesystem tools, the exact text the model sees. A block of another kind
// is described in a line of its own (Block.describe). A result without
// content that is a protocol error or an input request reads
// `Error: <message>`, for callers with no protocol (`dshhost call`).
func (r Result) Text() string {
	switch {
	case len(r.Content) > 0:
	case r.Protocol != nil:
		return "Error: " + r.Protocol.Message
	case r.Input != nil:
		return "Error: " + r.Input.Error()
	}
	if len(r.Content) == 1 {
		return r.Content[0].describe()
	}
	var b strings.Builder
	for i, c := range r.Content {
		if i > 0 && (c.Type != "text" || r.Content[i-1].Type != "text") {
			b.WriteByte('\n')
		}
		b.WriteString(c.describe())
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

// ErrInvalidArgs is the registry's ToolArgsError/INVALID_ARGS of
// violations: `invalid arguments: <v1>; <v2>` (contract §5.2). A tool
// raises it for a violation inside an argument that the input schema
// cannot express, such as an unknown key of a multi_edit item.
func ErrInvalidArgs(violations ...string) *Error {
	return &Error{Name: argsName, Code: "INVALID_ARGS", Message: "invalid arguments: " + strings.Join(violations, "; ")}
}

// failure builds the failure result of err (contract §5.2 step 8).
func failure(err error) Result {
	f := &Failure{Message: err.Error()}
	var coded CodedError
	if errors.As(err, &coded) {
		f.Info = &ErrorInfo{Name: coded.ErrorName(), Code: coded.ErrorCode()}
	}
	return Result{IsError: true, Content: []Block{TextBlock("Error: " + f.Message)}, Error: f}
}
