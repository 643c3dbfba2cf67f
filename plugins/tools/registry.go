package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/google/uuid"

	"github.com/dsh-go/dsh/host"
)

// Registry holds the registered tools and prompt sections and runs calls
// (contract §5). It is safe for concurrent use: one read-write mutex guards
// the lists, and it is never held while a tool body or a change callback
// runs.
type Registry struct {
	mu       sync.RWMutex
	tools    []*entry        // registration order
	sections []*sectionEntry // prompt order
	watchers []*watcher
	// move is closed (and cleared) at each movement: a tool registered, a
	// call ended, a swap released (swap.go); swaps counts HoldSwap holds.
	move  chan struct{}
	swaps int
}

type entry struct {
	tool   Tool
	params paramSchema
	calls  inflight // drained when the tool is removed
	owner  string   // the id of the plugin instance that registered it; "" for none
	paused int      // HoldSwap holds on it (under the registry's mutex)

	// The output schema is compiled on the first call whose value has no
	// CheckOutput of its own, not at registration: boot stays cheap, and a
	// tool whose values check themselves never compiles it.
	outputOnce sync.Once
	output     *jsonschema.Resolved
	outputErr  error
}

// outputSchema returns the compiled output schema, nil when the tool has
// none. The schema's JSON was checked at registration; an error here is a
// schema the validator cannot resolve.
func (e *entry) outputSchema() (*jsonschema.Resolved, error) {
	e.outputOnce.Do(func() {
		var sch jsonschema.Schema
		if err := json.Unmarshal(e.tool.Output, &sch); err != nil {
			e.outputErr = fmt.Errorf("output schema: %w", err)
			return
		}
		e.output, e.outputErr = sch.Resolve(nil)
	})
	return e.output, e.outputErr
}

type watcher struct{ fn func() }

// NewRegistry returns an empty registry. The tools plugin makes one per
// activation; tests and embedders may make their own.
func NewRegistry() *Registry { return &Registry{} }

// Register adds t on behalf of s: the tool is listed and callable until s
// ends or the returned Disposer runs (contract §1: disposing toolfs
// unregisters its tools). It fails when t has no name or no Execute, when its
// parameter schema is malformed, when its output or summary schema is not a
// JSON object, when it has a Summary without a SummarySchema, when a tool of
// that name is already registered, or with host.ErrInactive when s is
// inactive. The output schema is compiled on first use, not here.
func (r *Registry) Register(s *host.Scope, t Tool) (host.Disposer, error) {
	if t.Name == "" || t.Execute == nil {
		return nil, errors.New("tools: a tool needs a name and an Execute function")
	}
	params, err := parseParams(t.Parameters)
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", t.Name, err)
	}
	if err := checkSchemaObject("output schema", t.Output); err != nil {
		return nil, fmt.Errorf("tool %q: %w", t.Name, err)
	}
	if err := checkSchemaObject("summary schema", t.SummarySchema); err != nil {
		return nil, fmt.Errorf("tool %q: %w", t.Name, err)
	}
	if t.Summary != nil && len(bytes.TrimSpace(t.SummarySchema)) == 0 {
		return nil, fmt.Errorf("tool %q: a Summary needs a SummarySchema", t.Name)
	}
	e := &entry{tool: t, params: params}
	if inst := s.Instance(); inst != nil {
		e.owner = inst.ID()
	}
	e.calls.left = r.signal
	r.mu.Lock()
	for _, x := range r.tools {
		if x.tool.Name == t.Name {
			r.mu.Unlock()
			return nil, fmt.Errorf("tool %q is already registered", t.Name)
		}
	}
	r.tools = append(r.tools, e)
	r.mu.Unlock()
	d, err := r.own(s, fmt.Sprintf("tool(%q)", t.Name), true, func() { r.tools = without(r.tools, e) },
		func(ctx context.Context) error { return e.calls.drain(ctx, t.Name) })
	if err != nil {
		return nil, err
	}
	r.changed()
	r.signal()
	return d, nil
}

// Tools returns the registered tools in registration order (contract §5.6:
// `list`, `read`, `write`, `edit` for toolfs).
func (r *Registry) Tools() []Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if len(r.tools) == 0 {
		return nil
	}
	out := make([]Tool, len(r.tools))
	for i, e := range r.tools {
		out[i] = e.tool
	}
	return out
}

// Lookup returns the tool called name.
func (r *Registry) Lookup(name string) (Tool, bool) {
	if e := r.find(name); e != nil {
		return e.tool, true
	}
	return Tool{}, false
}

func (r *Registry) find(name string) *entry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, e := range r.tools {
		if e.tool.Name == name {
			return e
		}
	}
	return nil
}

// OnChange registers fn to run after every change of the tool or section
// set (a tool plugin loading or unloading), on behalf of s; MCP front ends
// use it to send tools/list_changed. fn runs synchronously with no registry
// lock held and must not block.
func (r *Registry) OnChange(s *host.Scope, fn func()) (host.Disposer, error) {
	w := &watcher{fn: fn}
	r.mu.Lock()
	r.watchers = append(r.watchers, w)
	r.mu.Unlock()
	return r.own(s, "tools.onChange", false, func() { r.watchers = without(r.watchers, w) }, nil)
}

// changed calls the change watchers, outside the lock.
func (r *Registry) changed() {
	r.mu.RLock()
	watchers := slices.Clone(r.watchers)
	r.mu.RUnlock()
	for _, w := range watchers {
		_ = host.Protect("tools change watcher", func() error { w.fn(); return nil })
	}
}

// without removes x from list, in place (readers hold the read lock).
func without[T comparable](list []T, x T) []T {
	return slices.DeleteFunc(list, func(y T) bool { return y == x })
}

// own makes undo an effect of s labelled label: it runs (under the
// registry's mutex, then notifying the change watchers when notify is set,
// then waiting in drain when drain is not nil) when s ends or the returned
// Disposer runs. When s is inactive, undo runs at once and host.ErrInactive
// is returned.
func (r *Registry) own(s *host.Scope, label string, notify bool, undo func(), drain func(context.Context) error) (host.Disposer, error) {
	remove := func(ctx context.Context) error {
		r.mu.Lock()
		undo()
		r.mu.Unlock()
		if notify {
			r.changed()
		}
		if drain != nil {
			return drain(ctx)
		}
		return nil
	}
	d, err := s.Effect(label, remove)
	if err != nil {
		_ = remove(context.Background())
		return nil, err
	}
	return d, nil
}

// Error names and codes raised by the registry (contract §5.2).
const (
	abortName    = "AbortError"
	notFoundName = "ToolNotFoundError"
	argsName     = "ToolArgsError"
	outputName   = "ToolOutputError"
)

// Call runs the tool called name with in-process arguments (any value
// encoding/json can marshal). Arguments that cannot be encoded losslessly
// (NaN, ±Inf, channels...) give `tool execution arguments must be losslessly
// JSON-serializable`, with no info (contract §5.2 step 1). Otherwise as
// [Registry.Execute].
func (r *Registry) Call(ctx context.Context, name string, args any, exec *Exec) Result {
	raw, err := json.Marshal(args)
	if err != nil {
		return failure(errors.New("tool execution arguments must be losslessly JSON-serializable"))
	}
	return r.Execute(ctx, name, raw, exec)
}

// Execute runs one call of the tool called name with raw JSON arguments
// (empty raw means {}), following contract §5.2 in order: an already
// cancelled ctx gives `tool call aborted before dispatch`
// (AbortError/ABORTED_BEFORE_DISPATCH) and runs nothing; an unknown name
// gives `unknown tool "<name>"` (ToolNotFoundError/UNKNOWN_TOOL), after
// waiting for the tool to come back while a swap is held
// ([Registry.HoldSwap]); a tool whose plugin is unloading counts as unknown;
// invalid
// arguments give `invalid arguments: <v1>; <v2>` (ToolArgsError/
// INVALID_ARGS); then the body runs under panic containment. A successful
// value is checked against the output schema (ToolOutputError/
// INVALID_TOOL_OUTPUT), rendered, and given meta when exec has no parent; a
// body that succeeds after ctx was cancelled gives `tool call aborted`
// (AbortError/ABORTED). Any failure becomes a result with `Error: <message>`;
// Execute never panics and never returns an error. exec may be nil (no
// session); it is copied, with Tool set to name and a fresh CallID if empty.
func (r *Registry) Execute(ctx context.Context, name string, raw json.RawMessage, exec *Exec) Result {
	if ctx.Err() != nil {
		return failure(&Error{Name: abortName, Code: "ABORTED_BEFORE_DISPATCH", Message: "tool call aborted before dispatch"})
	}
	e, callCtx, leave := r.awaitSwap(ctx, name)
	if e != nil {
		ctx = callCtx
		defer leave()
	}
	if e == nil {
		return failure(&Error{Name: notFoundName, Code: "UNKNOWN_TOOL", Message: fmt.Sprintf(`unknown tool "%s"`, name)})
	}
	decoded, err := decodeArgs(raw)
	if err != nil {
		return failure(&Error{Name: argsName, Code: "INVALID_ARGS", Message: "invalid arguments: arguments are not valid JSON: " + err.Error()})
	}
	args, violations := e.params.validate(decoded, e.tool.ExtraKeys)
	if len(violations) > 0 {
		return failure(&Error{Name: argsName, Code: "INVALID_ARGS", Message: "invalid arguments: " + strings.Join(violations, "; ")})
	}
	x := Exec{Tool: name}
	if exec != nil {
		x = *exec
		x.Tool = name
	}
	if x.CallID == "" {
		x.CallID = uuid.NewString()
	}
	var value any
	err = host.Protect(fmt.Sprintf("tool %q", name), func() error {
		var err error
		value, err = e.tool.Execute(ctx, args, &x)
		return err
	})
	if pe := (*ProtocolError)(nil); errors.As(err, &pe) {
		return Result{IsError: true, Protocol: pe}
	}
	if in := (*InputRequired)(nil); errors.As(err, &in) && len(in.Requests) > 0 {
		return Result{IsError: true, Input: in}
	}
	if err != nil {
		return failure(err)
	}
	if ctx.Err() != nil {
		return failure(&Error{Name: abortName, Code: "ABORTED", Message: "tool call aborted"})
	}
	if len(e.tool.Output) > 0 {
		if err := checkOutput(e, value); err != nil {
			return failure(&Error{Name: outputName, Code: "INVALID_TOOL_OUTPUT", Message: fmt.Sprintf(`tool "%s" returned invalid output: %s`, name, err)})
		}
	}
	res := Result{Value: value}
	if err := host.Protect(fmt.Sprintf("tool %q", name), func() error {
		res.Content = render(e.tool, args, value)
		if x.Parent == nil && e.tool.Meta != nil {
			res.Meta = e.tool.Meta(args, value)
		}
		if e.tool.Summary != nil {
			res.Summary = e.tool.Summary(args, value)
		}
		return nil
	}); err != nil {
		return failure(err)
	}
	return res
}

// checkSchemaObject checks that a schema, when given, is a JSON object.
func checkSchemaObject(what string, raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	if raw[0] != '{' || !json.Valid(raw) {
		return fmt.Errorf("%s: not a JSON object", what)
	}
	return nil
}

func render(t Tool, args Args, value any) []Block {
	if t.Render != nil {
		return t.Render(args, value)
	}
	b, err := json.MarshalIndent(value, "", "  ")
	if err != nil {
		return []Block{TextBlock(fmt.Sprint(value))}
	}
	return []Block{TextBlock(string(b))}
}

// OutputChecker is implemented by structured values that check themselves
// against their tool's output schema. A value whose Go type already fixes
// the schema's shape (closed objects, required keys, JSON types) only has the
// rest to check (enums, arrays that must not be null), without the JSON round
// trip the generic check needs; the tool's tests must show that its values
// satisfy its published schema. CheckOutput returns the violations joined by
// "; ", or nil.
type OutputChecker interface {
	CheckOutput() error
}

// checkOutput validates value against e's output schema: through its own
// CheckOutput when it has one, else its JSON form with the generic
// validator, compiling the schema on first use (contract §5.2 step 7).
func checkOutput(e *entry, value any) error {
	if c, ok := value.(OutputChecker); ok {
		return c.CheckOutput()
	}
	schema, err := e.outputSchema()
	if err != nil {
		return err
	}
	b, err := json.Marshal(value)
	if err != nil {
		return err
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		return err
	}
	return schema.Validate(doc)
}

// Concurrency is the scheduling class of one call (contract §5.5).
type Concurrency int

const (
	// Exclusive calls run alone: a barrier between parallel runs.
	Exclusive Concurrency = iota
	// Parallel calls may run together with adjacent parallel calls.
	Parallel
)

// String returns "exclusive" or "parallel".
func (c Concurrency) String() string {
	if c == Parallel {
		return "parallel"
	}
	return "exclusive"
}

// Classify returns Parallel only when the tool exists, declares itself
// concurrency-safe for these arguments, and the arguments pass validation;
// everything else is Exclusive (contract §5.5).
func (r *Registry) Classify(name string, raw json.RawMessage) Concurrency {
	e := r.find(name)
	if e == nil || e.tool.ConcurrencySafe == nil {
		return Exclusive
	}
	decoded, err := decodeArgs(raw)
	if err != nil {
		return Exclusive
	}
	args, violations := e.params.validate(decoded, e.tool.ExtraKeys)
	if len(violations) > 0 || !e.tool.ConcurrencySafe(args) {
		return Exclusive
	}
	return Parallel
}
