package exec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/events/wire"
)

// initParams is the params of initialize (plugin-protocol.md §3).
type initParams struct {
	Protocol  string         `json:"protocol"`
	ID        string         `json:"id"`
	Settings  map[string]any `json:"settings"`
	Workspace *string        `json:"workspace"`
}

// initResult is the child's answer to initialize.
type initResult struct {
	Name    string     `json:"name"`
	Version string     `json:"version"`
	Events  []string   `json:"events"`
	Tools   []toolDecl `json:"tools"`
}

// toolDecl is one declared tool: MCP's tool shape.
type toolDecl struct {
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations *struct {
		Title           string `json:"title"`
		ReadOnlyHint    bool   `json:"readOnlyHint"`
		DestructiveHint bool   `json:"destructiveHint"`
	} `json:"annotations"`
}

// known are the events a child may declare: the intents it guards and the
// notifications it receives.
var (
	intents       = wire.Intents
	notifications = []string{events.FSObserved.Name(), events.ConversationClosed.Name()}
)

// initialize exchanges initialize with p within ctx and checks the answer;
// the error is a §2 cause.
func (e *entry) initialize(ctx context.Context, p *proc) (initResult, error) {
	settings := e.cfg.Settings
	if settings == nil {
		settings = map[string]any{}
	}
	params := initParams{Protocol: Protocol, ID: e.id, Settings: settings}
	if e.cfg.Workspace != "" {
		params.Workspace = &e.cfg.Workspace
	}
	raw, err := p.call(ctx, "initialize", params)
	if err != nil {
		return initResult{}, errors.New(e.cause(ctx, err, "initialize"))
	}
	var r initResult
	if err := json.Unmarshal(raw, &r); err != nil || !wire.IsObject(raw) {
		return initResult{}, fmt.Errorf("broken answer to initialize: %s", wire.PreviewLine(raw))
	}
	seen := map[string]bool{}
	for i, t := range r.Tools {
		switch {
		case t.Name == "":
			return initResult{}, fmt.Errorf("broken answer to initialize: tools[%d] has no name", i)
		case seen[t.Name]:
			return initResult{}, fmt.Errorf("broken answer to initialize: tool %q is declared twice", t.Name)
		}
		seen[t.Name] = true
	}
	return r, nil
}

// wants reports whether the child declared event.
func (r initResult) wants(event string) bool { return slices.Contains(r.Events, event) }

// toolNames returns the declared tools' names.
func (r initResult) toolNames() []string {
	names := make([]string, len(r.Tools))
	for i, t := range r.Tools {
		names[i] = t.Name
	}
	return names
}

// sameDeclaration reports whether r declares the events and tool names of
// o, in any order.
func (r initResult) sameDeclaration(o initResult) bool {
	same := func(a, b []string) bool {
		a, b = slices.Clone(a), slices.Clone(b)
		slices.Sort(a)
		slices.Sort(b)
		return slices.Equal(a, b)
	}
	return same(r.Events, o.Events) && same(r.toolNames(), o.toolNames())
}
