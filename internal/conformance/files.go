package conformance

import _ "embed"

//go:embed testdata/files-cases.json
var filesCasesJSON []byte

// FilesCases returns the cases of the entry tools (toolfiles: move,
// delete, mkdir, file_info; docs/files.md) and of read's images, in
// testdata/files-cases.json: the format of testdata/README.md, with the
// toolfiles key for toolfiles's config overrides.
func FilesCases() ([]Case, error) { return decodeCases(filesCasesJSON) }
