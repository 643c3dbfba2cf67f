package fsapitest

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// check is one entry of the suite's checks.
type check = struct {
	name string
	run  func(t *testing.T, e *env)
}

// The checks of what editor.md §2 adds to the seam; a provider without
// Inserter skips the insert check.
func init() {
	checks = append(checks,
		check{"insert adds whole lines in the dominant ending and keeps the rest", func(t *testing.T, e *env) {
			ins, ok := e.fs.(fsapi.Inserter)
			if !ok {
				t.Skip("the provider is not an fsapi.Inserter (editor.md §2.1)")
			}
			tg, v := e.create("f.txt", "\ufeffa\r\nb\r\nc")
			out, err := ins.InsertText(context.Background(), tg, fsapi.InsertRequest{Line: 1, Text: "x\ny"}, &fsapi.EditGuard{Version: v})
			require.NoError(t, err)
			assert.Equal(t, "a\r\nx\r\ny\r\nb\r\nc", e.read(tg), "ReadText drops the BOM")
			assert.Equal(t, "a\nb\nc", out.Before)
			assert.Equal(t, "a\nx\ny\nb\nc", out.After)
			_, err = ins.InsertText(context.Background(), tg, fsapi.InsertRequest{Line: 9, Text: "z"}, nil)
			coded(t, err, fsapi.CodeNotFound, `cannot insert into "%s": line 9 is out of range (5 lines)`, tg.DisplayPath)
			var lr *fsapi.LineRangeError
			assert.True(t, errors.As(err, &lr))
			_, err = ins.InsertText(context.Background(), tg, fsapi.InsertRequest{Line: 0, Text: "z"}, &fsapi.EditGuard{Version: v})
			coded(t, err, fsapi.CodeStaleVersion, `cannot edit "%s": file changed since it was read`, tg.DisplayPath)
		}},
		check{"an ambiguous edit carries the lines of its occurrences", func(t *testing.T, e *env) {
			tg, _ := e.create("f.txt", "same\nother\nsame")
			_, err := e.fs.EditText(context.Background(), tg, fsapi.EditRequest{OldString: "same"}, nil)
			var ml *fsapi.MatchLines
			require.True(t, errors.As(err, &ml), "FS_AMBIGUOUS_EDIT's cause is *fsapi.MatchLines (editor.md §2.2)")
			assert.Equal(t, fsapi.MatchLines{Count: 2, Lines: []int{1, 3}}, *ml)
		}},
	)
}
