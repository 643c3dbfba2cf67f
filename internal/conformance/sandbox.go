package conformance

import (
	_ "embed"
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
