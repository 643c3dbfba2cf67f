package fslocal_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/fslocal"
)

// In-place rewrites of hard-linked files (contract §3.7 [D9+]).

// preserve sets hardLinks "preserve".
func preserve(c *fslocalConfig) { c.HardLinks = fslocal.HardLinksPreserve }

// scratch returns the provider's scratch files (staging files and marked
// copies) in dir.
func scratch(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, n := range names(t, dir) {
		if fslocal.IsScratchName(n) {
			out = append(out, n)
		}
	}
	return out
}

// linked makes a.txt with content and its hard link b.txt in w.
func linked(t *testing.T, w *workspace, content string) {
	t.Helper()
	w.file("a.txt", content, 0o644)
	require.NoError(t, os.Link(w.path("a.txt"), w.path("b.txt")))
}

func TestInPlaceRewriteOutOfSpace(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	mnt := filepath.Join(dir, "tmpfs")
	require.NoError(t, os.Mkdir(mnt, 0o755))
	const size = 256 << 10
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size="+strconv.Itoa(size)); err != nil {
		// Not permitted here: the same failures, injected.
		t.Logf("no tmpfs (%v): injecting ENOSPC at the staging step", err)
		w := newWorkspace(t, preserve)
		linked(t, w, "old\n")
		restore := fslocal.SetRewriteHook(func(step string) error {
			if step == "staged" {
				return &os.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}
			}
			return nil
		})
		defer restore()
		_, err := w.p.WriteText(ctx, w.target("a.txt"), "new\n", nil)
		assert.EqualError(t, err, `cannot write "`+w.path("a.txt")+`": no space left on device; the file was not changed`)
		assert.Equal(t, "old\n", w.content("b.txt"))
		assert.Empty(t, scratch(t, w.dir))
		return
	}
	t.Cleanup(func() { syscall.Unmount(mnt, 0) })
	cases := []struct {
		name     string
		old, new int
		op       string
	}{
		// The marked copy itself does not fit (new+old > free).
		{"the staging meets ENOSPC", 64 << 10, 200 << 10, "write"},
		// The copy fits but the growth cannot be reserved on the target.
		{"the reservation meets ENOSPC", 8 << 10, 130 << 10, "write"},
		{"an edit that grows the file", 8 << 10, 130 << 10, "edit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := &workspace{t: t, dir: mnt}
			p, err := fslocal.New(fslocal.Config{Cwd: mnt, Root: mnt, HardLinks: "preserve"})
			require.NoError(t, err)
			defer p.Close()
			w.p = p
			defer os.Remove(w.path("a.txt"))
			defer os.Remove(w.path("b.txt"))
			old := strings.Repeat("o", tc.old-1) + "\n"
			linked(t, w, old)
			tg := w.target("a.txt")
			if tc.op == "write" {
				_, err = p.WriteText(ctx, tg, strings.Repeat("n", tc.new), nil)
			} else {
				_, err = p.EditText(ctx, tg, fsapi.EditRequest{OldString: "\n", NewString: strings.Repeat("n", tc.new)}, nil)
			}
			assert.EqualError(t, err, `cannot `+tc.op+` "`+tg.DisplayPath+`": no space left on device; the file was not changed`)
			var fe *fsapi.Error
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, fsapi.CodeWriteFailed, fe.Code)
			assert.Equal(t, old, w.content("a.txt"))
			assert.Equal(t, old, w.content("b.txt"), "every link keeps the old bytes")
			assert.Equal(t, uint64(2), uint64(statT(t, w.path("a.txt")).Nlink))
			assert.Empty(t, scratch(t, mnt), "no copy is left")
		})
	}
}

func TestInPlaceRewriteFailureRestores(t *testing.T) {
	ctx := context.Background()
	for _, nth := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("a write error at chunk %d", nth), func(t *testing.T) {
			w := newWorkspace(t, preserve)
			old := strings.Repeat("o", 2<<20+5) // the new bytes make four chunks
			linked(t, w, old)
			seen := 0
			restore := fslocal.SetRewriteHook(func(step string) error {
				if step == "write" {
					if seen++; seen == nth {
						return &os.PathError{Op: "write", Path: "x", Err: syscall.EIO}
					}
				}
				return nil
			})
			defer restore()
			_, err := w.p.EditText(ctx, w.target("a.txt"), fsapi.EditRequest{OldString: "oo", NewString: "nnn", ReplaceAll: true}, nil)
			assert.EqualError(t, err, `cannot edit "`+w.path("a.txt")+`": input/output error; the file was restored`)
			assertCode(t, fsapi.CodeWriteFailed, err)
			assert.True(t, old == w.content("b.txt"), "the old bytes are back")
			assert.Empty(t, scratch(t, w.dir))
			assert.Zero(t, w.p.LockCount())
		})
	}
}

// The kill test re-executes the test binary as a child that rewrites a
// hard-linked file in place and kills itself with SIGKILL at the nth
// occurrence of one step of the rewrite.
const (
	killChildEnv = "FSLOCAL_KILL_CHILD" // the workspace; set only in the child
	killStepEnv  = "FSLOCAL_KILL_STEP"
	killNthEnv   = "FSLOCAL_KILL_NTH"
	// killFailEnv, when set, is the nth "write" step that fails, so the
	// rewrite rolls back (and the kill step may be "restoring").
	killFailEnv = "FSLOCAL_KILL_FAIL"
)

// killOld and killNew are the contents before and after the rewrite: three
// chunks of new bytes, growing the file.
var (
	killOld = strings.Repeat("o", 2<<20+100)
	killNew = strings.Repeat("n", 2<<20+300<<10)
)

func runKillChild() {
	dir := os.Getenv(killChildEnv)
	step := os.Getenv(killStepEnv)
	nth, _ := strconv.Atoi(os.Getenv(killNthEnv))
	seen, writes := 0, 0
	failAt, _ := strconv.Atoi(os.Getenv(killFailEnv))
	fslocal.SetRewriteHook(func(s string) error {
		if s == "write" {
			if writes++; writes == failAt {
				return errors.New("injected failure")
			}
		}
		if s == step {
			if seen++; seen == nth {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
				select {}
			}
		}
		return nil
	})
	p, err := fslocal.New(fslocal.Config{Cwd: dir, Root: dir, HardLinks: "preserve"})
	if err == nil {
		var tg fsapi.Target
		if tg, err = p.Resolve(context.Background(), "a.txt", fsapi.ResolveOptions{}); err == nil {
			_, err = p.WriteText(context.Background(), tg, killNew, nil)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(0)
}

func TestInPlaceRewriteSurvivesKills(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a child process mid-rewrite many times; CI runs it")
	}
	ctx := context.Background()
	type kill struct {
		step string
		nth  int
		// after is done to the workspace between the kill and the checks;
		// "fail-N" instead makes the Nth chunk write fail in the child, so it
		// is killed while rolling back.
		after string
	}
	// finished: the next read completes the rewrite (a kill between a chunk
	// and anything else included: the record is written ahead of each
	// chunk and the content checked against it); kept: the target was
	// changed by someone else after the kill, so the copy is kept and named;
	// untouched: the staging was cut short and the copy is dropped.
	outcomes := map[kill]string{
		{"staging", 1, ""}: "untouched",
		{"staged", 1, ""}:  "finished", {"reserved", 1, ""}: "finished",
		{"write", 1, ""}: "finished", {"written", 1, ""}: "finished", {"recorded", 1, ""}: "finished",
		{"write", 2, ""}: "finished", {"written", 2, ""}: "finished", {"recorded", 2, ""}: "finished",
		{"write", 3, ""}: "finished", {"written", 3, ""}: "finished", {"recorded", 3, ""}: "finished",
		{"truncated", 1, ""}: "finished", {"synced", 1, ""}: "finished", {"applied", 1, ""}: "finished",
		// The other link removed: the copy is still found and applied.
		{"written", 2, "unlink b.txt"}: "finished", {"recorded", 1, "unlink b.txt"}: "finished",
		// Someone else wrote into the target in place after the kill.
		// Killed while restoring the old bytes after a failed chunk: the
		// rewrite is finished.
		{"restoring", 1, "fail-3"}: "finished", {"restoring", 2, "fail-3"}: "finished", {"restoring", 3, "fail-3"}: "finished",
		{"written", 2, "scribble"}: "kept", {"recorded", 1, "scribble"}: "kept", {"staged", 1, "scribble"}: "kept",
	}
	for k, want := range outcomes {
		t.Run(fmt.Sprintf("%s-%d-%s", k.step, k.nth, k.after), func(t *testing.T) {
			w := newWorkspace(t, confined, preserve)
			linked(t, w, killOld)
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), killChildEnv+"="+w.dir, killStepEnv+"="+k.step, killNthEnv+"="+strconv.Itoa(k.nth))
			if n, ok := strings.CutPrefix(k.after, "fail-"); ok {
				cmd.Env = append(cmd.Env, killFailEnv+"="+n)
			}
			err := cmd.Run()
			var ee *exec.ExitError
			require.True(t, errors.As(err, &ee), "the child was killed: %v", err)
			require.Equal(t, syscall.SIGKILL, ee.Sys().(syscall.WaitStatus).Signal())
			links := "b.txt"
			switch k.after {
			case "unlink b.txt":
				require.NoError(t, os.Remove(w.path("b.txt")))
				links = "a.txt"
			case "scribble":
				f, err := os.OpenFile(w.path("a.txt"), os.O_WRONLY, 0)
				require.NoError(t, err)
				_, err = f.WriteAt([]byte("scribbled"), 1000)
				require.NoError(t, err)
				require.NoError(t, f.Close())
			}

			switch want {
			case "untouched":
				text, err := w.p.ReadText(ctx, w.target("a.txt"))
				require.NoError(t, err)
				assert.Equal(t, killOld, text)
				assert.Empty(t, scratch(t, w.dir), "the incomplete copy is dropped")
			case "finished":
				read := w.p.ReadText
				if k.after == "unlink b.txt" {
					read = func(ctx context.Context, tg fsapi.Target) (string, error) {
						// The raw open search uses (search.md §2.2) recovers too.
						r, err := w.p.Open(ctx, tg)
						if err != nil {
							return "", err
						}
						defer r.Close()
						b, err := io.ReadAll(r)
						return string(b), err
					}
				}
				text, err := read(ctx, w.target("a.txt"))
				require.NoError(t, err)
				assert.True(t, text == killNew, "the read finished the rewrite (%d bytes)", len(text))
				assert.True(t, w.content(links) == killNew, "every link sees it")
				assert.Empty(t, scratch(t, w.dir), "the copy is gone")
			case "kept":
				copies := scratch(t, w.dir)
				require.Len(t, copies, 1)
				before := w.content("a.txt")
				_, err := w.p.ReadText(ctx, w.target("a.txt"))
				assert.EqualError(t, err, `cannot read "`+w.path("a.txt")+`": an interrupted rewrite left a copy of its new content in "`+w.path(copies[0])+`"; the file was not changed`, "a read never serves the bytes silently")
				assertCode(t, fsapi.CodeWriteFailed, err)
				_, err = w.p.StreamBytes(ctx, w.target("a.txt"))
				assertCode(t, fsapi.CodeWriteFailed, err)
				_, err = w.p.Open(ctx, w.target("a.txt"))
				assertCode(t, fsapi.CodeWriteFailed, err)
				_, err = w.p.WriteText(ctx, w.target("a.txt"), "x", nil)
				assert.EqualError(t, err, `cannot write "`+w.path("a.txt")+`": an interrupted rewrite left a copy of its new content in "`+w.path(copies[0])+`"; the file was not changed`)
				assertCode(t, fsapi.CodeWriteFailed, err)
				_, err = w.p.EditText(ctx, w.target("a.txt"), fsapi.EditRequest{OldString: "n", NewString: "x", ReplaceAll: true}, nil)
				assert.EqualError(t, err, `cannot edit "`+w.path("a.txt")+`": an interrupted rewrite left a copy of its new content in "`+w.path(copies[0])+`"; the file was not changed`)
				assert.True(t, before == w.content("a.txt"), "the target is left alone")
				assert.Equal(t, copies, scratch(t, w.dir), "the copy is kept")
				entries, err := w.p.ListDir(ctx, w.target("."))
				require.NoError(t, err)
				cheap, err := w.p.ListEntries(ctx, w.target("."), fsapi.ListOptions{})
				require.NoError(t, err)
				for _, e := range append(entries, cheap...) {
					assert.False(t, fslocal.IsScratchName(e.Name), "list skips the copy")
				}
				assert.Len(t, cheap, 2, "a.txt and b.txt")
				assert.Contains(t, before, "scribbled", "the other writer's bytes are kept")
			}
			assert.Zero(t, w.p.LockCount())
		})
	}
}

// TestInPlaceRewritePastTheDiffBasis: a prior file larger than the diff
// basis is never read whole ([D20]); the marked copy then takes the old
// bytes from the file itself, so a failed rewrite still restores them.
func TestInPlaceRewritePastTheDiffBasis(t *testing.T) {
	ctx := fsapi.WithDiffBasis(context.Background(), 1024)
	w := newWorkspace(t, preserve)
	old := strings.Repeat("o", 64<<10)
	linked(t, w, old)
	restore := fslocal.SetRewriteHook(func(step string) error {
		if step == "write" {
			return &os.PathError{Op: "write", Path: "x", Err: syscall.EIO}
		}
		return nil
	})
	_, err := w.p.WriteText(ctx, w.target("a.txt"), "new\n", nil)
	restore()
	assert.EqualError(t, err, `cannot write "`+w.path("a.txt")+`": input/output error; the file was restored`)
	assert.True(t, old == w.content("b.txt"), "the old bytes came back from the copy")
	out, err := w.p.WriteText(ctx, w.target("a.txt"), "new\n", nil)
	require.NoError(t, err)
	assert.True(t, out.BasisOmitted)
	assert.Equal(t, "new\n", w.content("b.txt"))
	assert.Empty(t, scratch(t, w.dir))
}
