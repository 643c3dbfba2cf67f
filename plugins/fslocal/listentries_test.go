package fslocal_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/fslocal"
)

var _ fsapi.EntryLister = (*fslocal.Provider)(nil)

// populate makes a directory d with every kind of child ListDir
// distinguishes.
func populate(w *workspace) {
	w.file("d/file.txt", "12345", 0o644)
	w.mkdir("d/sub")
	w.fifo("d/pipe")
	w.file("elsewhere/target.txt", "abc", 0o644)
	w.mkdir("elsewhere/dir")
	w.symlink("d/to-file", "../elsewhere/target.txt")
	w.symlink("d/to-dir", w.path("elsewhere/dir"))
	w.symlink("d/broken", "nowhere")
	w.symlink("d/loop", "loop")
	w.symlink("d/through-file", "file.txt/x")
}

// TestListEntriesAgreesWithListDir: the cheap listing gives every child
// with ListDir's name, type and target (contract §3.6 [D21]); only symlinks
// were probed, so only they may carry a version.
func TestListEntriesAgreesWithListDir(t *testing.T) {
	forBothListPaths(t, testListEntriesAgreesWithListDir)
}

// forBothListPaths runs test on ListEntries' openat2 path and, with raw
// opens disabled, on its os.Root path.
func forBothListPaths(t *testing.T, test func(t *testing.T)) {
	t.Run("openat2", test)
	t.Run("os.Root", func(t *testing.T) {
		defer fslocal.DisableOpenat2()()
		test(t)
	})
}

func testListEntriesAgreesWithListDir(t *testing.T) {
	for _, mode := range []struct {
		name string
		edit []func(*fslocal.Config)
	}{{"unconfined", nil}, {"confined", []func(*fslocal.Config){confined}}} {
		t.Run(mode.name, func(t *testing.T) {
			w := newWorkspace(t, mode.edit...)
			populate(w)
			w.symlink("d/outside", "/")
			full, err := w.p.ListDir(t.Context(), w.target("d"))
			require.NoError(t, err)
			cheap, err := w.p.ListEntries(t.Context(), w.target("d"), fsapi.ListOptions{})
			require.NoError(t, err)
			require.Len(t, cheap, len(full))
			want := entryMap(full)
			for _, e := range cheap {
				f, ok := want[e.Name]
				require.True(t, ok, e.Name)
				assert.Equal(t, f.Type, e.Type, e.Name)
				assert.Equal(t, f.Target, e.Target, e.Name)
				if e.Name == "file.txt" || e.Name == "sub" || e.Name == "pipe" {
					assert.Empty(t, e.Version, "%s: no stat, no version", e.Name)
					assert.False(t, e.HasSize, e.Name)
				}
			}
			withMeta, err := w.p.ListEntries(t.Context(), w.target("d"), fsapi.ListOptions{Metadata: true})
			require.NoError(t, err)
			assert.Equal(t, full, withMeta, "with Metadata it is ListDir")
		})
	}
}

func TestListEntriesFailsLikeListDir(t *testing.T) {
	forBothListPaths(t, testListEntriesFailsLikeListDir)
}

func testListEntriesFailsLikeListDir(t *testing.T) {
	t.Run("unconfined", func(t *testing.T) { listEntriesFailsLikeListDir(t, newWorkspace(t)) })
	t.Run("confined", func(t *testing.T) { listEntriesFailsLikeListDir(t, newWorkspace(t, confined)) })
}

func listEntriesFailsLikeListDir(t *testing.T, w *workspace) {
	w.file("f.txt", "x", 0o644)
	w.fifo("pipe")
	w.symlink("dangling", "nowhere")
	w.symlink("loop", "loop")
	targets := []fsapi.Target{w.target("missing"), w.target("f.txt"), w.target("pipe"), w.target("dangling")}
	// A loop and a path through a file do not resolve; their keys are as a
	// swap after Resolve would leave them.
	for _, rel := range []string{"loop", "f.txt/x"} {
		targets = append(targets, fsapi.Target{Key: w.path(rel), DisplayPath: w.path(rel)})
	}
	for _, tg := range targets {
		_, want := w.p.ListDir(t.Context(), tg)
		_, got := w.p.ListEntries(t.Context(), tg, fsapi.ListOptions{})
		require.Error(t, got)
		assert.Equal(t, want.Error(), got.Error())
		var we, ge *fsapi.Error
		require.ErrorAs(t, want, &we)
		require.ErrorAs(t, got, &ge)
		assert.Equal(t, we.Code, ge.Code)
	}
	_, err := w.p.ListEntries(cancelled(), w.target("."), fsapi.ListOptions{})
	assert.EqualError(t, err, "list aborted")
}

func TestListEntriesOfAManyEntryDirectory(t *testing.T) {
	forBothListPaths(t, testListEntriesOfAManyEntryDirectory)
}

func testListEntriesOfAManyEntryDirectory(t *testing.T) {
	w := newWorkspace(t)
	for i := range 300 {
		w.file("big/f"+strconv.Itoa(i), "", 0o644)
	}
	entries, err := w.p.ListEntries(t.Context(), w.target("big"), fsapi.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, entries, 300)
}
