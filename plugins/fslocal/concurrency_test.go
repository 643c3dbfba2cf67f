package fslocal_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// Concurrent mutations of one target through the provider (contract §3.9).
func TestFiftyUnguardedEditsOfDifferentLinesAllLand(t *testing.T) {
	w := newWorkspace(t)
	w.file("f.txt", numberedLines(50), 0o644)
	got := editLinesAtOnce(t, w, 50, w.target("f.txt"))
	assert.Equal(t, got, w.content("f.txt"))
	assert.Equal(t, []string{"f.txt"}, w.names("."))
}

// Hard-link names in two directories have two keys and two directory
// locks; an in-place rewrite also locks the inode they share (contract
// §3.9 [D18]), so unguarded edits through either name all land.
func TestUnguardedEditsThroughHardLinksInTwoDirectoriesAllLand(t *testing.T) {
	w := newWorkspace(t, preserve)
	w.file("a/f.txt", numberedLines(40), 0o644)
	w.mkdir("b")
	require.NoError(t, os.Link(w.path("a/f.txt"), w.path("b/f.txt")))
	got := editLinesAtOnce(t, w, 40, w.target("a/f.txt"), w.target("b/f.txt"))
	assert.Equal(t, got, w.content("a/f.txt"), "one file")
	assert.Equal(t, got, w.content("b/f.txt"), "one file")
	assert.Equal(t, []string{"f.txt"}, w.names("a"))
	assert.Equal(t, []string{"f.txt"}, w.names("b"))
}

// numberedLines returns n lines `line NN: old`.
func numberedLines(n int) string {
	var lines []string
	for i := range n {
		lines = append(lines, fmt.Sprintf("line %02d: old", i))
	}
	return strings.Join(lines, "\n") + "\n"
}

// editLinesAtOnce runs n unguarded edits at once, edit i turning line i of
// numberedLines into `line NN: new by goroutine i` through names[i %
// len(names)], checks that each succeeded and that every line changed in
// the last name's file, and returns that file's content.
func editLinesAtOnce(t *testing.T, w *workspace, n int, names ...fsapi.Target) string {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			_, err := w.p.EditText(context.Background(), names[i%len(names)], fsapi.EditRequest{
				OldString: fmt.Sprintf("line %02d: old", i),
				NewString: fmt.Sprintf("line %02d: new by goroutine %d", i, i),
			}, nil)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
	b, err := os.ReadFile(names[len(names)-1].Key)
	require.NoError(t, err)
	got := string(b)
	for i := range n {
		assert.Contains(t, got, fmt.Sprintf("line %02d: new by goroutine %d\n", i, i))
	}
	assert.NotContains(t, got, "old")
	assert.Zero(t, w.p.LockCount())
	return got
}

func TestTwentyGuardedWritesRacingOnOneVersionHaveOneWinner(t *testing.T) {
	w := newWorkspace(t)
	w.file("f.txt", "original", 0o644)
	tg := w.target("f.txt")
	info, err := w.p.Stat(context.Background(), tg)
	require.NoError(t, err)

	var wg sync.WaitGroup
	start := make(chan struct{})
	results := make([]error, 20)
	for i := range 20 {
		wg.Go(func() {
			<-start
			_, results[i] = w.p.WriteText(context.Background(), tg, fmt.Sprintf("writer %d", i),
				&fsapi.WriteIntent{Kind: fsapi.ReplaceIfVersion, Version: info.Version})
		})
	}
	close(start)
	wg.Wait()
	winners := 0
	winner := -1
	for i, err := range results {
		if err == nil {
			winners++
			winner = i
			continue
		}
		assert.EqualError(t, err, `cannot write "`+tg.DisplayPath+`": file changed since it was read`)
		assertCode(t, fsapi.CodeStaleVersion, err)
	}
	require.Equal(t, 1, winners)
	assert.Equal(t, fmt.Sprintf("writer %d", winner), w.content("f.txt"))
	assert.Zero(t, w.p.LockCount())
}

func TestAliasesShareOneLock(t *testing.T) {
	w := newWorkspace(t)
	w.file("real.txt", "", 0o644)
	w.symlink("alias", "real.txt")
	real, alias := w.target("real.txt"), w.target("alias")
	require.Equal(t, real.Key, alias.Key)
	var wg sync.WaitGroup
	for i := range 20 {
		tg := real
		if i%2 == 1 {
			tg = alias
		}
		wg.Go(func() {
			for {
				// Append one mark through either spelling. Stat first: the
				// version must be no newer than the text read after it, or a
				// write landing between the two is lost.
				info, err := w.p.Stat(context.Background(), tg)
				require.NoError(t, err)
				cur, err := w.p.ReadText(context.Background(), tg)
				require.NoError(t, err)
				_, err = w.p.WriteText(context.Background(), tg, cur+"x", &fsapi.WriteIntent{Kind: fsapi.ReplaceIfVersion, Version: info.Version})
				if err == nil {
					return
				}
				var fe *fsapi.Error
				require.True(t, errors.As(err, &fe) && fe.Code == fsapi.CodeStaleVersion, "%v", err)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, strings.Repeat("x", 20), w.content("real.txt"), "no update was lost across spellings")
	assert.Zero(t, w.p.LockCount())
}

// Every goroutine here waits on a channel (the gate, the lock queue), so
// synctest.Wait tells when both waiters have queued behind the holder.
func TestCancelWhileWaitingForTheLock(t *testing.T) {
	synctest.Test(t, testCancelWhileWaitingForTheLock)
}

func testCancelWhileWaitingForTheLock(t *testing.T) {
	w := newWorkspace(t)
	w.file("f.txt", "start", 0o644)
	tg := w.target("f.txt")

	// The holder stops at its second context check: the first after taking
	// the lock (reading the prior content).
	holder := newGate(2)
	holderDone := make(chan error, 1)
	go func() {
		_, err := w.p.WriteText(holder, tg, "holder", nil)
		holderDone <- err
	}()
	<-holder.reached
	assert.Equal(t, 1, w.p.LockCount(), "held")

	// A later writer waits; another waiter is cancelled while waiting.
	laterDone := make(chan error, 1)
	go func() {
		_, err := w.p.WriteText(context.Background(), tg, "later", nil)
		laterDone <- err
	}()
	ctx, cancel := context.WithCancel(context.Background())
	abortedDone := make(chan error, 1)
	go func() {
		_, err := w.p.EditText(ctx, tg, fsapi.EditRequest{OldString: "start", NewString: "edited"}, nil)
		abortedDone <- err
	}()
	synctest.Wait() // both have queued behind the holder
	assert.Equal(t, 1, w.p.LockCount(), "one key, held and waited for")
	cancel()
	err := <-abortedDone
	assert.EqualError(t, err, "edit aborted")
	assertCode(t, fsapi.CodeAborted, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, "start", w.content("f.txt"), "the cancelled waiter touched nothing")

	close(holder.open)
	require.NoError(t, <-holderDone)
	require.NoError(t, <-laterDone)
	assert.Equal(t, "later", w.content("f.txt"), "the remaining waiter ran after the holder")
	assert.Zero(t, w.p.LockCount())
}
