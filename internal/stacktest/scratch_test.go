package stacktest_test

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// reserved is the end of the refusal of a name of fslocal's scratch form.
const reserved = `": the name is reserved for this server's scratch files (staged writes and interrupted rewrites); choose another name`

// No tool creates, writes or edits a file whose name has the form of
// fslocal's scratch files (a staging file, the marked copy of an in-place
// rewrite), so a model cannot forge the copy a crash recovery would apply.
// The policy is off: the refusal comes before any intent.
func TestScratchNamesAreRefused(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{NoPolicy: true, ToolFS: map[string]any{"multiEdit": true}, ToolEditor: map[string]any{}})
	id := uuid.NewSHA1(uuid.NameSpaceURL, []byte("a.txt")).String()
	names := []string{".a.txt." + id + ".dsh-rewrite", ".a.txt." + uuid.NewString() + ".dsh-tmp"}
	conv := s.Conversation("scratch")
	for _, name := range names {
		for _, tc := range []struct{ tool, args, want string }{
			{"write", `{"file_path":"` + name + `","content":"x"}`, `cannot write "` + s.W + "/" + name + reserved},
			{"str_replace_editor", `{"command":"create","path":"` + name + `","file_text":"x"}`, `cannot write "` + s.W + "/" + name + reserved},
		} {
			res := s.Call(t.Context(), conv, tc.tool, tc.args)
			assert.Equal(t, "Error: "+tc.want, res.Text(), tc.args)
			assert.Equal(t, "FS_PROTECTED", res.Code(), tc.args)
			assert.NoFileExists(t, filepath.Join(s.W, name))
		}
	}
	// An existing file of that form (planted by someone else) is not edited either.
	write(t, s, names[1], "x\n")
	require.NoError(t, os.Symlink(names[1], filepath.Join(s.W, "link")))
	for _, tc := range []struct{ tool, args, want string }{
		{"edit", `{"file_path":"` + names[1] + `","old_string":"x","new_string":"y"}`, `cannot edit "`},
		{"multi_edit", `{"file_path":"` + names[1] + `","edits":[{"old_string":"x","new_string":"y"}]}`, `cannot edit "`},
		{"str_replace_editor", `{"command":"insert","path":"` + names[1] + `","insert_line":0,"new_str":"y"}`, `cannot insert into "`},
	} {
		res := s.Call(t.Context(), conv, tc.tool, tc.args)
		assert.Equal(t, "Error: "+tc.want+s.W+"/"+names[1]+reserved, res.Text(), tc.args)
	}
	assert.Equal(t, "x\n", read(t, s, names[1]))
	res := s.Call(t.Context(), conv, "write", `{"file_path":"link","content":"y"}`)
	assert.Equal(t, `Error: cannot write "`+s.W+"/link"+reserved, res.Text(), "through a symlink, by the real name")
	assert.Equal(t, "x\n", read(t, s, names[1]))
}

// The crash recovery never writes a protected file: a marked copy beside a
// deployment file, matching its device and inode (as a forger who guessed
// them would make it), is not applied by a read of that file.
func TestRecoveryNeverRewritesAProtectedFile(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{NoPolicy: true})
	old := "plugins:\n  - name: fslocal\n"
	write(t, s, "dsh.yaml", old)
	s.Protected.Add(fsapi.ProtectConfig, filepath.Join(s.W, "dsh.yaml"))
	fi, err := os.Stat(filepath.Join(s.W, "dsh.yaml"))
	require.NoError(t, err)
	st := fi.Sys().(*syscall.Stat_t)
	forged := strings.Replace(old, "fslocal\n", "fslocal\n    config: {root: /}\n", 1)
	hdr := fmt.Sprintf("dsh-rewrite 1\ndev %d\nino %d\nversion x\nnew %d\nold %d\nsha256 %x\nprogress w %020d %020d\n\n",
		st.Dev, st.Ino, len(forged), len(old), sha256.Sum256([]byte(forged)), 0, len(forged))
	name := ".dsh.yaml." + uuid.NewSHA1(uuid.NameSpaceURL, []byte("dsh.yaml")).String() + ".dsh-rewrite"
	write(t, s, name, hdr+forged+old)

	res := s.Call(t.Context(), s.Conversation("forge"), "read", `{"file_path":"dsh.yaml"}`)
	assert.False(t, res.IsError, res.Text())
	assert.Equal(t, old, read(t, s, "dsh.yaml"), "the protected file is not rewritten")
}
