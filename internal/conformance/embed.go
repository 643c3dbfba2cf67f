package conformance

import (
	_ "embed"
	"encoding/json"
)

//go:embed testdata/cases.json
var casesJSON []byte

//go:embed testdata/editor-cases.json
var editorCasesJSON []byte

// Cases returns the conformance cases copied from the shared spec into
// testdata (format: testdata/README.md): cases.json, then editor-cases.json.
func Cases() ([]Case, error) {
	var all []Case
	for _, src := range [][]byte{casesJSON, editorCasesJSON} {
		var cases []Case
		if err := json.Unmarshal(src, &cases); err != nil {
			return nil, err
		}
		all = append(all, cases...)
	}
	return all, nil
}
