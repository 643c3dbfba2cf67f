package toolsearch

import "github.com/dsh-go/dsh/plugins/tools"

// The MCP summaries of the two tools (contract §5.4a [D20]): what MCP sends
// as structuredContent and advertises as the outputSchema. They never carry
// a matched line.

// globSummary is glob's summary (search.md §5.6): the root shown relative
// to B, the page's offset, the page's paths (display form, unquoted) and
// the number of matching files.
type globSummary struct {
	Root       string   `json:"root"`
	Offset     int      `json:"offset"`
	Paths      []string `json:"paths"`
	TotalPaths int      `json:"totalPaths"`
}

const globSummarySchema = `{"type":"object","properties":{"root":{"type":"string"},"offset":{"type":"integer"},"paths":{"type":"array","items":{"type":"string"}},"totalPaths":{"type":"integer"}},"required":["root","offset","paths","totalPaths"],"additionalProperties":false}`

func summarizeGlob(_ tools.Args, v any) any {
	g := v.(globValue)
	return globSummary{Root: g.Root, Offset: g.Offset, Paths: g.Paths, TotalPaths: g.TotalPaths}
}

// grepSummary is grep's summary (search.md §6.8): the root shown relative
// to B, the page's offset and length, the number of kept matches, and the
// number of distinct files among all of them (not only the page).
type grepSummary struct {
	Root         string `json:"root"`
	Offset       int    `json:"offset"`
	ShownMatches int    `json:"shownMatches"`
	TotalMatches int    `json:"totalMatches"`
	Files        int    `json:"files"`
}

const grepSummarySchema = `{"type":"object","properties":{"root":{"type":"string"},"offset":{"type":"integer"},"shownMatches":{"type":"integer"},"totalMatches":{"type":"integer"},"files":{"type":"integer"}},"required":["root","offset","shownMatches","totalMatches","files"],"additionalProperties":false}`

func summarizeGrep(_ tools.Args, v any) any {
	g := v.(grepValue)
	return grepSummary{Root: g.Root, Offset: g.Offset, ShownMatches: len(g.Matches), TotalMatches: g.TotalMatches, Files: g.files}
}
