package conformance

import (
	_ "embed"
	"encoding/json"
)

//go:embed testdata/cases.json
var casesJSON []byte

// Cases returns the conformance cases copied from the shared spec into
// testdata/cases.json (format: testdata/README.md).
func Cases() ([]Case, error) { return decodeCases(casesJSON) }

// decodeCases decodes one embedded case file.
func decodeCases(data []byte) ([]Case, error) {
	var cases []Case
	if err := json.Unmarshal(data, &cases); err != nil {
		return nil, err
	}
	return cases, nil
}

//go:embed testdata/search-cases.json
var searchCasesJSON []byte

// SearchCases returns the search tools' conformance cases copied from the
// shared spec into testdata/search-cases.json (search.md §8): the same
// format, with the mtime setup field and the toolsearch key.
func SearchCases() ([]Case, error) { return decodeCases(searchCasesJSON) }
