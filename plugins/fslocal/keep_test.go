package fslocal_test

import (
	"context"
	"encoding/binary"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// aclBlob encodes a POSIX access ACL in the kernel's xattr form (version 2,
// then tag, perm, id per entry): owner rw-, user 4242 r--, group r--, mask
// r--, other ---.
func aclBlob() []byte {
	const undefined = 0xffffffff
	b := binary.LittleEndian.AppendUint32(nil, 2)
	for _, e := range []struct {
		tag, perm uint16
		id        uint32
	}{{0x01, 6, undefined}, {0x02, 4, 4242}, {0x04, 4, undefined}, {0x10, 4, undefined}, {0x20, 0, undefined}} {
		b = binary.LittleEndian.AppendUint16(b, e.tag)
		b = binary.LittleEndian.AppendUint16(b, e.perm)
		b = binary.LittleEndian.AppendUint32(b, e.id)
	}
	return b
}

// TestReplaceKeepsXattrsAndACL: a staged rewrite keeps the file's extended
// attributes and its access ACL (contract §3.7 [D19]).
func TestReplaceKeepsXattrsAndACL(t *testing.T) {
	ctx := context.Background()
	for _, confine := range []bool{false, true} {
		opts := []func(*fslocalConfig){}
		if confine {
			opts = append(opts, confined)
		}
		w := newWorkspace(t, opts...)
		p := w.file("f.txt", "old\n", 0o640)
		require.NoError(t, unix.Setxattr(p, "user.origin", []byte("checked out"), 0))
		require.NoError(t, unix.Setxattr(p, "user.empty", nil, 0))
		acl := true
		if err := unix.Setxattr(p, "system.posix_acl_access", aclBlob(), 0); err != nil {
			acl = false
			t.Logf("no POSIX ACLs on this file system (%v): checking user.* only", err)
		}
		_, err := w.p.WriteText(ctx, w.target("f.txt"), "new\n", nil)
		require.NoError(t, err)
		_, err = w.p.EditText(ctx, w.target("f.txt"), fsapi.EditRequest{OldString: "new", NewString: "newer"}, nil)
		require.NoError(t, err)
		assert.Equal(t, "newer\n", w.content("f.txt"))
		buf := make([]byte, 256)
		n, err := unix.Getxattr(p, "user.origin", buf)
		require.NoError(t, err)
		assert.Equal(t, "checked out", string(buf[:n]))
		n, err = unix.Getxattr(p, "user.empty", buf)
		require.NoError(t, err)
		assert.Zero(t, n)
		if acl {
			n, err = unix.Getxattr(p, "system.posix_acl_access", buf)
			require.NoError(t, err)
			assert.Equal(t, aclBlob(), buf[:n], "the ACL is kept")
		}
		assert.Equal(t, os.FileMode(0o640), mode(t, p))
	}
}
