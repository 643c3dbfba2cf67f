package cmd_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// versions are the contents the kill test writes: any file must hold one
// of them whole, or its first content.
func versions(n int) map[string]bool {
	out := map[string]bool{}
	for v := range n {
		out[strings.Repeat(fmt.Sprintf("version %d\n", v), 100_000)] = true
	}
	return out
}

// checkStore fails t unless every line of the store's journal is a whole
// step and every content a step names is there with its SHA-256 (the
// limits are far above what the test writes, so nothing is evicted).
func checkStore(t *testing.T, state string) int {
	t.Helper()
	journals, _ := filepath.Glob(filepath.Join(state, "checkpoints", "*", "steps.jsonl"))
	require.Len(t, journals, 1)
	data, err := os.ReadFile(journals[0])
	require.NoError(t, err)
	require.True(t, len(data) == 0 || data[len(data)-1] == '\n', "no torn line once a command ran")
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s struct {
			Changes []struct{ Before, After struct{ SHA256 string } }
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &s), sc.Text())
		for _, c := range s.Changes {
			for _, sum := range []string{c.Before.SHA256, c.After.SHA256} {
				if sum == "" {
					continue
				}
				b, err := os.ReadFile(filepath.Join(filepath.Dir(journals[0]), "blobs", sum[:2], sum))
				require.NoError(t, err, "a step names content that is not there")
				got := sha256.Sum256(b)
				require.Equal(t, sum, hex.EncodeToString(got[:]))
			}
		}
		n++
	}
	return n
}

// TestAKillNeverTearsAFileOrTheStore: dshhost is SIGKILLed in the middle
// of a script of 1 MB writes, and then in the middle of a rewind: every
// file holds one whole version, the store's steps are whole and name only
// content that is there, and the next rewind completes.
func TestAKillNeverTearsAFileOrTheStore(t *testing.T) {
	if testing.Short() {
		t.Skip("kills dshhost processes")
	}
	w, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	state := t.TempDir()
	env := []string{"DSH_STATE_DIR=" + state}
	vs := versions(8)
	var script strings.Builder
	for i := range 5 {
		require.NoError(t, os.WriteFile(filepath.Join(w, fmt.Sprintf("f%d.txt", i)), []byte(strings.Repeat("version 0\n", 100_000)), 0o644))
		fmt.Fprintf(&script, `{"tool":"read","args":{"file_path":"f%d.txt","limit":1}}`+"\n", i)
	}
	for k := range 60 {
		content := strings.Repeat(fmt.Sprintf("version %d\n", 1+k%7), 100_000)
		arg, _ := json.Marshal(map[string]any{"file_path": fmt.Sprintf("f%d.txt", k%5), "content": content})
		fmt.Fprintf(&script, `{"tool":"write","args":%s}`+"\n", arg)
	}
	// kill starts dshhost and SIGKILLs it once ready() holds (or at
	// once when the process ends first).
	kill := func(args []string, stdin string, ready func() bool) {
		c := exec.Command(binary, args...)
		c.Dir = w
		c.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}, env...)
		c.Stdin = strings.NewReader(stdin)
		require.NoError(t, c.Start())
		done := make(chan struct{})
		go func() { _ = c.Wait(); close(done) }()
		for deadline := time.Now().Add(30 * time.Second); !ready() && time.Now().Before(deadline); {
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
		_ = c.Process.Kill()
		<-done
	}
	journalLines := func() int {
		journals, _ := filepath.Glob(filepath.Join(state, "checkpoints", "*", "steps.jsonl"))
		if len(journals) == 0 {
			return 0
		}
		b, _ := os.ReadFile(journals[0])
		return bytes.Count(b, []byte("\n"))
	}
	files := func() {
		for i := range 5 {
			b, err := os.ReadFile(filepath.Join(w, fmt.Sprintf("f%d.txt", i)))
			require.NoError(t, err)
			assert.True(t, vs[string(b)], "f%d.txt holds one whole version (%d bytes)", i, len(b))
		}
	}
	kill([]string{"run", "-"}, script.String(), func() bool { return journalLines() >= 3 })
	files()
	res := dshhost(t, w, "", env, "checkpoints")
	require.Equal(t, 0, res.code, res.stderr)
	before := checkStore(t, state)
	require.Greater(t, before, 0, "some writes landed before the kill")

	// In the middle of the rewind: once it restored its first file.
	written := journalLines()
	kill([]string{"rewind", "0"}, "", func() bool {
		b, _ := os.ReadFile(filepath.Join(w, "f0.txt"))
		b1, _ := os.ReadFile(filepath.Join(w, "f1.txt"))
		return journalLines() > written || string(b) == strings.Repeat("version 0\n", 100_000) || string(b1) == strings.Repeat("version 0\n", 100_000)
	})
	files()
	res = dshhost(t, w, "", env, "checkpoints")
	require.Equal(t, 0, res.code, res.stderr)
	checkStore(t, state)
	res = dshhost(t, w, "", env, "rewind", "0")
	// The killed rewind may have put back every file before it died.
	assert.Regexp(t, `^(rewound to step 0: |nothing was changed: every file is as at step 0)`, res.stdout, res.stdout+res.stderr)
	files()
	// A kill can lose the step of the write it interrupted
	// (docs/checkpoints.md): that file's bytes are then not what the store
	// last recorded, so the rewind leaves it alone and says so. A rewind's
	// step is stored before it restores anything, so the killed rewind
	// loses nothing: every other file is back to its first bytes.
	left := 0
	for i := range 5 {
		p := filepath.Join(w, fmt.Sprintf("f%d.txt", i))
		b, _ := os.ReadFile(p)
		if string(b) == strings.Repeat("version 0\n", 100_000) {
			continue
		}
		left++
		assert.Contains(t, res.stdout, "left alone "+p+": changed since step", "f%d.txt is either back or listed", i)
	}
	assert.LessOrEqual(t, left, 1, "only the step of the write the first kill interrupted is lost")
	checkStore(t, state)
}
