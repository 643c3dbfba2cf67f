package fslocal

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
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

	dirOnce sync.Once
	dirFD   int   // the root directory's descriptor, opened on first use by rootFD (Linux)
	dirErr  error // why it could not be opened; nil with dirFD open
	dirOpen bool  // dirFD is open (any number, 0 included, may be a descriptor)
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

// longPath is the length from which an unconfined operation goes through a
// handle on "/" (component by component, relative to directory handles)
// instead of one absolute path, which the kernel refuses past PATH_MAX
// (4096 bytes) with ENAMETOOLONG (contract §3.2 [D17]).
const longPath = 4000

// slash is the handle on "/" that unconfined operations on long paths use;
// it is opened once, when first needed.
var slash = sync.OnceValues(func() (*os.Root, error) { return os.OpenRoot("/") })

// handle returns where the operation on abs happens: (nil, abs) for a plain
// absolute path; otherwise a root handle and the name relative to it (the
// confinement root, or "/" for a long unconfined path). Keys are real
// paths, so a handle on "/" sees the same file as the absolute path.
func (t *tree) handle(abs string) (*os.Root, string, error) {
	n, err := t.name(abs)
	if err != nil || t.root != nil {
		return t.root, n, err
	}
	return longHandle(abs)
}

// longHandle is handle without confinement: (nil, abs) for a short path,
// else the handle on "/" and abs without its leading slash.
func longHandle(abs string) (*os.Root, string, error) {
	if len(abs) < longPath || abs == "/" {
		return nil, abs, nil
	}
	r, err := slash()
	if err != nil {
		return nil, "", err
	}
	return r, abs[1:], nil
}

// via runs one operation on the name n: plain on the path itself when r is
// nil, else rooted through r; err (from handle) short-cuts both.
func via[T any](r *os.Root, n string, err error, plain func(string) (T, error), rooted func(*os.Root, string) (T, error)) (T, error) {
	switch {
	case err != nil:
		var zero T
		return zero, err
	case r == nil:
		return plain(n)
	}
	return rooted(r, n)
}

func (t *tree) stat(abs string) (fs.FileInfo, error) {
	r, n, err := t.handle(abs)
	return via(r, n, err, os.Stat, (*os.Root).Stat)
}

func (t *tree) lstat(abs string) (fs.FileInfo, error) {
	r, n, err := t.handle(abs)
	return via(r, n, err, os.Lstat, (*os.Root).Lstat)
}

func (t *tree) openFile(abs string, flag int, perm fs.FileMode) (*os.File, error) {
	r, n, err := t.handle(abs)
	switch {
	case err != nil:
		return nil, err
	case r == nil:
		return os.OpenFile(n, flag, perm)
	}
	return r.OpenFile(n, flag, perm)
}

// openDir opens the directory abs as its own os.Root, so that its children
// are examined one name at a time (fstatat) without re-walking abs.
func (t *tree) openDir(abs string) (*os.Root, error) {
	r, n, err := t.handle(abs)
	return via(r, n, err, os.OpenRoot, (*os.Root).OpenRoot)
}

func (t *tree) mkdirAll(abs string, perm fs.FileMode) error {
	r, n, err := t.handle(abs)
	switch {
	case err != nil:
		return err
	case r == nil:
		return os.MkdirAll(n, perm)
	case n == ".":
		return nil
	}
	return r.MkdirAll(n, perm)
}

func (t *tree) rename(oldAbs, newAbs string) error {
	r, o, n, err := t.handles(oldAbs, newAbs)
	switch {
	case err != nil:
		return err
	case r == nil:
		return os.Rename(o, n)
	}
	return r.Rename(o, n)
}

// link makes newAbs a hard link to oldAbs; it fails with EEXIST when
// newAbs exists, and never replaces it.
func (t *tree) link(oldAbs, newAbs string) error {
	r, o, n, err := t.handles(oldAbs, newAbs)
	switch {
	case err != nil:
		return err
	case r == nil:
		return os.Link(o, n)
	}
	return r.Link(o, n)
}

// handles is handle for the two names of a rename or link: one handle for
// both (through "/" when only one of two unconfined paths is long).
func (t *tree) handles(oldAbs, newAbs string) (*os.Root, string, string, error) {
	r, o, err := t.handle(oldAbs)
	if err != nil {
		return nil, "", "", err
	}
	r2, n, err := t.handle(newAbs)
	switch {
	case err != nil:
		return nil, "", "", err
	case (r == nil) != (r2 == nil):
		if r, err = slash(); err != nil {
			return nil, "", "", err
		}
		o, n = strings.TrimPrefix(oldAbs, "/"), strings.TrimPrefix(newAbs, "/")
	}
	return r, o, n, nil
}

func (t *tree) remove(abs string) error {
	r, n, err := t.handle(abs)
	switch {
	case err != nil:
		return err
	case r == nil:
		return os.Remove(n)
	}
	return r.Remove(n)
}

// lstatAny and readlinkAny probe any absolute path, inside the tree or not
// (Resolve's walk judges where links lead), through "/" when it is long.
func lstatAny(abs string) (fs.FileInfo, error) {
	r, n, err := longHandle(abs)
	return via(r, n, err, os.Lstat, (*os.Root).Lstat)
}

func readlinkAny(abs string) (string, error) {
	r, n, err := longHandle(abs)
	return via(r, n, err, os.Readlink, (*os.Root).Readlink)
}

// readNamesAny returns the names in the directory abs, inside the tree or
// not, through "/" when it is long.
func readNamesAny(abs string) ([]string, error) {
	r, n, err := longHandle(abs)
	d, err := via(r, n, err, os.Open, (*os.Root).Open)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
}

// close releases the root handle, if any.
func (t *tree) close() error {
	if t.root == nil {
		return nil
	}
	t.dirOnce.Do(func() {}) // no rootFD after close
	if t.dirOpen {
		syscall.Close(t.dirFD)
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

func (t *tree) removeAll(abs string) error {
	r, n, err := t.handle(abs)
	switch {
	case err != nil:
		return err
	case r == nil:
		return os.RemoveAll(n)
	}
	return r.RemoveAll(n)
}

func (t *tree) mkdir(abs string, perm fs.FileMode) error {
	r, n, err := t.handle(abs)
	switch {
	case err != nil:
		return err
	case r == nil:
		return os.Mkdir(n, perm)
	}
	return r.Mkdir(n, perm)
}

func (t *tree) chmod(abs string, mode fs.FileMode) error {
	r, n, err := t.handle(abs)
	switch {
	case err != nil:
		return err
	case r == nil:
		return os.Chmod(n, mode)
	}
	return r.Chmod(n, mode)
}

func (t *tree) chtimes(abs string, atime, mtime time.Time) error {
	r, n, err := t.handle(abs)
	switch {
	case err != nil:
		return err
	case r == nil:
		return os.Chtimes(n, atime, mtime)
	}
	return r.Chtimes(n, atime, mtime)
}

func (t *tree) readlink(abs string) (string, error) {
	r, n, err := t.handle(abs)
	return via(r, n, err, os.Readlink, (*os.Root).Readlink)
}

// symlink makes newAbs a symlink whose text is text.
func (t *tree) symlink(text, newAbs string) error {
	r, n, err := t.handle(newAbs)
	switch {
	case err != nil:
		return err
	case r == nil:
		return os.Symlink(text, n)
	}
	return r.Symlink(text, n)
}

// readNames returns the names in the directory abs of the tree.
func (t *tree) readNames(abs string) ([]string, error) {
	r, n, err := t.handle(abs)
	d, err := via(r, n, err, os.Open, (*os.Root).Open)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
}
