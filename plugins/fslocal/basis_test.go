package fslocal_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// Past the diff basis a write returns no texts but writes the same bytes
// ([D20], [D2]): the BOM is kept and bare LFs become CRLF in a
// CRLF-dominant file, although the prior file was only streamed.
func TestWritePastTheDiffBasisKeepsBOMAndDominance(t *testing.T) {
	w := newWorkspace(t)
	prior := "\ufeff" + strings.Repeat("line\r\n", 100) + "bare\n"
	w.file("big.txt", prior, 0o644)
	ctx := fsapi.WithDiffBasis(t.Context(), 64)
	out, err := w.p.WriteText(ctx, w.target("big.txt"), "new\ntext\n", nil)
	require.NoError(t, err)
	assert.True(t, out.BasisOmitted)
	assert.Nil(t, out.Before)
	assert.Empty(t, out.After)
	assert.Equal(t, fsapi.OperationUpdate, out.Operation)
	assert.Equal(t, "\ufeffnew\r\ntext\r\n", w.content("big.txt"))

	// Under the bound the texts come back as before.
	out, err = w.p.WriteText(t.Context(), w.target("big.txt"), "x\n", nil)
	require.NoError(t, err)
	assert.False(t, out.BasisOmitted)
	require.NotNil(t, out.Before)
	assert.Equal(t, "new\ntext\n", *out.Before)
	assert.Equal(t, "x\n", out.After)
}

func TestWriteOfContentPastTheDiffBasisOmitsTheTexts(t *testing.T) {
	w := newWorkspace(t)
	w.file("small.txt", "a\n", 0o644)
	content := strings.Repeat("z", 100)
	out, err := w.p.WriteText(fsapi.WithDiffBasis(t.Context(), 64), w.target("small.txt"), content, nil)
	require.NoError(t, err)
	assert.True(t, out.BasisOmitted)
	assert.Nil(t, out.Before)
	assert.Empty(t, out.After)
	assert.Equal(t, content, w.content("small.txt"))
}

func TestEditReportsReplacementsAndOmitsTextsPastTheBasis(t *testing.T) {
	w := newWorkspace(t)
	w.file("a.txt", "foo foo foo\n", 0o644)
	out, err := w.p.EditText(t.Context(), w.target("a.txt"), fsapi.EditRequest{OldString: "foo", NewString: "bar", ReplaceAll: true}, nil)
	require.NoError(t, err)
	assert.Equal(t, 3, out.Replacements)
	assert.False(t, out.BasisOmitted)
	assert.Equal(t, "foo foo foo\n", out.Before)
	assert.Equal(t, "bar bar bar\n", out.After)

	out, err = w.p.EditText(t.Context(), w.target("a.txt"), fsapi.EditRequest{OldString: "bar bar bar", NewString: "x"}, nil)
	require.NoError(t, err)
	assert.Equal(t, 1, out.Replacements)

	big := strings.Repeat("keep\n", 40) + "target\n"
	w.file("big.txt", big, 0o644)
	out, err = w.p.EditText(fsapi.WithDiffBasis(t.Context(), 64), w.target("big.txt"), fsapi.EditRequest{OldString: "target", NewString: "done"}, nil)
	require.NoError(t, err)
	assert.True(t, out.BasisOmitted)
	assert.Empty(t, out.Before)
	assert.Empty(t, out.After)
	assert.Equal(t, 1, out.Replacements)
	assert.Equal(t, strings.Repeat("keep\n", 40)+"done\n", w.content("big.txt"))
}

func TestDiffBasisDefault(t *testing.T) {
	assert.Equal(t, int64(10485760), fsapi.DiffBasis(t.Context()))
	assert.Equal(t, int64(5), fsapi.DiffBasis(fsapi.WithDiffBasis(t.Context(), 5)))
	assert.Equal(t, int64(10485760), fsapi.DiffBasis(fsapi.WithDiffBasis(t.Context(), 0)), "a bound below 1 is no bound: the default applies")
}
