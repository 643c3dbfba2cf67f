package conformance

import (
	"encoding/json"
	"strings"
)

// DeploymentFile returns the case's deployment file: Deployment's, or the
// default deployment (fslocal, fssandbox, fspolicy, toolfs, toolfiles,
// toolsearch) when the case needs none of its own.
func (c Case) DeploymentFile(w string) string {
	if yaml, ok := c.Deployment(w); ok {
		return yaml
	}
	return "plugins:\n  - name: fslocal\n  - name: fssandbox\n  - name: fspolicy\n  - name: toolfs\n  - name: toolfiles\n  - name: toolsearch\n"
}

// Deployment returns the deployment file (YAML) a `dshhost run` of the case
// uses when it has an fssandbox or a tooleditor key, and false without
// either (the embedded default deployment then serves, with --policy and
// --set for the toolfs overrides). The file is the default deployment
// (fslocal, fssandbox, fspolicy, toolfs, toolfiles, toolsearch, the last with the case's
// toolsearch overrides) with the case's fssandbox
// overrides ({{W}} replaced by w; sandbox.md §5), then tooleditor with its
// overrides after toolfs (editor.md §16). Overrides are written as JSON,
// which is YAML flow syntax, so lists are flow sequences.
func (c Case) Deployment(w string) (yaml string, ok bool) {
	if c.FSSandbox == nil && c.ToolEditor == nil {
		return "", false
	}
	var b strings.Builder
	entry := func(name string, overrides map[string]any) bool {
		b.WriteString("  - name: " + name + "\n")
		if len(overrides) == 0 {
			return true
		}
		enc, err := json.Marshal(overrides)
		if err != nil {
			return false
		}
		b.WriteString("    config: " + string(enc) + "\n")
		return true
	}
	b.WriteString("plugins:\n")
	ok = entry("fslocal", nil) && entry("fssandbox", c.FSSandboxFor(w)) && entry("fspolicy", nil) && entry("toolfs", nil) &&
		entry("toolfiles", nil) && entry("toolsearch", c.ToolSearch)
	if c.ToolEditor != nil {
		ok = ok && entry("tooleditor", c.ToolEditor)
	}
	return b.String(), ok
}
