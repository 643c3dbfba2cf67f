package conformance

import "encoding/json"

// Deployment returns the deployment file (JSON) that `dshhost run` needs
// for c, and false when the embedded default deployment serves (with
// --policy and --set for the toolfs overrides). A case with a tooleditor
// key gets fslocal, fspolicy, toolfs, then tooleditor with its overrides
// (editor.md §16); --policy still decides whether fspolicy is mounted.
func (c Case) Deployment() ([]byte, bool) {
	if c.ToolEditor == nil {
		return nil, false
	}
	type entry struct {
		Name   string         `json:"name"`
		Config map[string]any `json:"config,omitempty"`
	}
	plugins := []entry{{Name: "fslocal"}, {Name: "fspolicy"}, {Name: "toolfs"}, {Name: "tooleditor", Config: c.ToolEditor}}
	b, err := json.Marshal(map[string]any{"plugins": plugins})
	if err != nil {
		return nil, false // overrides come from JSON, so they marshal back
	}
	return b, true
}
