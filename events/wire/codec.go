package wire

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// DefaultMaxArgumentBytes is the default bound of an intent's arguments on
// the wire, 1 MiB (plugin-protocol.md §1): past it they are sent as null
// with argumentsOmitted.
const DefaultMaxArgumentBytes = 1 << 20

// Target is a file on the wire (§1): Path is the display path (what the
// model typed, made absolute; for messages only), Key the provider's real
// path (null when the provider has none) and Rel that real path relative to
// the workspace's real path, slash-separated (null when the file is outside
// the workspace or has no real path). Guards match Rel or Key, never Path.
type Target struct {
	Path string  `json:"path"`
	Key  *string `json:"key"`
	Rel  *string `json:"rel"`
}

// Actor is the tool call behind an event (§1, conversations.md §1):
// Conversation is null for a call outside any conversation, Principal who
// presented it, Tool the tool's name and Call the call's id.
type Actor struct {
	Conversation *string `json:"conversation"`
	Principal    string  `json:"principal"`
	Tool         string  `json:"tool"`
	Call         string  `json:"call"`
}

// Intent is the params of fs/write-intent, fs/edit-intent and
// fs/remove-intent (§1). Type is the target's own type ("file",
// "directory", "symlink", "other") on fs/remove-intent, and absent on the
// others. Arguments are the call's arguments as JSON, or null when there are none or
// they serialize to more than the codec's bound, in which case
// ArgumentsOmitted is true (and otherwise absent). Actor is null for an
// intent dispatched outside any tool call.
type Intent struct {
	Target           Target          `json:"target"`
	Actor            *Actor          `json:"actor"`
	Arguments        json.RawMessage `json:"arguments"`
	ArgumentsOmitted bool            `json:"argumentsOmitted,omitempty"`
	Type             string          `json:"type,omitempty"`
}

// Observed is the params of the fs/observed notification (§1): Kind is
// "present" or "absent", Version the file's version (null when absent).
type Observed struct {
	Target  Target  `json:"target"`
	Kind    string  `json:"kind"`
	Version *string `json:"version"`
	Actor   *Actor  `json:"actor"`
}

// Closed is the params of the conversation/closed notification (§1).
type Closed struct {
	Conversation string `json:"conversation"`
}

// ToolCall is the params of tools/call (§1): the tool's name, the call's
// validated arguments and its actor.
type ToolCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Actor     *Actor          `json:"actor"`
}

// Codec builds the wire forms of the in-process payloads. Its zero value
// works: no real paths (every key and rel null) and the default bound.
type Codec struct {
	// Workspace is the workspace's real path (symlinks resolved, clean,
	// absolute): the base of every Rel. Empty: every Rel is null.
	Workspace string
	// RealPath reports a target's real path, as fsapi.RealPath does through
	// the fs service; nil, or false from it, makes Key and Rel null.
	RealPath func(fsapi.Target) (string, bool)
	// MaxArgumentBytes bounds an intent's arguments in bytes of JSON; 0
	// means DefaultMaxArgumentBytes.
	MaxArgumentBytes int
}

// Target returns t on the wire.
func (c *Codec) Target(t fsapi.Target) Target {
	out := Target{Path: t.DisplayPath}
	if c.RealPath == nil {
		return out
	}
	real, ok := c.RealPath(t)
	if !ok || real == "" {
		return out
	}
	out.Key = &real
	if rel, ok := relative(c.Workspace, real); ok {
		out.Rel = &rel
	}
	return out
}

// relative returns real relative to ws, slash-separated, and false when
// real is not ws or beneath it ("." for ws itself).
func relative(ws, real string) (string, bool) {
	switch {
	case ws == "":
		return "", false
	case real == ws:
		return ".", true
	case ws == "/":
		return strings.TrimPrefix(real, "/"), strings.HasPrefix(real, "/")
	case strings.HasPrefix(real, ws+"/"):
		return real[len(ws)+1:], true
	}
	return "", false
}

// callNamer is what an actor answers when it names its call: tools.Exec's
// Call method.
type callNamer interface{ Call() string }

// ActorOf returns a on the wire, or nil for a nil actor (an event outside
// any tool call).
func ActorOf(a events.Actor) *Actor {
	if a == nil {
		return nil
	}
	out := &Actor{Principal: a.Principal(), Tool: a.ToolName()}
	if id, ok := a.Conversation(); ok {
		out.Conversation = &id
	}
	if c, ok := a.(callNamer); ok {
		out.Call = c.Call()
	}
	return out
}

// Intent returns req on the wire.
func (c *Codec) Intent(req events.IntentRequest) Intent {
	in := Intent{Target: c.Target(req.Target), Actor: ActorOf(req.Actor), Type: string(req.Type)}
	if req.Arguments != nil {
		in.Arguments, in.ArgumentsOmitted = c.arguments(req.Arguments)
	}
	return in
}

// arguments returns args as JSON, or nil and true when they serialize to
// more than the bound. A lower bound of the size (the bytes of every string
// and key) is taken first, so a call whose content alone is past the bound
// is never serialized.
func (c *Codec) arguments(args map[string]any) (json.RawMessage, bool) {
	limit := c.MaxArgumentBytes
	if limit <= 0 {
		limit = DefaultMaxArgumentBytes
	}
	if minSize(args) > limit {
		return nil, true
	}
	raw, err := Marshal(args)
	if err != nil || len(raw) > limit {
		return nil, true
	}
	return raw, false
}

// minSize is a lower bound of v's JSON size: its strings' and keys' bytes.
func minSize(v any) int {
	switch v := v.(type) {
	case string:
		return len(v)
	case map[string]any:
		n := 0
		for k, x := range v {
			n += len(k) + minSize(x)
		}
		return n
	case []any:
		n := 0
		for _, x := range v {
			n += minSize(x)
		}
		return n
	}
	return 0
}

// Observed returns o on the wire.
func (c *Codec) Observed(o events.Observation) Observed {
	out := Observed{Target: c.Target(o.Target), Kind: string(o.Kind), Actor: ActorOf(o.Actor)}
	if o.Version != "" {
		v := string(o.Version)
		out.Version = &v
	}
	return out
}

// Marshal is json.Marshal without HTML escaping (so `<`, `>` and `&` stay
// as they are in a file's content): the JSON every carrier sends.
func Marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
