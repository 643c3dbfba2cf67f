package fslocal

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// What each op refuses (the protected-files decision): a change of a file
// or below a protected directory, a move or delete of a directory holding
// one, and, for a read, only a secret; the identity matches any name.
func TestRefusalRules(t *testing.T) {
	files := []fsapi.ProtectedFile{
		{Kind: fsapi.ProtectConfig, Real: "/w/dsh.yaml", Dev: 1, Ino: 10, HasID: true},
		{Kind: fsapi.ProtectState, Real: "/w/data"},
		{Kind: fsapi.ProtectSecret, Real: "/w/tls/key.pem", Dev: 1, Ino: 20, HasID: true},
	}
	target := func(key string) fsapi.Target { return fsapi.Target{Key: key, DisplayPath: key} }
	for _, tc := range []struct {
		key, op string
		id      *fileID
		want    string // "" for no refusal
	}{
		{"/w/dsh.yaml", "write", nil, `cannot write "/w/dsh.yaml": it is a deployment file of this server; no sandbox mode allows changing it (only the operator edits it)`},
		{"/w/dsh.yaml", "read", nil, ""},
		{"/w/other.yaml", "edit", &fileID{1, 10}, `cannot edit "/w/other.yaml": it is a deployment file of this server; no sandbox mode allows changing it (only the operator edits it)`},
		{"/w/other.yaml", "edit", &fileID{2, 10}, ""},
		{"/w/data/x/y.db", "insert into", nil, `cannot insert into "/w/data/x/y.db": it is a file this server keeps for itself; no sandbox mode allows changing it (only the operator edits it)`},
		{"/w/database", "write", nil, ""},
		{"/w", "delete", nil, `cannot delete "/w": it is a file this server keeps for itself; no sandbox mode allows changing it (only the operator edits it)`},
		{"/w/tls", "move", nil, `cannot move "/w/tls": it is a file this server keeps for itself; no sandbox mode allows changing it (only the operator edits it)`},
		{"/w/tls", "write", nil, ""},
		{"/w/tls/key.pem", "read", nil, `cannot read "/w/tls/key.pem": it is a file this server keeps for itself; no sandbox mode allows changing it (only the operator edits it)`},
		{"/w/copy.pem", "read", &fileID{1, 20}, `cannot read "/w/copy.pem": it is a file this server keeps for itself; no sandbox mode allows changing it (only the operator edits it)`},
	} {
		fs := files
		if tc.op == "read" {
			fs = files[2:]
		}
		err := refusal(fs, target(tc.key), tc.op, tc.id)
		if tc.want == "" {
			assert.NoError(t, err, "%s %s", tc.op, tc.key)
			continue
		}
		assert.EqualError(t, err, tc.want, "%s %s", tc.op, tc.key)
		assert.True(t, fsapi.HasCode(err, fsapi.CodeProtected))
	}
}
