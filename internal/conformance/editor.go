package conformance

import _ "embed"

//go:embed testdata/editor-cases.json
var editorCasesJSON []byte

// EditorCases returns the tooleditor cases copied from the shared spec into
// testdata/editor-cases.json (editor.md §16; format: testdata/README.md).
func EditorCases() ([]Case, error) { return decodeCases(editorCasesJSON) }
