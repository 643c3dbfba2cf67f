package wire

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Decision is the answer to an intent (§1): `{"decision": "next"}`, or
// `{"decision": "deny", "message": <text>, "code": <CODE>}` with code
// optional.
type Decision struct {
	Decision string `json:"decision"`
	Message  string `json:"message,omitempty"`
	Code     string `json:"code,omitempty"`
}

// The decisions.
const (
	Next = "next"
	Deny = "deny"
)

// ParseDecision reads plugin's answer to an intent: deny is nil for
// `next` and a *Denied for `deny`; err is a *BrokenAnswer when raw is not
// an object with a known decision and string members (unknown members are
// ignored), which the carrier treats as a failure (§2).
func ParseDecision(plugin string, raw json.RawMessage) (deny, err error) {
	var d Decision
	if e := json.Unmarshal(raw, &d); e != nil || !IsObject(raw) {
		return nil, &BrokenAnswer{Problem: "not a decision object: " + preview(raw)}
	}
	switch d.Decision {
	case Next:
		return nil, nil
	case Deny:
		return NewDenied(plugin, d.Message, d.Code), nil
	}
	return nil, &BrokenAnswer{Problem: fmt.Sprintf("unknown decision %q", d.Decision)}
}

// ToolResult is a plugin tool's answer to tools/call (§1).
type ToolResult struct {
	Content []Content `json:"content"`
	IsError bool      `json:"isError"`
	Code    string    `json:"code,omitempty"`
}

// Content is one content block; only text blocks exist on the wire.
type Content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// ParseToolResult reads a tools/call answer: an object whose content is a
// list of text blocks; otherwise a *BrokenAnswer.
func ParseToolResult(raw json.RawMessage) (ToolResult, error) {
	var r ToolResult
	if err := json.Unmarshal(raw, &r); err != nil || !IsObject(raw) {
		return ToolResult{}, &BrokenAnswer{Problem: "not a tool result object: " + preview(raw)}
	}
	if r.Content == nil {
		return ToolResult{}, &BrokenAnswer{Problem: "a tool result needs content"}
	}
	for i, b := range r.Content {
		if b.Type != "text" {
			return ToolResult{}, &BrokenAnswer{Problem: fmt.Sprintf("content[%d] is not a text block", i)}
		}
	}
	return r, nil
}

// Text returns the concatenated text of r's blocks.
func (r ToolResult) Text() string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// IsObject reports whether raw, a valid JSON text, is an object (its first
// byte past white space is `{`): the shape of every answer's result.
func IsObject(raw json.RawMessage) bool {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c == '{'
	}
	return false
}

// preview quotes the first 64 bytes of raw, for a broken answer's message.
func preview(raw []byte) string {
	const n = 64
	if len(raw) > n {
		return fmt.Sprintf("%q...", raw[:n])
	}
	return fmt.Sprintf("%q", raw)
}

// PreviewLine quotes the first bytes of a line that is not JSON, for a
// broken answer's message.
func PreviewLine(line []byte) string { return preview(line) }
