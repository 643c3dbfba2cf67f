package conformance

import (
	_ "embed"
	"encoding/json"
	"fmt"
)

//go:embed testdata/cases.json
var casesJSON []byte

//go:embed testdata/project-cases.json
var projectCasesJSON []byte

// Cases returns the conformance cases copied from the shared spec into
// testdata/cases.json, with the project's own of
// testdata/project-cases.json (withProject; format: testdata/README.md).
func Cases() ([]Case, error) { return withProject(casesJSON, projectCasesJSON) }

// withProject decodes a shared case file and the project's cases beside
// it: a project case named as a shared one replaces it in place, and must
// say why in Supersedes; any other is added after the shared ones. The
// shared copy stays byte-identical to the shared spec's.
func withProject(shared, project []byte) ([]Case, error) {
	cases, err := decodeCases(shared)
	if err != nil {
		return nil, err
	}
	own, err := decodeCases(project)
	if err != nil {
		return nil, err
	}
	at := make(map[string]int, len(cases))
	for i, c := range cases {
		at[c.Name] = i
	}
	for _, c := range own {
		i, replaces := at[c.Name]
		switch {
		case replaces && c.Supersedes == "":
			return nil, fmt.Errorf("project case %q has a shared case's name but no supersedes reason", c.Name)
		case !replaces && c.Supersedes != "":
			return nil, fmt.Errorf("project case %q supersedes no shared case", c.Name)
		case replaces:
			cases[i] = c
		default:
			cases = append(cases, c)
		}
	}
	return cases, nil
}

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
