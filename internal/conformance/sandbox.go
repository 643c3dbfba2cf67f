package conformance

import (
	_ "embed"
	"encoding/json"
	"strings"
)

//go:embed testdata/sandbox-cases.json
var sandboxCasesJSON []byte

// SandboxCases returns the fssandbox cases copied from the shared spec into
// testdata/sandbox-cases.json (sandbox.md; format: testdata/README.md).
func SandboxCases() ([]Case, error) { return decodeCases(sandboxCasesJSON) }

// FSSandboxFor returns the case's fssandbox overrides with the placeholder
// replaced by w in every string, lists included; nil when the case has no
// fssandbox key.
func (c Case) FSSandboxFor(w string) map[string]any {
	if c.FSSandbox == nil {
		return nil
	}
	out, _ := substValue(c.FSSandbox, w).(map[string]any)
	return out
}

func substValue(v any, w string) any {
	switch x := v.(type) {
	case string:
		return Subst(x, w)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = substValue(e, w)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = substValue(e, w)
		}
		return out
	}
	return v
}

// Deployment returns the deployment file a `dshhost run` of the case uses
// when it has an fssandbox key (sandbox.md §5 "Conformance runner"): the
// default deployment with an fssandbox entry, carrying the overrides, right
// after fslocal. The overrides are written as JSON, which is YAML flow
// syntax, so lists are flow sequences. ok is false without the key.
func (c Case) Deployment(w string) (yaml string, ok bool) {
	overrides := c.FSSandboxFor(w)
	if overrides == nil {
		return "", false
	}
	var b strings.Builder
	b.WriteString("plugins:\n  - name: fslocal\n  - name: fssandbox\n")
	if len(overrides) > 0 {
		enc, err := json.Marshal(overrides)
		if err != nil {
			return "", false
		}
		b.WriteString("    config: " + string(enc) + "\n")
	}
	b.WriteString("  - name: fspolicy\n  - name: toolfs\n")
	return b.String(), true
}
