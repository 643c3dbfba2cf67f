package fslocal

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// tree is where every file operation after Resolve happens (contract
// §3.10). Without confinement it is the whole filesystem and names are the
// absolute keys. With confinement it is an os.Root opened on the canonical
// root: a name is the key made relative to the root, and the kernel-backed
// walk of os.Root refuses any component, ".." or symlink that would leave
// it, so a symlink swapped in after Resolve cannot redirect an operation
// outside ("path escapes from parent", reported as FS_SANDBOX_DENIED).
//
// Keys are real paths, so os.Root's refusal of absolute symlinks never hits
// a key: only a dangling link as the final component, which stat handles
// (see Provider.statKey), or a link swapped in by a race, which is refused.
type tree struct {
	root *os.Root // nil when confinement is off
	base string   // canonical root path; "" when confinement is off
}

// inside reports whether the absolute, clean path p is base or lies under
// it. With confinement off everything is inside.
func (t *tree) inside(p string) bool {
	return within(t.base, p)
}

// within reports whether the clean absolute path p is base or under it; an
// empty base contains everything.
func within(base, p string) bool {
	switch {
	case base == "" || base == "/":
		return true
	case p == base:
		return true
	}
	return strings.HasPrefix(p, base) && p[len(base)] == '/'
}

// name returns the name of the absolute key abs in the tree: abs itself, or
// abs relative to the root ("." for the root). A key outside the root is
// refused with errEscapes.
func (t *tree) name(abs string) (string, error) {
	if t.root == nil {
		return abs, nil
	}
	if !t.inside(abs) {
		return "", &fs.PathError{Op: "open", Path: abs, Err: errEscapes}
	}
	if abs == t.base {
		return ".", nil
	}
	return abs[len(t.base)+1:], nil
}

func (t *tree) stat(abs string) (fs.FileInfo, error) {
	n, err := t.name(abs)
	if err != nil {
		return nil, err
	}
	if t.root == nil {
		return os.Stat(n)
	}
	return t.root.Stat(n)
}

func (t *tree) lstat(abs string) (fs.FileInfo, error) {
	n, err := t.name(abs)
	if err != nil {
		return nil, err
	}
	if t.root == nil {
		return os.Lstat(n)
	}
	return t.root.Lstat(n)
}

func (t *tree) openFile(abs string, flag int, perm fs.FileMode) (*os.File, error) {
	n, err := t.name(abs)
	if err != nil {
		return nil, err
	}
	if t.root == nil {
		return os.OpenFile(n, flag, perm)
	}
	return t.root.OpenFile(n, flag, perm)
}

// openDir opens the directory abs as its own os.Root, so that its children
// are examined one name at a time (fstatat) without re-walking abs.
func (t *tree) openDir(abs string) (*os.Root, error) {
	n, err := t.name(abs)
	if err != nil {
		return nil, err
	}
	if t.root == nil {
		return os.OpenRoot(n)
	}
	return t.root.OpenRoot(n)
}

func (t *tree) mkdirAll(abs string, perm fs.FileMode) error {
	n, err := t.name(abs)
	if err != nil {
		return err
	}
	if t.root == nil {
		return os.MkdirAll(n, perm)
	}
	if n == "." {
		return nil
	}
	return t.root.MkdirAll(n, perm)
}

func (t *tree) rename(oldAbs, newAbs string) error {
	o, err := t.name(oldAbs)
	if err != nil {
		return err
	}
	n, err := t.name(newAbs)
	if err != nil {
		return err
	}
	if t.root == nil {
		return os.Rename(o, n)
	}
	return t.root.Rename(o, n)
}

// link makes newAbs a hard link to oldAbs; it fails with EEXIST when
// newAbs exists, and never replaces it.
func (t *tree) link(oldAbs, newAbs string) error {
	o, err := t.name(oldAbs)
	if err != nil {
		return err
	}
	n, err := t.name(newAbs)
	if err != nil {
		return err
	}
	if t.root == nil {
		return os.Link(o, n)
	}
	return t.root.Link(o, n)
}

func (t *tree) remove(abs string) error {
	n, err := t.name(abs)
	if err != nil {
		return err
	}
	if t.root == nil {
		return os.Remove(n)
	}
	return t.root.Remove(n)
}

// close releases the root handle, if any.
func (t *tree) close() error {
	if t.root == nil {
		return nil
	}
	return t.root.Close()
}

// canonicalRoot makes the configured root absolute and canonical (realpath)
// and checks it is an existing directory (contract §3.10).
func canonicalRoot(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", ErrRootNotDirectory
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", ErrRootNotDirectory
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.IsDir() {
		return "", ErrRootNotDirectory
	}
	return real, nil
}
