package tools

// Summarizer turns a successful call's arguments and structured value into
// the call's summary (contract §5.4a [D20]): what an MCP client receives as
// structuredContent, described by the tool's SummarySchema (its advertised
// outputSchema).
//
// A summary is small whatever the file size and never repeats file content:
// no lines, no before/after texts, no match previews. It names what the call
// did and where (a display path, line or entry numbers, counts, the page of
// names a listing showed). The registry calls it, under panic containment,
// after the value passed its output check and was rendered; its result is
// [Result.Summary]. Front ends send it as it is and never switch on tool
// names.
//
// Every tool that registers with the registry supplies its own, the way it
// supplies its renderer; for example toolfs's read returns
// {path, offset, endLine, totalLines, capped}. A Summarizer must not keep
// args or value, and must return a value encoding/json can marshal (a struct
// with JSON tags or a map), whose JSON form satisfies the tool's
// SummarySchema: every tool's tests should marshal real summaries and
// validate them against it.
type Summarizer func(args Args, value any) any

// JSONAppender may be implemented by a summary that encodes itself:
// AppendJSON appends to dst exactly the bytes json.Marshal returns for the
// summary (compact, HTML-safe, fields in declaration order) and returns the
// extended slice. The MCP plugin then encodes the summary with it, sparing
// the reflection of json.Marshal over a list's 200 entries; its tests hold
// every appender to json.Marshal's output.
type JSONAppender interface {
	AppendJSON(dst []byte) ([]byte, error)
}
