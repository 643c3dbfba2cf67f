package toolfs

import (
	"strconv"

	"github.com/dsh-go/dsh/internal/jsonstring"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// The summaries are what MCP clients receive as structuredContent, and their
// schemas the advertised outputSchemas (contract §5.4a [D20]). They never
// carry file content: a read's summary names the window, not its lines; a
// write's or edit's names the file, not its texts. Each tool registers its
// summarizer beside its renderer (plugin.go); summary_test.go validates real
// summaries against these schemas.

// listSummary is list's summary: the directory's display path, the page's
// 1-based offset, how many entries the page shows, how many the directory
// has, and the page's {name, type} entries.
type listSummary struct {
	Path    string      `json:"path"`
	Offset  int         `json:"offset"`
	Shown   int         `json:"shown"`
	Total   int         `json:"total"`
	Entries []listEntry `json:"entries"`
}

const listSummarySchema = `{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer"},"shown":{"type":"integer"},"total":{"type":"integer"},"entries":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"type":{"enum":["file","directory","other"]}},"required":["name","type"],"additionalProperties":false}}},"required":["path","offset","shown","total","entries"],"additionalProperties":false}`

// AppendJSON appends the summary as json.Marshal encodes it
// (tools.JSONAppender): summary_test.go holds the two equal.
func (s listSummary) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"path":`...)
	dst = jsonstring.Append(dst, s.Path)
	dst = append(dst, `,"offset":`...)
	dst = strconv.AppendInt(dst, int64(s.Offset), 10)
	dst = append(dst, `,"shown":`...)
	dst = strconv.AppendInt(dst, int64(s.Shown), 10)
	dst = append(dst, `,"total":`...)
	dst = strconv.AppendInt(dst, int64(s.Total), 10)
	dst = append(dst, `,"entries":`...)
	if s.Entries == nil {
		return append(dst, "null}"...), nil
	}
	dst = append(dst, '[')
	for i, e := range s.Entries {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"name":`...)
		dst = jsonstring.Append(dst, e.Name)
		dst = append(dst, `,"type":`...)
		dst = jsonstring.Append(dst, string(e.Type))
		dst = append(dst, '}')
	}
	return append(dst, "]}"...), nil
}

func summarizeList(_ tools.Args, v any) any {
	p := v.(listPage)
	return listSummary{Path: fsapi.Display(p.Path), Offset: p.Offset, Shown: len(p.Entries), Total: p.TotalEntries, Entries: p.Entries}
}

// readSummary is read's summary: the file's display path, the first line
// asked for, the last line shown (offset−1 when none), the file's line
// count (null when the byte cap cut the window short, [D26]), and whether
// it did (contract §6.7.5).
//
// An image read's summary is the path, offset 1, endLine 0, totalLines 0,
// capped false, and the image's MIME type and size in bytes, which text
// reads leave out.
type readSummary struct {
	Path       string `json:"path"`
	Offset     int    `json:"offset"`
	EndLine    int    `json:"endLine"`
	TotalLines *int   `json:"totalLines"`
	Capped     bool   `json:"capped"`
	MIMEType   string `json:"mimeType,omitempty"`
	Bytes      int    `json:"bytes,omitempty"`
}

const readSummarySchema = `{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer"},"endLine":{"type":"integer"},"totalLines":{"type":["integer","null"]},"capped":{"type":"boolean"},"mimeType":{"type":"string"},"bytes":{"type":"integer"}},"required":["path","offset","endLine","totalLines","capped"],"additionalProperties":false}`

// summarizeRead uses the call's limit, or readLimit without one, as the
// renderer does.
func (ts *toolset) summarizeRead(args tools.Args, v any) any {
	if img, ok := v.(imageValue); ok {
		return readSummary{Path: fsapi.Display(img.Path), Offset: 1, TotalLines: new(0), MIMEType: img.MIMEType, Bytes: len(img.Data)}
	}
	rv := v.(readValue)
	end, capped := windowEnd(rv, ts.readLimit(args))
	return readSummary{Path: fsapi.Display(rv.Path), Offset: rv.Offset, EndLine: end, TotalLines: rv.TotalLines, Capped: capped}
}

// writeSummary is write's summary: the display path and "create" or
// "update".
type writeSummary struct {
	Path      string          `json:"path"`
	Operation fsapi.Operation `json:"operation"`
}

const writeSummarySchema = `{"type":"object","properties":{"path":{"type":"string"},"operation":{"enum":["create","update"]}},"required":["path","operation"],"additionalProperties":false}`

func summarizeWrite(_ tools.Args, v any) any {
	wv := v.(writeValue)
	return writeSummary{Path: fsapi.Display(wv.Path), Operation: wv.Operation}
}

// editSummary is edit's summary: the display path and the number of spans
// replaced.
type editSummary struct {
	Path         string `json:"path"`
	Replacements int    `json:"replacements"`
}

const editSummarySchema = `{"type":"object","properties":{"path":{"type":"string"},"replacements":{"type":"integer"}},"required":["path","replacements"],"additionalProperties":false}`

func summarizeEdit(_ tools.Args, v any) any {
	ev := v.(editValue)
	return editSummary{Path: fsapi.Display(ev.Path), Replacements: ev.replacements}
}
