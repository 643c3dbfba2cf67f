package fslocal_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

func edits(pairs ...string) []fsapi.EditRequest {
	var out []fsapi.EditRequest
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, fsapi.EditRequest{OldString: pairs[i], NewString: pairs[i+1]})
	}
	return out
}

// TestEditTextsAppliesInOrder: each edit sees the result of the one before
// it, with edit's rules: the file's dominant ending for inserted text,
// every other byte (the BOM, other endings, the final-newline state) kept.
func TestEditTextsAppliesInOrder(t *testing.T) {
	w := newWorkspace(t)
	w.file("a.txt", "\ufeffone\r\ntwo\r\nthree\n", 0o644)
	out, err := w.p.EditTexts(context.Background(), w.target("a.txt"), fsapi.MultiEditRequest{Edits: []fsapi.EditRequest{
		{OldString: "one", NewString: "1\n1b"},
		{OldString: "1b\ntwo", NewString: "2"}, // matches text the first edit made
		{OldString: "e", NewString: "E", ReplaceAll: true},
	}}, nil)
	require.NoError(t, err)
	assert.Equal(t, "\ufeff1\r\n2\r\nthrEE\n", w.content("a.txt"))
	assert.Equal(t, "one\ntwo\nthree\n", out.Before)
	assert.Equal(t, "1\n2\nthrEE\n", out.After)
	assert.Equal(t, 4, out.Replacements, "1 + 1 + 2 spans")
	info, err := w.p.Stat(context.Background(), w.target("a.txt"))
	require.NoError(t, err)
	assert.Equal(t, info.Version, out.Version)
}

// TestEditTextsIsAllOrNothing: the first failing edit names its index and
// nothing is written, whatever the edits before it did.
func TestEditTextsIsAllOrNothing(t *testing.T) {
	const text = "alpha\nbeta\nbeta\n\tgamma\n"
	tests := []struct {
		name  string
		edits []fsapi.EditRequest
		index int
		code  fsapi.Code
		msg   string
	}{
		{"the first edit misses", edits("zeta", "z", "alpha", "a"), 0, fsapi.CodeEditNotFound, `old_string was not found in "%s"`},
		{"a later edit misses", edits("alpha", "a", "beta", "b", "delta", "d"), 1, fsapi.CodeAmbiguousEdit,
			`old_string matched 2 times in "%s"; provide a more specific old_string or set replace_all to true`},
		{"an edit misses what an earlier one removed", edits("alpha", "a", "alpha", "x"), 1, fsapi.CodeEditNotFound, `old_string was not found in "%s"`},
		{"overlapping occurrences count in a step (D15)", edits("gamma", "aaa", "aa", "b"), 1, fsapi.CodeAmbiguousEdit,
			`old_string matched 2 times in "%s"; provide a more specific old_string or set replace_all to true`},
		{"a near match in a later step", edits("alpha", "a", "    gamma", "g"), 1, fsapi.CodeEditNotFound,
			"old_string was not found in \"%s\"\nNear match at line 4, differing only in spaces and tabs (nothing was replaced):\n4: \tgamma"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorkspace(t)
			w.file("a.txt", text, 0o644)
			before, err := w.p.Stat(context.Background(), w.target("a.txt"))
			require.NoError(t, err)
			_, err = w.p.EditTexts(context.Background(), w.target("a.txt"), fsapi.MultiEditRequest{Edits: tc.edits}, nil)
			var se *fsapi.EditStepError
			require.True(t, errors.As(err, &se), "%v", err)
			assert.Equal(t, tc.index, se.Index)
			assertFailure(t, err, tc.code, strings.ReplaceAll(tc.msg, "%s", w.path("a.txt")))
			assert.Equal(t, text, w.content("a.txt"), "nothing is written")
			after, err := w.p.Stat(context.Background(), w.target("a.txt"))
			require.NoError(t, err)
			assert.Equal(t, before.Version, after.Version, "not even rewritten")
			assert.Empty(t, w.stagingFiles("."))
		})
	}
	t.Run("the frame's errors are not a step's", func(t *testing.T) {
		w := newWorkspace(t)
		w.file("a.txt", text, 0o644)
		_, err := w.p.EditTexts(context.Background(), w.target("a.txt"), fsapi.MultiEditRequest{Edits: edits("alpha", "a")}, &fsapi.EditGuard{Version: "1:2:3:4:5"})
		var se *fsapi.EditStepError
		assert.False(t, errors.As(err, &se))
		assertFailure(t, err, fsapi.CodeStaleVersion, `cannot edit "`+w.path("a.txt")+`": file changed since it was read`)
	})
}

// TestEditTextsDryRunWritesNothing: a dry run computes the same outcome,
// leaves the file, its inode and its times alone, and reports no digest.
func TestEditTextsDryRunWritesNothing(t *testing.T) {
	w := newWorkspace(t)
	w.file("a.txt", "a\r\nb\r\n", 0o644)
	fi0, err := os.Stat(w.path("a.txt"))
	require.NoError(t, err)
	info, err := w.p.Stat(context.Background(), w.target("a.txt"))
	require.NoError(t, err)
	reported := false
	ctx := fsapi.WithDigestSink(context.Background(), func(fsapi.Digest) { reported = true })
	out, err := w.p.EditTexts(ctx, w.target("a.txt"), fsapi.MultiEditRequest{Edits: edits("a", "A", "b", "B\nC"), DryRun: true}, nil)
	require.NoError(t, err)
	assert.Equal(t, "a\nb\n", out.Before)
	assert.Equal(t, "A\nB\nC\n", out.After)
	assert.Equal(t, 2, out.Replacements)
	assert.Equal(t, info.Version, out.Version, "the current version")
	assert.False(t, reported)
	assert.Equal(t, "a\r\nb\r\n", w.content("a.txt"))
	fi1, err := os.Stat(w.path("a.txt"))
	require.NoError(t, err)
	assert.Equal(t, fi0.ModTime(), fi1.ModTime())
	assert.True(t, os.SameFile(fi0, fi1))

	_, err = w.p.EditTexts(context.Background(), w.target("missing.txt"), fsapi.MultiEditRequest{Edits: edits("a", "b"), DryRun: true}, nil)
	assertFailure(t, err, fsapi.CodeNotFound, `cannot edit "`+w.path("missing.txt")+`": not found`)

	_, err = w.p.EditTexts(context.Background(), w.target("a.txt"), fsapi.MultiEditRequest{Edits: edits("a", "A", "zz", "y"), DryRun: true}, nil)
	var se *fsapi.EditStepError
	require.True(t, errors.As(err, &se))
	assert.Equal(t, 1, se.Index)
}

// TestEditTextIsEditTextsOfOne: the single edit and the multi-edit are one
// path; a single edit's failure is not wrapped as a step.
func TestEditTextIsEditTextsOfOne(t *testing.T) {
	w := newWorkspace(t)
	w.file("a.txt", "x y x\n", 0o644)
	w.file("b.txt", "x y x\n", 0o644)
	one, err := w.p.EditText(context.Background(), w.target("a.txt"), fsapi.EditRequest{OldString: "x", NewString: "z", ReplaceAll: true}, nil)
	require.NoError(t, err)
	many, err := w.p.EditTexts(context.Background(), w.target("b.txt"), fsapi.MultiEditRequest{Edits: []fsapi.EditRequest{{OldString: "x", NewString: "z", ReplaceAll: true}}}, nil)
	require.NoError(t, err)
	assert.Equal(t, w.content("a.txt"), w.content("b.txt"))
	assert.Equal(t, one.Before, many.Before)
	assert.Equal(t, one.After, many.After)
	assert.Equal(t, one.Replacements, many.Replacements)

	_, err = w.p.EditText(context.Background(), w.target("a.txt"), fsapi.EditRequest{OldString: "q", NewString: "r"}, nil)
	var se *fsapi.EditStepError
	assert.False(t, errors.As(err, &se))
	assertCode(t, fsapi.CodeEditNotFound, err)
}

// TestEditTextsBoundsGrowth: replace_all edits that each multiply the text
// stop at twice the file or the file plus 16 MiB, before the text is
// built (unbounded, 30 tenfold steps of 100 bytes would need 10²⁰ TB);
// nothing is written. A single edit, EditText, keeps edit's rules.
func TestEditTextsBoundsGrowth(t *testing.T) {
	w := newWorkspace(t)
	text := strings.Repeat("xxxxxxxxx\n", 10)
	w.file("a.txt", text, 0o644)
	var chain []fsapi.EditRequest
	for range 30 {
		chain = append(chain, fsapi.EditRequest{OldString: "x", NewString: "xxxxxxxxxx", ReplaceAll: true})
	}
	_, err := w.p.EditTexts(context.Background(), w.target("a.txt"), fsapi.MultiEditRequest{Edits: chain}, nil)
	var se *fsapi.EditStepError
	require.True(t, errors.As(err, &se), "%v", err)
	assert.Equal(t, 5, se.Index, "90 x: 900, 9,000, ..., 9·10⁶; the sixth would be 90 MB, past 100 + 16 MiB")
	assert.EqualError(t, err, "the edits would make the file larger than 16777316 bytes (at most twice its size, or its size plus 16 MiB)")
	var fe *fsapi.Error
	assert.False(t, errors.As(err, &fe), "uncoded")
	assert.Equal(t, text, w.content("a.txt"), "nothing is written")

	out, err := w.p.EditTexts(context.Background(), w.target("a.txt"), fsapi.MultiEditRequest{Edits: chain[:5]}, nil)
	require.NoError(t, err, "up to the bound the chain applies")
	assert.Equal(t, 9_000_010, len(out.After))

	w.file("b.txt", text, 0o644)
	_, err = w.p.EditText(context.Background(), w.target("b.txt"), fsapi.EditRequest{OldString: "x", NewString: strings.Repeat("y", 300_000), ReplaceAll: true}, nil)
	require.NoError(t, err, "edit is not bounded: 90 × 300 kB = 27 MB")
}
