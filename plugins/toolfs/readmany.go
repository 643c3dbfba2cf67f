package toolfs

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// budgetExhausted is the section of a file read_many did not read because
// the shared byte budget was spent.
const budgetExhausted = "(not read: byte budget exhausted)"

// manyFile is one file of a read_many: the path as given, and the read's
// value (a readValue or an imageValue), or its error, or neither when the
// budget was spent before it.
type manyFile struct {
	path  string
	value any
	err   error
}

// manyValue is the structured value of a read_many, in process only: the
// files in the order asked.
type manyValue struct {
	files []manyFile
}

func readManyDescription(maxFiles, maxBytes int) string {
	return "Read several files in one call, each returned exactly as read returns it (line-numbered text, or an image), in the order given. Up to " +
		strconv.Itoa(maxFiles) + " paths; their text shares one budget of " + strconv.Itoa(maxBytes) + " bytes, and files after it is spent are not read. A file that cannot be read shows its error in its place."
}

func readManyParameters(maxFiles int) json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"file_paths":{"type":"array","items":{"type":"string"},"description":"Paths to read, in order, at most ` +
		strconv.Itoa(maxFiles) + `. Each is resolved as read resolves its file_path."}},"required":["file_paths"]}`)
}

// readMany runs the read_many tool: every path read as read reads it
// (one Stat, the window from line 1 with readLimit lines, images as
// images, one fs/observed per file read), with readMaxBytes the budget
// left by the files before it; once the budget is spent the remaining
// files are neither read nor observed. A file's error stands in its place
// and the call still succeeds.
func (ts *toolset) readMany(ctx context.Context, args tools.Args, exec *tools.Exec) (any, error) {
	raw, _ := args["file_paths"].([]any)
	if len(raw) == 0 {
		return nil, errors.New("file_paths must be a non-empty array")
	}
	if len(raw) > ts.cfg.ReadManyMaxFiles {
		return nil, errors.New("file_paths must hold at most " + strconv.Itoa(ts.cfg.ReadManyMaxFiles) + " paths")
	}
	paths := make([]string, len(raw))
	for i, p := range raw {
		s, ok := p.(string)
		if !ok {
			return nil, errors.New("file_paths must hold only strings")
		}
		paths[i] = s
	}
	left := ts.cfg.ReadMaxBytes
	out := manyValue{files: make([]manyFile, len(paths))}
	for i, p := range paths {
		out.files[i].path = p
		if err := ctx.Err(); err != nil {
			return nil, fsapi.ErrAborted("read", err)
		}
		if left <= 0 {
			continue
		}
		one := *ts
		one.cfg.ReadMaxBytes = left
		v, err := one.read(ctx, tools.Args{"file_path": p}, exec)
		if err != nil {
			out.files[i].err = err
			continue
		}
		out.files[i].value = v
		switch v := v.(type) {
		case readValue:
			for _, l := range v.Lines {
				left -= len(l.Text)
			}
		case imageValue:
			left -= len(v.Data)
		}
	}
	return out, nil
}

// renderReadMany renders each file as read renders it, an error as
// `Error: <message>`, and a file past the budget as `<path>p</path>` and
// `(not read: byte budget exhausted)`, separated by a blank line. An image
// is `<path>p</path>` and its image block, which call and run print on the
// next line as `[image/<type>, <n> bytes]`.
func (ts *toolset) renderReadMany(_ tools.Args, v any) []tools.Block {
	var blocks []tools.Block
	text := "" // the text since the last image block
	sep := ""  // what goes before the next section
	for _, f := range v.(manyValue).files {
		text += sep
		sep = "\n\n"
		switch val := f.value.(type) {
		case readValue:
			text += renderRead(val, ts.cfg.ReadLimit)
		case imageValue:
			blocks = append(blocks, tools.TextBlock(text+"<path>"+fsapi.Display(val.Path)+"</path>"), tools.ImageBlock(val.MIMEType, val.Data))
			text, sep = "", "\n" // Text() puts a line break after an image
		default:
			if f.err != nil {
				text += "Error: " + f.err.Error()
			} else {
				text += "<path>" + fsapi.Display(f.path) + "</path>\n" + budgetExhausted
			}
		}
	}
	if text != "" || len(blocks) == 0 {
		blocks = append(blocks, tools.TextBlock(text))
	}
	return blocks
}
