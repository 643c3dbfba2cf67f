package checkpoint_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/checkpoint"
)

// snapshotOf returns every file of the workspace with its bytes.
func snapshotOf(t *testing.T, w string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(w, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p[len(w)+1:]] = string(b)
		return err
	}))
	return out
}

// TestAScriptedSessionRewindsToThreeSteps: 50 mixed mutations (write,
// edit, multi-step edits, move, delete) over 20 files, rewound to three
// steps: each time the files the session touched are byte-identical to
// their state at that step, untouched files and a file another writer
// changed are left alone, and the rewind itself is rewound.
func TestAScriptedSessionRewindsToThreeSteps(t *testing.T) {
	s := stack(t, nil)
	conv := s.Conversation("agent")
	rng := rand.New(rand.NewPCG(31, 7))
	for i := range 20 {
		put(t, s, fmt.Sprintf("f%02d.txt", i), fmt.Sprintf("file %d\r\nline two\n", i))
	}
	put(t, s, "untouched.txt", "never changed\n")
	for i := range 20 {
		call(t, s, conv, "read", fmt.Sprintf(`{"file_path":"f%02d.txt"}`, i))
	}
	states := map[int]map[string]string{0: snapshotOf(t, s.W)}
	live := map[int]bool{}
	for i := range 20 {
		live[i] = true
	}
	for step := 1; step <= 50; step++ {
		i := rng.IntN(20)
		name := fmt.Sprintf("f%02d.txt", i)
		switch {
		case !live[i]:
			call(t, s, conv, "write", fmt.Sprintf(`{"file_path":%q,"content":"recreated at %d\n"}`, name, step))
			live[i] = true
		case step%10 == 0:
			call(t, s, conv, "delete", fmt.Sprintf(`{"path":%q}`, name))
			live[i] = false
		case step%7 == 0:
			j := (i + 1) % 20
			if live[j] {
				call(t, s, conv, "read", fmt.Sprintf(`{"file_path":"f%02d.txt"}`, j))
			}
			call(t, s, conv, "move", fmt.Sprintf(`{"source":%q,"destination":"f%02d.txt","overwrite":true}`, name, j))
			live[i], live[j] = false, true
		case step%2 == 0:
			call(t, s, conv, "write", fmt.Sprintf(`{"file_path":%q,"content":"written at %d\n"}`, name, step))
		default:
			call(t, s, conv, "edit", fmt.Sprintf(`{"file_path":%q,"old_string":"\n","new_string":"\n%d\n","replace_all":true}`, name, step))
		}
		states[step] = snapshotOf(t, s.W)
	}
	require.Len(t, steps(t, s, conv), 50)

	// The store against the bytes changed: it holds each distinct content
	// of the touched files once (the first bytes and every version the
	// session made), and the journal.
	changed, distinct := 0, map[string]bool{}
	for step := 1; step <= 50; step++ {
		for name, text := range states[step] {
			if prev, ok := states[step-1][name]; !ok || prev != text {
				changed += len(text)
				distinct[text] = true
				if ok {
					distinct[prev] = true
				}
			}
		}
		for name, prev := range states[step-1] {
			if _, ok := states[step][name]; !ok {
				distinct[prev] = true // deleted or moved away
			}
		}
	}
	most := 0
	for text := range distinct {
		most += len(text)
	}
	dir := checkpoint.Key.Must(s.Host.Root()).Dir()
	blobs := treeBytes(t, filepath.Join(dir, "blobs"))
	t.Logf("scripted session: %d bytes written by the tools, %d distinct contents %d bytes; store: blobs %d bytes, journal %d bytes, all %d bytes",
		changed, len(distinct), most, blobs, treeBytes(t, dir)-blobs, storeBytes(t, s))
	assert.LessOrEqual(t, blobs, int64(most), "each content is stored once")
	put(t, s, "f00.txt", "another writer's bytes\n") // another process
	other := "f00.txt"

	for _, to := range []int{37, 12, 0} {
		out := call(t, s, conv, "rewind", fmt.Sprintf(`{"to_step":%d}`, to))
		got := snapshotOf(t, s.W)
		want := states[to]
		for name, text := range want {
			if name == other {
				continue
			}
			assert.Equal(t, text, got[name], "%s at step %d (%s)", name, to, out)
		}
		for name := range got {
			if _, ok := want[name]; !ok && name != other {
				t.Errorf("%s exists, but not at step %d", name, to)
			}
		}
		assert.Equal(t, "another writer's bytes\n", got[other], "never overwritten")
		assert.Equal(t, "never changed\n", got["untouched.txt"])
	}
	// Undo the last rewind (to 0): back to the state after the rewind to 12.
	lines := steps(t, s, conv)
	last := lines[len(lines)-1]
	prev := lines[len(lines)-2]
	out := call(t, s, conv, "rewind", `{"to_step":`+prev+`}`)
	assert.Contains(t, out, "rewound to step "+prev)
	got := snapshotOf(t, s.W)
	for name, text := range states[12] {
		if name != other {
			assert.Equal(t, text, got[name], "%s after undoing step %s", name, last)
		}
	}
}
