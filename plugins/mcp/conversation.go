package mcp

import (
	"container/list"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ConversationMetaKey is the `_meta` key of a request that names its
// conversation (conversations.md §1 rule 1): a string of 1–128 bytes from
// [A-Za-z0-9._:-], chosen by the client.
const ConversationMetaKey = "io.github.dsh-go/conversation"

// maxHandle is the longest conversation handle, in bytes.
const maxHandle = 128

// The principals of the transports without a bearer token
// (conversations.md §1).
const (
	// PrincipalStdio presents every request of a stdio client.
	PrincipalStdio = "stdio"
	// PrincipalAnonymous presents every HTTP request under noAuth.
	PrincipalAnonymous = "anonymous"
	// PrincipalDefault names the single token of tokenFile or
	// DSH_MCP_TOKEN (or a generated one).
	PrincipalDefault = "default"
)

// The defaults of the conversation bounds (conversations.md §2).
const (
	// DefaultConversationIdleTimeout ends a conversation none of whose
	// calls started for this long.
	DefaultConversationIdleTimeout = 30 * time.Minute
	// DefaultMaxConversations bounds the live conversations; past it the
	// least recently active one ends.
	DefaultMaxConversations = 10000
)

// handleOf returns the conversation handle of a request's _meta, "" when it
// names none, or the JSON-RPC error (-32602 `invalid conversation handle:
// <reason>`) of a value that is no handle.
func handleOf(meta mcp.Meta) (string, error) {
	v, ok := meta[ConversationMetaKey]
	if !ok {
		return "", nil
	}
	invalid := func(reason string) error {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid conversation handle: " + reason}
	}
	h, ok := v.(string)
	switch {
	case !ok:
		return "", invalid(fmt.Sprintf("it must be a string, not %s", jsonKind(v)))
	case h == "":
		return "", invalid("it is empty")
	case len(h) > maxHandle:
		return "", invalid(fmt.Sprintf("it is %d bytes long; the limit is %d", len(h), maxHandle))
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; !handleByte(c) {
			shown := fmt.Sprintf("0x%02x", c)
			if c >= 0x20 && c < 0x7f {
				shown = fmt.Sprintf("%q", string(rune(c)))
			}
			return "", invalid(fmt.Sprintf("byte %d (%s) is not one of A-Z a-z 0-9 . _ : -", i, shown))
		}
	}
	return h, nil
}

// handleByte reports whether c may appear in a handle: [A-Za-z0-9._:-].
func handleByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-'
}

// jsonKind names the JSON type of a decoded value.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// conversationID derives the conversation of one request
// (conversations.md §1): the handle, else the legacy session's internal
// id, else the principal alone. byPrincipal reports the last case, whose
// conversation never has an approval channel (§3).
//
// session is the legacy session's internal id when the conversation is that
// session's (rule 2), whose end then ends it.
func (s *Server) conversationID(req *mcp.CallToolRequest, principal string) (id, session string, byPrincipal bool, err error) {
	var meta mcp.Meta
	if req.Params != nil {
		meta = req.Params.Meta
	}
	h, err := handleOf(meta)
	if err != nil {
		return "", "", false, err
	}
	if h != "" {
		return principal + "/c/" + h, "", false, nil
	}
	if ss := legacySession(req); ss != nil && !modernRequest(meta) {
		session = s.sessionID(ss)
		return principal + "/s/" + session, session, false, nil
	}
	return principal, "", true, nil
}

// modernRequest reports whether a request's _meta names a protocol version
// of 2026-07-28 or later: such a request takes its conversation from its
// handle or its principal, never from the connection it came on (a stdio
// process that also served a legacy session, conversations.md §4.1).
func modernRequest(meta mcp.Meta) bool {
	v, ok := meta[mcp.MetaKeyProtocolVersion].(string)
	return ok && v >= modernVersion
}

// principalOf returns who presented req: the name of its bearer token (set
// by the HTTP guard as the token's UserID), else the server's principal for
// requests without one ("stdio", or "anonymous" over HTTP without auth).
func (s *Server) principalOf(req *mcp.CallToolRequest) string {
	if req.Extra != nil && req.Extra.TokenInfo != nil && req.Extra.TokenInfo.UserID != "" {
		return req.Extra.TokenInfo.UserID
	}
	return s.principal
}

// sessionID returns the internal id of a legacy session, minted on its
// first call (never its Mcp-Session-Id, which is a bearer capability); when
// the session ends its conversation ends with it.
func (s *Server) sessionID(ss *mcp.ServerSession) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.sessions[ss]
	if !ok {
		id = uuid.NewString()
		s.sessions[ss] = id
		go func() {
			_ = ss.Wait()
			s.mu.Lock()
			delete(s.sessions, ss)
			s.mu.Unlock()
			s.conversations.endSession(id)
		}()
	}
	return id
}

// conversations is the front end's registry of live conversations
// (conversations.md §2): each is live from its first call until its legacy
// session ends, no call of it started for idle, or it is the least recently
// active one when more than max are live. When one ends, closed is called
// with its ID exactly once, after its last call returned; a call with the
// same ID meanwhile waits for that, then starts a new conversation.
type conversations struct {
	closed func(id string)

	mu        sync.Mutex
	max       int
	idle      time.Duration
	byID      map[string]*conversation
	bySession map[string]*conversation // legacy session id → its conversation
	active    list.List                // of *conversation, least recently started call first
	timer     *time.Timer              // fires at the earliest idle expiry
	armed     bool                     // timer is set to fire
	born      uint64                   // incarnations so far
}

// conversation is one live conversation.
type conversation struct {
	id          string
	incarnation uint64    // changes each time the ID starts anew (approval states bind it)
	last        time.Time // when its latest call started
	running     int       // calls begun and not ended
	session     string    // the legacy session whose end ends it, if any
	ending      bool      // ends once running is 0
	gone        chan struct{}
	elem        *list.Element
	asked       []time.Time // approval questions issued in the last minute, oldest first
}

func newConversations(max int, idle time.Duration, closed func(string)) *conversations {
	c := &conversations{closed: closed, byID: map[string]*conversation{}, bySession: map[string]*conversation{}}
	c.setBounds(max, idle)
	return c
}

// setBounds applies new bounds (a value ≤ 0 takes its default) from the
// next call on.
func (c *conversations) setBounds(max int, idle time.Duration) {
	if max <= 0 {
		max = DefaultMaxConversations
	}
	if idle <= 0 {
		idle = DefaultConversationIdleTimeout
	}
	c.mu.Lock()
	c.max, c.idle = max, idle
	c.mu.Unlock()
}

// begin starts one call of conversation id (session: the legacy session
// whose end ends it, "" for none) and returns the conversation and end,
// which must run when the call returned.
func (c *conversations) begin(id, session string) (*conversation, func()) {
	for {
		c.mu.Lock()
		v := c.byID[id]
		if v != nil && v.gone != nil {
			gone := v.gone
			c.mu.Unlock()
			<-gone // it is ending: its closed listeners run; then start anew
			continue
		}
		var evicted []*conversation
		if v == nil {
			c.born++
			v = &conversation{id: id, incarnation: c.born, session: session}
			v.elem = c.active.PushBack(v)
			c.byID[id] = v
			if session != "" {
				c.bySession[session] = v
			}
			evicted = c.evictLocked()
		} else {
			c.active.MoveToBack(v.elem)
		}
		v.running++
		v.last = time.Now()
		c.armLocked()
		c.mu.Unlock()
		c.end(evicted)
		var once sync.Once
		return v, func() { once.Do(func() { c.callEnded(v) }) }
	}
}

// evictLocked marks the least recently active idle conversations past max
// for ending and returns them; one with calls running is passed over.
func (c *conversations) evictLocked() []*conversation {
	var out []*conversation
	for e := c.active.Front(); e != nil && len(c.byID)-len(out) > c.max; e = e.Next() {
		if v := e.Value.(*conversation); v.running == 0 && v.gone == nil {
			v.gone = make(chan struct{})
			out = append(out, v)
		}
	}
	return out
}

// callEnded ends one call of v; the last call of a conversation whose
// session ended ends it.
func (c *conversations) callEnded(v *conversation) {
	c.mu.Lock()
	v.running--
	var ended []*conversation
	if v.running == 0 && v.ending && v.gone == nil {
		v.gone = make(chan struct{})
		ended = append(ended, v)
	}
	c.mu.Unlock()
	c.end(ended)
}

// endSession ends the conversation of legacy session id once its calls
// returned.
func (c *conversations) endSession(session string) {
	c.mu.Lock()
	v := c.bySession[session]
	var ended []*conversation
	if v != nil && v.gone == nil {
		v.ending = true
		if v.running == 0 {
			v.gone = make(chan struct{})
			ended = append(ended, v)
		}
	}
	c.mu.Unlock()
	c.end(ended)
}

// end emits conversation/closed for each conversation marked gone, then
// forgets it and lets the calls that wait on it go on.
func (c *conversations) end(vs []*conversation) {
	for _, v := range vs {
		c.closed(v.id)
		c.mu.Lock()
		c.active.Remove(v.elem)
		delete(c.byID, v.id)
		if v.session != "" && c.bySession[v.session] == v {
			delete(c.bySession, v.session)
		}
		c.mu.Unlock()
		close(v.gone)
	}
}

// armLocked arms the idle timer, unless it is armed, at the expiry of the
// least recently active conversation. A timer armed earlier than needed
// fires, expires nothing and re-arms (expire): a call never resets it.
func (c *conversations) armLocked() {
	if c.armed {
		return
	}
	c.armed = true
	d := time.Until(c.active.Front().Value.(*conversation).last.Add(c.idle))
	if c.timer == nil {
		c.timer = time.AfterFunc(d, c.expire)
		return
	}
	c.timer.Reset(d)
}

// expire ends every conversation idle for c.idle with no call running,
// then re-arms.
func (c *conversations) expire() {
	c.mu.Lock()
	now := time.Now()
	var ended []*conversation
	for e := c.active.Front(); e != nil; e = e.Next() {
		v := e.Value.(*conversation)
		if now.Sub(v.last) < c.idle {
			break
		}
		if v.running == 0 && v.gone == nil {
			v.gone = make(chan struct{})
			ended = append(ended, v)
		}
	}
	c.mu.Unlock()
	c.end(ended)
	c.mu.Lock()
	c.rearmLocked(now)
	c.mu.Unlock()
}

// rearmLocked arms the timer at the first expiry after now of a
// conversation with no call running (when every one has calls running, a
// full idle period later), or leaves it unarmed when none is live.
func (c *conversations) rearmLocked(now time.Time) {
	c.armed = false
	at := now.Add(c.idle)
	live := false
	for e := c.active.Front(); e != nil; e = e.Next() {
		v := e.Value.(*conversation)
		if v.gone != nil {
			continue
		}
		live = true
		if exp := v.last.Add(c.idle); v.running == 0 && exp.After(now) {
			at = exp
			break
		}
	}
	if live {
		c.armed = true
		c.timer.Reset(at.Sub(now))
	}
}

// live returns the number of live conversations.
func (c *conversations) live() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.byID)
}

// approvalsPerMinute bounds the approval questions issued per conversation
// in any minute (conversations.md §3), which bounds the used nonces too.
const approvalsPerMinute = 100

// allowQuestion records one approval question of v at now, or reports
// false when v asked approvalsPerMinute in the last minute.
func (c *conversations) allowQuestion(v *conversation, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := 0
	for i < len(v.asked) && now.Sub(v.asked[i]) >= time.Minute {
		i++
	}
	v.asked = v.asked[i:]
	if len(v.asked) >= approvalsPerMinute {
		return false
	}
	v.asked = append(v.asked, now)
	return true
}
