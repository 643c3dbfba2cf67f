package tooleditor

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"

	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// The four commands (editor.md §1).
const (
	cmdView       = "view"
	cmdCreate     = "create"
	cmdStrReplace = "str_replace"
	cmdInsert     = "insert"
)

var commands = map[string]struct{}{cmdView: {}, cmdCreate: {}, cmdStrReplace: {}, cmdInsert: {}}

// call is a validated call: the command, the path argument and what the
// command uses.
type call struct {
	command string
	path    string
	// view: hasRange and the range [first, last] as sent (integral).
	hasRange    bool
	first, last float64
	// create: fileText; str_replace: oldStr, newStr; insert: line, newStr.
	fileText string
	oldStr   string
	newStr   string
	line     float64
	// args are the call's arguments, handed to the intent events
	// (events.IntentRequest.Arguments).
	args tools.Args
}

// parse runs the tool's own checks of editor.md §5 in order, after the
// registry's type checks: the command, a blank path, the arguments of the
// command, and for insert the Inserter capability. All failures are
// uncoded and happen before anything is resolved, dispatched or read.
func (e *editor) parse(args tools.Args) (call, error) {
	cmd, _ := args.String("command")
	if _, ok := commands[cmd]; !ok {
		if cmd == "undo_edit" {
			return call{}, errors.New("undo_edit is not available in this editor: to revert a change, run str_replace with old_str and new_str swapped")
		}
		return call{}, errUnknownCommand(cmd)
	}
	path, _ := args.String("path")
	if fsapi.IsBlank(path) {
		return call{}, errors.New("path must be a non-empty string")
	}
	c := call{command: cmd, path: path, args: args}
	switch cmd {
	case cmdView:
		if args.Has("view_range") {
			first, last, ok := viewRange(args["view_range"])
			if !ok {
				return call{}, errors.New("Invalid `view_range`. It should be a list of two integers.")
			}
			c.hasRange, c.first, c.last = true, first, last
		}
	case cmdCreate:
		text, ok := args.String("file_text")
		if !ok {
			return call{}, errors.New("Parameter `file_text` is required for command: create")
		}
		c.fileText = text
	case cmdStrReplace:
		old, ok := args.String("old_str")
		switch {
		case !ok:
			return call{}, errors.New("Parameter `old_str` is required for command: str_replace")
		case old == "":
			return call{}, errors.New("Parameter `old_str` is empty for command: str_replace")
		}
		c.oldStr = old
		c.newStr, _ = args.String("new_str")
	case cmdInsert:
		line, ok := args.Number("insert_line")
		if !ok {
			return call{}, errors.New("Parameter `insert_line` is required for command: insert")
		}
		text, ok := args.String("new_str")
		if !ok {
			return call{}, errors.New("Parameter `new_str` is required for command: insert")
		}
		if _, ok := e.fs.(fsapi.Inserter); !ok {
			return call{}, errors.New("insert is unavailable: the fs service cannot insert lines")
		}
		c.line, c.newStr = line, text
	}
	return c, nil
}

// errUnknownCommand is `unknown command "<command>": use view, create,
// str_replace or insert`, the command with invalid bytes replaced [D11].
func errUnknownCommand(cmd string) error {
	return errors.New(`unknown command "` + fsapi.Display(cmd) + `": use view, create, str_replace or insert`)
}

// viewRange reads a view_range value (an array, as the registry checked):
// exactly two JSON numbers with integral, finite values (editor.md §5).
func viewRange(v any) (first, last float64, ok bool) {
	items, _ := v.([]any)
	if len(items) != 2 {
		return 0, 0, false
	}
	var nums [2]float64
	for i, it := range items {
		var f float64
		switch n := it.(type) {
		case json.Number:
			var err error
			if f, err = strconv.ParseFloat(string(n), 64); err != nil {
				return 0, 0, false
			}
		case float64:
			f = n
		default:
			return 0, 0, false
		}
		if math.IsInf(f, 0) || math.IsNaN(f) || f != math.Trunc(f) {
			return 0, 0, false
		}
		nums[i] = f
	}
	return nums[0], nums[1], true
}
