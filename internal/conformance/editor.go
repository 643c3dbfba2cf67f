package conformance

import _ "embed"

//go:embed testdata/editor-cases.json
var editorCasesJSON []byte

//go:embed testdata/project-editor-cases.json
var projectEditorCasesJSON []byte

// EditorCases returns the tooleditor cases copied from the shared spec into
// testdata/editor-cases.json (editor.md §16), with the project's own of
// testdata/project-editor-cases.json (withProject; format:
// testdata/README.md).
func EditorCases() ([]Case, error) { return withProject(editorCasesJSON, projectEditorCasesJSON) }
