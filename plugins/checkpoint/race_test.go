package checkpoint_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/checkpoint"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// journal returns the store's steps as its journal holds them.
func journal(t *testing.T, s *stacktest.Stack) []checkpoint.Step {
	t.Helper()
	f, err := os.Open(filepath.Join(checkpoint.Key.Must(s.Host.Root()).Dir(), "steps.jsonl"))
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	defer f.Close()
	var out []checkpoint.Step
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var st checkpoint.Step
		require.NoError(t, json.Unmarshal(sc.Bytes(), &st))
		out = append(out, st)
	}
	return out
}

func sha(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// TestParallelWritesOfOneFileAreStepsInTheirOrder: twelve blind writes of
// one file at once (no read-before-edit policy, as a deployment without
// fspolicy has) all land, and their steps chain: each step's bytes before
// are the bytes the previous one left, so a rewind to any of them puts
// back the bytes right after it.
func TestParallelWritesOfOneFileAreStepsInTheirOrder(t *testing.T) {
	t.Setenv("DSH_STATE_DIR", t.TempDir())
	s := stacktest.New(t, stacktest.Options{NoPolicy: true, Checkpoint: map[string]any{}})
	conv := s.Conversation("c")
	put(t, s, "x.txt", "orig\n")
	var wg sync.WaitGroup
	for k := range 12 {
		wg.Go(func() {
			res := s.Call(t.Context(), conv, "write", fmt.Sprintf(`{"file_path":"x.txt","content":"writer %d\n"}`, k))
			assert.False(t, res.IsError, res.Text())
		})
	}
	wg.Wait()
	call(t, s, conv, "checkpoints", `{}`) // every step stored
	steps := journal(t, s)
	require.Len(t, steps, 12)
	prev := sha("orig\n")
	for _, st := range steps {
		require.Len(t, st.Changes, 1)
		assert.Equal(t, prev, st.Changes[0].Before.SHA256, "step %d starts where the one before ended", st.N)
		prev = st.Changes[0].After.SHA256
	}
	assert.Equal(t, sha(file(t, s, "x.txt")), prev, "the last step left what the file holds")

	after6 := steps[5].Changes[0].After.SHA256
	call(t, s, conv, "rewind", `{"to_step":6}`)
	assert.Equal(t, after6, sha(file(t, s, "x.txt")), "the bytes right after step 6")
}

// TestAFileChangedAfterTheCopyIsNeverRecordedWrong: another writer changes
// the file between the plugin's copy and the mutation (a guard outside the
// plugin's plays it): the mutation is refused rather than recorded with
// bytes before that it did not replace, and the other writer's bytes stay.
func TestAFileChangedAfterTheCopyIsNeverRecordedWrong(t *testing.T) {
	t.Setenv("DSH_STATE_DIR", t.TempDir())
	for _, tool := range []string{"write", "edit", "delete"} {
		t.Run(tool, func(t *testing.T) {
			s := stacktest.New(t, stacktest.Options{NoPolicy: true, Checkpoint: map[string]any{}})
			conv := s.Conversation("c")
			put(t, s, "x.txt", "orig\n")
			var once sync.Once
			intrude := func(context.Context) {
				once.Do(func() { require.NoError(t, os.WriteFile(filepath.Join(s.W, "x.txt"), []byte("theirs\n"), 0o644)) })
			}
			var err error
			switch tool {
			case "write":
				_, err = events.FSWriteIntent.On(s.Host.Root(), func(ctx context.Context, req events.IntentRequest, next host.Next[*fsapi.WriteIntent]) (*fsapi.WriteIntent, error) {
					res, err := next(ctx)
					intrude(ctx)
					return res, err
				}, host.Prepend())
			case "edit":
				_, err = events.FSEditIntent.On(s.Host.Root(), func(ctx context.Context, req events.IntentRequest, next host.Next[*fsapi.EditGuard]) (*fsapi.EditGuard, error) {
					res, err := next(ctx)
					intrude(ctx)
					return res, err
				}, host.Prepend())
			case "delete":
				_, err = events.FSRemoveIntent.On(s.Host.Root(), func(ctx context.Context, req events.IntentRequest, next host.Next[*fsapi.RemoveGuard]) (*fsapi.RemoveGuard, error) {
					res, err := next(ctx)
					intrude(ctx)
					return res, err
				}, host.Prepend())
			}
			require.NoError(t, err)
			args := map[string]string{
				"write":  `{"file_path":"x.txt","content":"mine\n"}`,
				"edit":   `{"file_path":"x.txt","old_string":"\n","new_string":"!\n"}`,
				"delete": `{"path":"x.txt"}`,
			}[tool]
			res := s.Call(t.Context(), conv, tool, args)
			require.True(t, res.IsError, res.Text())
			assert.Contains(t, res.Text(), "changed since it was read")
			assert.Equal(t, "theirs\n", file(t, s, "x.txt"))
			call(t, s, conv, "checkpoints", `{}`)
			for _, st := range journal(t, s) {
				for _, c := range st.Changes {
					assert.NotEqual(t, sha("orig\n"), c.Before.SHA256, "step %d claims to have replaced bytes it did not", st.N)
				}
			}
			// The next call copies what is there.
			res = s.Call(t.Context(), conv, tool, args)
			require.False(t, res.IsError, res.Text())
			call(t, s, conv, "checkpoints", `{}`)
			steps := journal(t, s)
			require.Len(t, steps, 1)
			assert.Equal(t, sha("theirs\n"), steps[0].Changes[0].Before.SHA256, "step "+strconv.FormatInt(steps[0].N, 10))
		})
	}
}

// TestAStepTheStoreRefusesIsListedAndNamed: the store cannot take a step
// (its journal is not a file for a while): the call itself lands, the
// step is listed as not stored with why, and a rewind over the file says
// which call changed it instead of blaming someone else.
func TestAStepTheStoreRefusesIsListedAndNamed(t *testing.T) {
	s := stack(t, nil)
	conv := s.Conversation("c")
	put(t, s, "a.txt", "v0\n")
	call(t, s, conv, "read", `{"file_path":"a.txt"}`)
	call(t, s, conv, "write", `{"file_path":"a.txt","content":"v1\n"}`)
	call(t, s, conv, "checkpoints", `{}`)
	j := filepath.Join(checkpoint.Key.Must(s.Host.Root()).Dir(), "steps.jsonl")
	require.NoError(t, os.Rename(j, j+".aside"))
	require.NoError(t, os.Mkdir(j, 0o700))
	call(t, s, conv, "write", `{"file_path":"a.txt","content":"v2\n"}`)
	res := s.Call(t.Context(), conv, "checkpoints", `{}`)
	require.True(t, res.IsError, "the store cannot be read: %s", res.Text())
	require.NoError(t, os.Remove(j))
	require.NoError(t, os.Rename(j+".aside", j))

	list := call(t, s, conv, "checkpoints", `{}`)
	lines := strings.Split(list, "\n")
	require.Len(t, lines, 2, list)
	assert.Regexp(t, `^1 .* write `, lines[0])
	assert.Regexp(t, `^not stored: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ write `+regexp.QuoteMeta(filepath.Join(s.W, "a.txt"))+`: checkpoint store: .*is a directory$`, lines[1])
	out := call(t, s, conv, "rewind", `{"to_step":0}`)
	assert.Regexp(t, `left alone .*a.txt: changed since step 1 by a call whose step was not stored \(checkpoint store: .*is a directory\)`, out)
	assert.Equal(t, "v2\n", file(t, s, "a.txt"))
	out = call(t, s, conv, "rewind", `{"to_step":1}`)
	assert.Regexp(t, `^nothing was changed: every file is as at step 1 or was left alone\nleft alone .*a.txt: changed by a call whose step was not stored \(checkpoint store: .*is a directory\)$`, out,
		"a file only lost steps changed after the step is listed, not 'nothing to rewind'")

	// A stored step after the lost one found the lost call's bytes, not
	// the file at step 1: still left alone, never put back to them.
	call(t, s, conv, "write", `{"file_path":"a.txt","content":"v3\n"}`)
	out = call(t, s, conv, "rewind", `{"to_step":1}`)
	assert.Regexp(t, `left alone .*a.txt: changed by a call whose step was not stored \(checkpoint store: .*is a directory\)`, out)
	assert.Equal(t, "v3\n", file(t, s, "a.txt"))

	// Once the store took a step again, it holds the record: another
	// server (the CLI) lists it and keeps to the same rule.
	b := stacktest.New(t, stacktest.Options{W: s.W, Checkpoint: map[string]any{}})
	svc := checkpoint.Key.Must(b.Host.Root())
	all, err := svc.Lines(t.Context())
	require.NoError(t, err)
	assert.Regexp(t, `^not stored: \S+Z write `+regexp.QuoteMeta(filepath.Join(s.W, "a.txt"))+`: checkpoint store: .*is a directory$`, all[len(all)-1])
	rw, err := svc.Rewind(t.Context(), &tools.Exec{CallID: "r", Tool: "rewind", Conv: b.Conversation("cli")}, 1, nil)
	require.NoError(t, err)
	require.Len(t, rw.Left, 1, rw.Text())
	assert.Regexp(t, `^changed by a call whose step was not stored \(checkpoint store: .*is a directory\)$`, rw.Left[0].Why)
	assert.Equal(t, "v3\n", file(t, s, "a.txt"))
}

// TestContentTheStoreCannotKeepIsNotRestorable: the store cannot write
// content (its blobs directory is a file for a while, as a full disk
// refuses it): the step is stored without it, marked not restorable, and
// the steps around it still rewind.
func TestContentTheStoreCannotKeepIsNotRestorable(t *testing.T) {
	s := stack(t, nil)
	conv := s.Conversation("c")
	put(t, s, "a.txt", "v0\n")
	call(t, s, conv, "read", `{"file_path":"a.txt"}`)
	call(t, s, conv, "write", `{"file_path":"a.txt","content":"v1\n"}`)
	call(t, s, conv, "checkpoints", `{}`)
	blobs := filepath.Join(checkpoint.Key.Must(s.Host.Root()).Dir(), "blobs")
	require.NoError(t, os.Rename(blobs, blobs+".aside"))
	require.NoError(t, os.WriteFile(blobs, nil, 0o600))
	call(t, s, conv, "write", `{"file_path":"a.txt","content":"v2\n"}`)
	list := call(t, s, conv, "checkpoints", `{}`)
	require.NoError(t, os.Remove(blobs))
	require.NoError(t, os.Rename(blobs+".aside", blobs))
	assert.Regexp(t, `(?m)^2 .* write .*a.txt \+1 -1 \(not restorable: the store could not keep it: not a directory\)$`, list)

	out := call(t, s, conv, "rewind", `{"to_step":1}`)
	assert.Contains(t, out, "left alone "+filepath.Join(s.W, "a.txt")+": not restorable: the store could not keep it: not a directory")
	out = call(t, s, conv, "rewind", `{"to_step":0}`)
	assert.Contains(t, out, "restored "+filepath.Join(s.W, "a.txt"), "step 2 still says what it left")
	assert.Equal(t, "v0\n", file(t, s, "a.txt"))
}

// TestARewindCutShortIsUndoneOrFinishedLater: a rewind stops between its
// files (as a crash would stop it: its step stored, one file restored,
// the others not, no completion); another server on the same workspace
// lists the step as not completed, undoes it, and then finishes the
// rewind, file by file as the tools left them.
func TestARewindCutShortIsUndoneOrFinishedLater(t *testing.T) {
	t.Setenv("DSH_STATE_DIR", t.TempDir())
	a := stacktest.New(t, stacktest.Options{Checkpoint: map[string]any{}})
	conv := a.Conversation("c")
	for i := range 3 {
		name := fmt.Sprintf("f%d.txt", i)
		put(t, a, name, "v0\n")
		call(t, a, conv, "read", `{"file_path":"`+name+`"}`)
		call(t, a, conv, "write", `{"file_path":"`+name+`","content":"v1\n"}`)
	}
	reached, release := make(chan struct{}), make(chan struct{})
	n := 0
	_, err := events.FSWriteIntent.On(a.Host.Root(), func(ctx context.Context, req events.IntentRequest, next host.Next[*fsapi.WriteIntent]) (*fsapi.WriteIntent, error) {
		if req.Rewind {
			if n++; n == 2 {
				close(reached)
				<-release
				return nil, errors.New("stopped")
			}
		}
		return next(ctx)
	}, host.Prepend())
	require.NoError(t, err)
	done := make(chan string)
	go func() { done <- a.Call(context.Background(), conv, "rewind", `{"to_step":0}`).Text() }()
	<-reached
	assert.Equal(t, []string{"v0\n", "v1\n", "v1\n"}, []string{file(t, a, "f0.txt"), file(t, a, "f1.txt"), file(t, a, "f2.txt")})

	b := stacktest.New(t, stacktest.Options{W: a.W, Checkpoint: map[string]any{}})
	svc := checkpoint.Key.Must(b.Host.Root())
	lines, err := svc.Lines(t.Context())
	require.NoError(t, err)
	require.Len(t, lines, 4)
	assert.Regexp(t, `^4 .* c rewind .*f0.txt \+1 -1; .*f1.txt \+1 -1; .*f2.txt \+1 -1 \(not completed\)$`, lines[3])

	exec := &tools.Exec{CallID: "undo", Tool: "rewind", Conv: b.Conversation("cli")}
	rw, err := svc.Rewind(t.Context(), exec, 3, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(a.W, "f0.txt")}, rw.Restored, rw.Text())
	assert.Len(t, rw.Unchanged, 2, rw.Text())
	assert.Equal(t, []string{"v1\n", "v1\n", "v1\n"}, []string{file(t, a, "f0.txt"), file(t, a, "f1.txt"), file(t, a, "f2.txt")})

	rw, err = svc.Rewind(t.Context(), exec, 0, nil)
	require.NoError(t, err)
	assert.Len(t, rw.Restored, 3, rw.Text())
	assert.Empty(t, rw.Left, rw.Text())
	assert.Equal(t, []string{"v0\n", "v0\n", "v0\n"}, []string{file(t, a, "f0.txt"), file(t, a, "f1.txt"), file(t, a, "f2.txt")})

	close(release)
	out := <-done
	assert.Contains(t, out, "left alone", "the first server's rewind ends without touching what the second put back")
	assert.Equal(t, []string{"v0\n", "v0\n", "v0\n"}, []string{file(t, a, "f0.txt"), file(t, a, "f1.txt"), file(t, a, "f2.txt")})
	lines, err = svc.Lines(t.Context())
	require.NoError(t, err)
	assert.NotContains(t, strings.Join(lines, "\n"), "not completed")
}

// TestStepsOutOfTheOrderOfTheirChangesAreNeverRewoundAcross: two servers
// changed one file at once and their steps reached the store in the
// other order (played by swapping the numbers of two stored steps): a
// rewind to a step among them leaves the file alone instead of putting
// back bytes it never had at that step; past both, it rewinds.
func TestStepsOutOfTheOrderOfTheirChangesAreNeverRewoundAcross(t *testing.T) {
	t.Setenv("DSH_STATE_DIR", t.TempDir())
	a := stacktest.New(t, stacktest.Options{Checkpoint: map[string]any{}})
	conv := a.Conversation("c")
	put(t, a, "f.txt", "v0\n")
	call(t, a, conv, "read", `{"file_path":"f.txt"}`)
	for _, v := range []string{"A", "B", "C"} {
		call(t, a, conv, "write", `{"file_path":"f.txt","content":"`+v+`\n"}`)
	}
	call(t, a, conv, "checkpoints", `{}`)
	steps := journal(t, a)
	require.Len(t, steps, 3)
	steps[0].N, steps[1].N = 2, 1 // B's change reached the store first
	var buf strings.Builder
	for _, st := range []checkpoint.Step{steps[1], steps[0], steps[2]} {
		line, err := json.Marshal(st)
		require.NoError(t, err)
		buf.Write(append(line, '\n'))
	}
	j := filepath.Join(checkpoint.Key.Must(a.Host.Root()).Dir(), "steps.jsonl")
	require.NoError(t, os.WriteFile(j, []byte(buf.String()), 0o600))

	b := stacktest.New(t, stacktest.Options{W: a.W, Checkpoint: map[string]any{}})
	svc := checkpoint.Key.Must(b.Host.Root())
	exec := &tools.Exec{CallID: "r", Tool: "rewind", Conv: b.Conversation("cli")}
	for _, to := range []int64{1, 0} {
		rw, err := svc.Rewind(t.Context(), exec, to, nil)
		require.NoError(t, err)
		assert.Equal(t, []checkpoint.LeftAlone{{Path: filepath.Join(a.W, "f.txt"), Why: "its steps 1 and 2 are not in the order of its changes (two servers changed it)"}}, rw.Left, rw.Text())
		assert.Equal(t, "C\n", file(t, a, "f.txt"))
	}
	rw, err := svc.Rewind(t.Context(), exec, 2, nil)
	require.NoError(t, err)
	assert.Len(t, rw.Restored, 1, rw.Text())
	assert.Equal(t, "B\n", file(t, a, "f.txt"), "right after steps 1 and 2, whatever their order")
}

// TestASwapPastTheFirstLaterStepDoesNotBlockARewind: steps 3 and 4 of a
// file (of five) reached the store swapped; a rewind to step 1 still
// knows the file at step 1 and puts it back, one to step 2 (whose first
// later step is in the pair) leaves it alone.
func TestASwapPastTheFirstLaterStepDoesNotBlockARewind(t *testing.T) {
	t.Setenv("DSH_STATE_DIR", t.TempDir())
	a := stacktest.New(t, stacktest.Options{Checkpoint: map[string]any{}})
	conv := a.Conversation("c")
	put(t, a, "f.txt", "v0\n")
	call(t, a, conv, "read", `{"file_path":"f.txt"}`)
	for _, v := range []string{"A", "B", "C", "D", "E"} {
		call(t, a, conv, "write", `{"file_path":"f.txt","content":"`+v+`\n"}`)
	}
	call(t, a, conv, "checkpoints", `{}`)
	steps := journal(t, a)
	require.Len(t, steps, 5)
	steps[2].N, steps[3].N = 4, 3
	var buf strings.Builder
	for _, st := range []checkpoint.Step{steps[0], steps[1], steps[3], steps[2], steps[4]} {
		line, err := json.Marshal(st)
		require.NoError(t, err)
		buf.Write(append(line, '\n'))
	}
	require.NoError(t, os.WriteFile(filepath.Join(checkpoint.Key.Must(a.Host.Root()).Dir(), "steps.jsonl"), []byte(buf.String()), 0o600))

	b := stacktest.New(t, stacktest.Options{W: a.W, Checkpoint: map[string]any{}})
	svc := checkpoint.Key.Must(b.Host.Root())
	exec := &tools.Exec{CallID: "r", Tool: "rewind", Conv: b.Conversation("cli")}
	rw, err := svc.Rewind(t.Context(), exec, 2, nil)
	require.NoError(t, err)
	assert.Equal(t, []checkpoint.LeftAlone{{Path: filepath.Join(a.W, "f.txt"), Why: "its steps 3 and 4 are not in the order of its changes (two servers changed it)"}}, rw.Left, rw.Text())
	rw, err = svc.Rewind(t.Context(), exec, 1, nil)
	require.NoError(t, err)
	assert.Len(t, rw.Restored, 1, rw.Text())
	assert.Equal(t, "A\n", file(t, a, "f.txt"))
}

// TestAServerThatStopsRecordsTheStepsTheStoreRefused: a server whose last
// step the store refused writes it to the store as it stops, so the next
// process lists it.
func TestAServerThatStopsRecordsTheStepsTheStoreRefused(t *testing.T) {
	s := stack(t, nil)
	conv := s.Conversation("c")
	call(t, s, conv, "write", `{"file_path":"a.txt","content":"v1\n"}`)
	call(t, s, conv, "checkpoints", `{}`)
	j := filepath.Join(checkpoint.Key.Must(s.Host.Root()).Dir(), "steps.jsonl")
	require.NoError(t, os.Rename(j, j+".aside"))
	require.NoError(t, os.Mkdir(j, 0o700))
	call(t, s, conv, "write", `{"file_path":"a.txt","content":"v2\n"}`)
	_ = s.Call(t.Context(), conv, "checkpoints", `{}`) // the step is refused
	require.NoError(t, os.Remove(j))
	require.NoError(t, os.Rename(j+".aside", j))
	require.NoError(t, s.Host.Shutdown(t.Context()))

	b := stacktest.New(t, stacktest.Options{W: s.W, Checkpoint: map[string]any{}})
	all, err := checkpoint.Key.Must(b.Host.Root()).Lines(t.Context())
	require.NoError(t, err)
	require.Len(t, all, 2, strings.Join(all, "\n"))
	assert.Regexp(t, `^not stored: \S+Z write `+regexp.QuoteMeta(filepath.Join(s.W, "a.txt"))+`: checkpoint store: .*is a directory$`, all[1])
}
