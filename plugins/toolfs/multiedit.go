package toolfs

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/internal/linediff"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// The multi_edit tool (docs/editing.md): several literal edits of one file
// in one call, all or nothing, or their unified diff with dry_run. It is
// opt-in (Config.MultiEdit) and offered only by a provider that is an
// fsapi.MultiEditor.

// maxEdits is the most edits one multi_edit call takes: each edit is a
// pass over the whole file.
const maxEdits = 100

const multiEditDescription = "Make several literal edits to one existing UTF-8 text file in one call. The edits apply in order, each to the result of the one before it, each with the rules of edit; if any edit fails, none is applied and the file is unchanged. With dry_run true nothing is written and the result is the unified diff the edits would make."

const multiEditParameters = `{"type":"object","properties":{"file_path":{"type":"string","description":"Path to edit, resolved by the filesystem backend."},"edits":{"type":"array","description":"The edits, applied in order, each to the result of the one before it.","items":{"type":"object","properties":{"old_string":{"type":"string","description":"Literal text to replace. Must match exactly."},"new_string":{"type":"string","description":"Literal replacement text. Use an empty string to delete the match."},"replace_all":{"type":"boolean","description":"Replace all matches. Defaults to false; when false, old_string must appear exactly once."}},"required":["old_string","new_string"],"additionalProperties":false}},"dry_run":{"type":"boolean","description":"Write nothing and return the unified diff the edits would make. Defaults to false."}},"required":["file_path","edits"]}`

const multiEditOutput = `{"type":"object","properties":{"path":{"type":"string"},"dryRun":{"type":"boolean"},"before":{"type":"string"},"after":{"type":"string"}},"required":["path","dryRun","before","after"],"additionalProperties":false}`

const multiEditSummarySchema = `{"type":"object","properties":{"path":{"type":"string"},"dryRun":{"type":"boolean"},"edits":{"type":"integer"},"replacements":{"type":"integer"}},"required":["path","dryRun","edits","replacements"],"additionalProperties":false}`

var (
	multiEditParametersJSON    = json.RawMessage(multiEditParameters)
	multiEditOutputJSON        = json.RawMessage(multiEditOutput)
	multiEditSummarySchemaJSON = json.RawMessage(multiEditSummarySchema)
)

// multiEditTool returns the multi_edit tool, or false when the provider
// cannot apply several edits as one mutation.
func (ts *toolset) multiEditTool() (tools.Tool, bool) {
	me, ok := ts.fs.(fsapi.MultiEditor)
	if !ok {
		return tools.Tool{}, false
	}
	return tools.Tool{Name: "multi_edit", Title: "Edit file in several places", Description: multiEditDescription,
		Parameters: multiEditParametersJSON, Output: multiEditOutputJSON, Destructive: true, ExtraKeys: escalationKeys,
		Execute: func(ctx context.Context, args tools.Args, exec *tools.Exec) (any, error) {
			return ts.multiEdit(ctx, me, args, exec)
		},
		Render: textOf(ts.renderMultiEdit), Summary: summarizeMultiEdit, SummarySchema: multiEditSummarySchemaJSON,
		Meta: ts.multiEditMeta}, true
}

// multiEditValue is the structured value of a multi_edit: the display path,
// whether it was a dry run, and the LF views before the first edit and
// after the last (empty past the diff basis: basisOmitted). edits and
// replacements count the edits and the spans they replaced; none of the
// unexported fields is marshalled.
type multiEditValue struct {
	Path         string `json:"path"`
	DryRun       bool   `json:"dryRun"`
	Before       string `json:"before"`
	After        string `json:"after"`
	edits        int
	replacements int
	basisOmitted bool
}

// CheckOutput implements tools.OutputChecker: every field has its type.
func (multiEditValue) CheckOutput() error { return nil }

// multiEdit runs multi_edit: validation (uncoded, before anything else),
// the escalation checks, resolve; without dry_run the fs/edit-intent
// waterfall once, EditTexts, remedy shaping and one fs/observed of the new
// version and digest; with dry_run no intent, EditTexts computing only,
// and no observation.
func (ts *toolset) multiEdit(ctx context.Context, me fsapi.MultiEditor, args tools.Args, exec *tools.Exec) (any, error) {
	path, _ := args.String("file_path")
	if blankString(path) {
		return nil, errors.New("file_path must be a non-empty string")
	}
	edits, err := editsArgument(args)
	if err != nil {
		return nil, err
	}
	dryRun, _ := args.Bool("dry_run")
	if err := checkEscalation(args); err != nil {
		return nil, err
	}
	t, err := ts.resolveFile(ctx, path, exec, "edit")
	if err != nil {
		return nil, err
	}
	req := fsapi.MultiEditRequest{Edits: edits, DryRun: dryRun}
	if dryRun {
		out, err := me.EditTexts(fsapi.WithDiffBasis(ctx, ts.cfg.DiffBasisMaxBytes), t, req, nil)
		if err != nil {
			return nil, stepFailure(err)
		}
		return multiEditValue{Path: t.DisplayPath, DryRun: true, Before: out.Before, After: out.After,
			edits: len(edits), replacements: out.Replacements, basisOmitted: out.BasisOmitted}, nil
	}
	guard, err := ts.editGuard(ctx, t, args, exec)
	if err != nil {
		return nil, err
	}
	var digest fsapi.Digest
	out, err := me.EditTexts(ts.mutationContext(ctx, exec, &digest), t, req, guard)
	if err != nil {
		return nil, stepFailure(err)
	}
	if err := events.FSObserved.Emit(ctx, ts.s, events.Observation{Target: t, Kind: events.Present, Version: out.Version, Digest: digest, Actor: exec}); err != nil {
		return nil, err
	}
	return multiEditValue{Path: t.DisplayPath, Before: out.Before, After: out.After,
		edits: len(edits), replacements: out.Replacements, basisOmitted: out.BasisOmitted}, nil
}

// editKeys are the keys of one edit, in schema order.
var editKeys = []string{"old_string", "new_string", "replace_all"}

// editsArgument validates the edits argument (an array, checked by the
// registry) and returns the edits; the first failing check, in array
// order, is the error: `edits must be a non-empty array`, `edits must hold
// at most 100 edits`, then for edit i `edits[<i>] must be an object`,
// `edits[<i>]: unknown property "<k>"` (every unknown key, in byte order)
// and `; known properties: old_string, new_string, replace_all`,
// `edits[<i>].old_string must be a string`, `edits[<i>].new_string must be
// a string`, `edits[<i>].replace_all must be a boolean`,
// `edits[<i>].old_string must be a non-empty string`, `edits[<i>]:
// old_string and new_string must differ`.
func editsArgument(args tools.Args) ([]fsapi.EditRequest, error) {
	raw, _ := args["edits"].([]any)
	switch {
	case len(raw) == 0:
		return nil, errors.New("edits must be a non-empty array")
	case len(raw) > maxEdits:
		return nil, errors.New("edits must hold at most " + strconv.Itoa(maxEdits) + " edits")
	}
	edits := make([]fsapi.EditRequest, 0, len(raw))
	for i, v := range raw {
		at := "edits[" + strconv.Itoa(i) + "]"
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, errors.New(at + " must be an object")
		}
		var unknown []string
		for k := range obj {
			if !slices.Contains(editKeys, k) {
				unknown = append(unknown, `unknown property "`+fsapi.Display(k)+`"`)
			}
		}
		if len(unknown) > 0 {
			slices.Sort(unknown)
			return nil, errors.New(at + ": " + strings.Join(unknown, "; ") + "; known properties: " + strings.Join(editKeys, ", "))
		}
		oldString, ok := obj["old_string"].(string)
		if !ok {
			return nil, errors.New(at + ".old_string must be a string")
		}
		newString, ok := obj["new_string"].(string)
		if !ok {
			return nil, errors.New(at + ".new_string must be a string")
		}
		replaceAll, ok := obj["replace_all"].(bool)
		if _, present := obj["replace_all"]; present && !ok {
			return nil, errors.New(at + ".replace_all must be a boolean")
		}
		switch {
		case oldString == "":
			return nil, errors.New(at + ".old_string must be a non-empty string")
		case oldString == newString:
			return nil, errors.New(at + ": old_string and new_string must differ")
		}
		edits = append(edits, fsapi.EditRequest{OldString: oldString, NewString: newString, ReplaceAll: replaceAll})
	}
	return edits, nil
}

// stepFailure shapes an EditTexts error for the model: the failing edit's
// error gains `edits[<i>] failed, so no edit was applied: ` in front
// (`edits[<i>] failed on the result of edits[0]-edits[<i-1>], so ...`
// after the first; `edits[0]` alone for i = 1), keeping its code and its
// lines of a near match (an uncoded step error, the growth bound, stays
// uncoded); every other error gets contract §6.5's remedy.
func stepFailure(err error) error {
	var se *fsapi.EditStepError
	if !errors.As(err, &se) {
		return fsapi.WithRemedy(err)
	}
	prefix := "edits[" + strconv.Itoa(se.Index) + "] failed"
	switch {
	case se.Index == 1:
		prefix += " on the result of edits[0]"
	case se.Index > 1:
		prefix += " on the result of edits[0]-edits[" + strconv.Itoa(se.Index-1) + "]"
	}
	var fe *fsapi.Error
	if !errors.As(se.Err, &fe) {
		return errors.New(prefix + ", so no edit was applied: " + se.Err.Error())
	}
	return &fsapi.Error{Code: fe.Code, Op: fe.Op, Path: fe.Path, Message: prefix + ", so no edit was applied: " + fe.Message, Err: se}
}

// renderMultiEdit is `The file <p> has been updated successfully: <N>
// edits applied.` (`1 edit applied`), or for a dry run the diff
// (dryRunText).
func (ts *toolset) renderMultiEdit(v any) string {
	mv := v.(multiEditValue)
	if mv.DryRun {
		return ts.dryRunText(mv)
	}
	return "The file " + fsapi.Display(mv.Path) + " has been updated successfully: " + plural(mv.edits, "edit", "edits") + " applied."
}

// dryRunText is what a dry run shows (docs/editing.md): the unified diff
// of the LF views, `--- a/<p>` and `+++ b/<p>` with 3 lines of context,
// without its final LF; cut at a line end to at most diffMaxBytes bytes
// (a first line that alone is longer at a character boundary) and then
// followed by a line `(diff truncated at <N> bytes)`. Edits that change
// nothing give `The edits would leave <p> unchanged.`; a file past
// diffBasisMaxBytes `(diff omitted: <p> is larger than <N> bytes)`.
func (ts *toolset) dryRunText(mv multiEditValue) string {
	p := fsapi.Display(mv.Path)
	if mv.basisOmitted {
		return "(diff omitted: " + p + " is larger than " + strconv.FormatInt(ts.cfg.DiffBasisMaxBytes, 10) + " bytes)"
	}
	diff := strings.TrimSuffix(linediff.Unified(p, mv.Before, mv.After), "\n")
	if diff == "" {
		return "The edits would leave " + p + " unchanged."
	}
	limit := ts.cfg.DiffMaxBytes
	if len(diff) <= limit {
		return diff
	}
	cut := strings.LastIndexByte(diff[:limit+1], '\n')
	if cut <= 0 {
		cut = limit
		for cut > 0 && !utf8.RuneStart(diff[cut]) {
			cut--
		}
	}
	return diff[:cut] + "\n(diff truncated at " + strconv.Itoa(limit) + " bytes)"
}

// summarizeMultiEdit is multi_edit's summary: the display path, whether it
// was a dry run, the number of edits and of the spans they replaced (or
// would replace).
func summarizeMultiEdit(_ tools.Args, v any) any {
	mv := v.(multiEditValue)
	return multiEditSummary{Path: fsapi.Display(mv.Path), DryRun: mv.DryRun, Edits: mv.edits, Replacements: mv.replacements}
}

// multiEditSummary is the summary of summarizeMultiEdit.
type multiEditSummary struct {
	Path         string `json:"path"`
	DryRun       bool   `json:"dryRun"`
	Edits        int    `json:"edits"`
	Replacements int    `json:"replacements"`
}

// multiEditMeta is `{diffs}` over the raw file_path argument, as edit's
// (contract §6.9, §5.4a [D20]), for a call that wrote; a dry run has no
// meta.
func (ts *toolset) multiEditMeta(args tools.Args, v any) any {
	mv := v.(multiEditValue)
	if mv.DryRun {
		return nil
	}
	path, _ := args.String("file_path")
	return linediff.BoundedMeta(path, &mv.Before, mv.After, mv.basisOmitted, ts.diffBounds())
}
