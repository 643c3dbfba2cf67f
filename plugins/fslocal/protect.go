package fslocal

import (
	"context"
	"syscall"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// Refuse returns the FS_PROTECTED refusal of op on t ([fsapi.Refuser]):
// the host's protected files ([fsapi.Protected], found at apply) are
// matched by real location (t's key, which Resolve made of every spelling:
// symlinks, `..`, an NFD name of an NFC file) and by identity (the device
// and inode of the file t names now, so a hard link or a bind mount is
// matched too). A change (any op but "read") of a protected file, or of
// anything below a protected directory, is refused, and so is a move or
// delete of a directory that holds one; a read only of a ProtectSecret
// file. Without a set, or with none of the kinds op cares about, it costs
// nothing; otherwise one stat of t.
func (p *Provider) Refuse(_ context.Context, t fsapi.Target, op string) error {
	files := p.protectedFiles(op)
	if len(files) == 0 {
		return nil
	}
	var id *fileID
	if fi, err := p.statKey(t.Key); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			id = &fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}
		}
	}
	return refusal(files, t, op, id)
}

// protectedFiles returns the protected files op must be checked against:
// the ProtectSecret ones for "read", every one for a change.
func (p *Provider) protectedFiles(op string) []fsapi.ProtectedFile {
	if p.protected == nil {
		return nil
	}
	files := p.protected.Files()
	if op != "read" {
		return files
	}
	out := files[:0]
	for _, f := range files {
		if f.Kind == fsapi.ProtectSecret {
			out = append(out, f)
		}
	}
	return out
}

// fileID is a file's identity: its device and inode.
type fileID struct{ dev, ino uint64 }

// refusal matches t (whose identity is id, nil when t does not exist)
// against files for op and returns the refusal of the strongest kind
// matched, or nil.
func refusal(files []fsapi.ProtectedFile, t fsapi.Target, op string, id *fileID) error {
	var kind fsapi.ProtectKind
	for _, f := range files {
		hit := within(f.Real, t.Key) ||
			((op == "move" || op == "delete") && within(t.Key, f.Real)) ||
			(id != nil && f.HasID && id.dev == f.Dev && id.ino == f.Ino)
		if hit && f.Kind > kind {
			kind = f.Kind
		}
	}
	if kind == 0 {
		return nil
	}
	return fsapi.ErrProtected(op, t.DisplayPath, kind)
}

// refuseOpened is Refuse for a file already open for op, whose identity
// is id: no stat is made.
func (p *Provider) refuseOpened(t fsapi.Target, op string, id fileID) error {
	files := p.protectedFiles(op)
	if len(files) == 0 {
		return nil
	}
	return refusal(files, t, op, &id)
}

var _ fsapi.Refuser = (*Provider)(nil)
