package tooleditor

import "github.com/dsh-go/dsh/plugins/tools"

// The model-facing texts of editor.md §4, byte for byte.

// defaultDescription is the default of the `description` key (editor.md
// §4.1): seven lines.
const defaultDescription = "View, create and edit text files.\n" +
	"* view: for a file, shows its lines numbered from 1 (view_range selects a part); for a directory, lists the files and directories in it two levels deep, leaving out hidden entries, node_modules and __pycache__.\n" +
	"* create: writes a new file; it fails when path already exists, so it never overwrites anything.\n" +
	"* str_replace: replaces old_str, which must occur exactly once in the file, by new_str. Copy old_str exactly, without the line numbers that view adds, and include enough neighbouring lines to make it unique.\n" +
	"* insert: adds new_str as whole lines after line insert_line; 0 inserts before the first line.\n" +
	"* Before str_replace or insert, view the file in this session, and view it again after it changed on disk.\n" +
	"* Long output is cut off and marked with <response clipped>."

// parameters is the argument schema (editor.md §4.2), in the reference's
// property order.
const parameters = `{"type":"object","properties":{"command":{"type":"string","enum":["view","create","str_replace","insert"],"description":"The operation to run: view, create, str_replace or insert."},"path":{"type":"string","description":"The file or directory to act on: an absolute path, or a path relative to the session workspace."},"file_text":{"type":"string","description":"For create (required): the full content of the new file; it may be empty."},"insert_line":{"type":"integer","description":"For insert (required): the line after which new_str goes. 0 inserts before line 1; the file's line count appends after the last line."},"new_str":{"type":"string","description":"For str_replace: the text that takes old_str's place; omit it, or send an empty string, to delete old_str. For insert (required): the text to insert."},"old_str":{"type":"string","description":"For str_replace (required): the exact text to replace; it must occur exactly once in the file, whitespace and indentation included."},"view_range":{"type":"array","items":{"type":"integer"},"description":"For view of a file: [first, last], 1-based line numbers, both included; last may be -1 for the end of the file. Without it the whole file is shown."}},"required":["command","path"]}`

// output is the schema of the structured value, the call's summary
// `{command, path}` (editor.md §4.4): closed, both keys required.
const output = `{"type":"object","properties":{"command":{"enum":["view","create","str_replace","insert"]},"path":{"type":"string"}},"required":["command","path"],"additionalProperties":false}`

// section is the prompt section (editor.md §4.5): order 105, after the
// sections of toolfs and toolsearch.
var section = tools.Section{Name: "tool:str_replace_editor", Order: 105, Text: "Use the str_replace_editor tool to view and change text files with its view, create, str_replace and insert commands. View a file before str_replace or insert (the default fs-policy requires it, unless you just created or edited the file in this session), and never copy the line numbers a view shows into old_str."}
