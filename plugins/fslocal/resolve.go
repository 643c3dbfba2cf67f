package fslocal

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/text/unicode/norm"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// maxSymlinks is how many symlinks one resolution follows before it fails
// with ELOOP, as Linux's MAXSYMLINKS.
const maxSymlinks = 40

// nameMax is the longest file name, in bytes, the file systems we run on
// allow (Linux NAME_MAX); a longer component is FS_INVALID_PATH [D17].
const nameMax = 255

// errOutside is the walk's verdict that a path's real location, or a link
// on the way, lies outside the confinement root (contract §3.10).
var errOutside = errors.New("outside the root")

// Resolve maps path to a Target (contract §3.2). A relative path is joined
// to opts.Cwd (itself taken against the provider's cwd when relative, and
// replaced by its real location when opts.RealCwd is set, contract §6.4),
// or to the provider's cwd when opts.Cwd is empty; an absolute path ignores
// both.
// The DisplayPath is that join, cleaned lexically (no symlinks resolved, no
// `~` expansion, `..` above `/` stays `/`). The Key is the realpath when the
// path exists; otherwise the realpath of the nearest existing ancestor plus
// the missing suffix, so a file not yet created has the key it will have,
// and a dangling symlink has its own (link) key. A component missing byte
// for byte whose directory holds exactly one entry with the same NFC form
// is that entry ([D16]); the display path keeps the caller's spelling.
// Paths longer than PATH_MAX work, here and in every later operation
// ([D17]).
//
// Errors: FS_ABORTED `resolve aborted` when ctx is done on entry or after the
// probe; FS_NOT_FOUND `file_path must be a non-empty string` for a blank path
// (JavaScript whitespace, U+0085 excepted); FS_INVALID_PATH `cannot resolve
// "<p>": the path contains a NUL character` before any file system call,
// with each NUL shown as `\0` and the path not cleaned, and `cannot resolve
// "<p>": a path component is too long` for a component over 255 bytes
// ([D17]); FS_NOT_FOUND `cannot resolve
// "<p>": a parent path segment is not a directory`; FS_PERMISSION_DENIED
// `cannot resolve "<p>": permission denied` ([D7]); under confinement
// FS_SANDBOX_DENIED `cannot resolve "<p>": outside the workspace` when the
// real location, or any link on the way, leaves the root ([D8]), checked
// before any other failure. Anything else (ELOOP) passes through uncoded.
func (p *Provider) Resolve(ctx context.Context, path string, opts fsapi.ResolveOptions) (fsapi.Target, error) {
	if err := ctx.Err(); err != nil {
		return fsapi.Target{}, fsapi.ErrAborted("resolve", err)
	}
	if fsapi.IsBlank(path) {
		return fsapi.Target{}, fsapi.ErrBlankPath("resolve")
	}
	if strings.IndexByte(path, 0) >= 0 {
		return fsapi.Target{}, fsapi.ErrNULInPath(p.uncleanDisplay(path, opts.Cwd))
	}
	display := p.displayPath(path, opts)
	loc, err := p.locate(display)
	if cerr := ctx.Err(); cerr != nil {
		return fsapi.Target{}, fsapi.ErrAborted("resolve", cerr)
	}
	if err != nil {
		return fsapi.Target{}, resolveError(display, err)
	}
	return fsapi.Target{Key: loc.key, DisplayPath: display}, nil
}

// resolveError maps a walk failure to the contract's resolve errors.
func resolveError(display string, err error) error {
	switch {
	case errors.Is(err, errOutside):
		return fsapi.ErrOutsideWorkspace(display, nil)
	case errors.Is(err, syscall.ENOTDIR):
		return fsapi.ErrParentNotDirectory(display, err)
	case denied(err):
		return fsapi.ErrPermission("resolve", display, err)
	case errors.Is(err, syscall.ENAMETOOLONG):
		return fsapi.ErrComponentTooLong(display, err)
	}
	return err
}

// displayPath computes the display path of path (contract §3.2 step 3).
func (p *Provider) displayPath(path string, opts fsapi.ResolveOptions) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(p.base(opts), path)
}

// base returns the directory a relative path is joined to: opts.Cwd, taken
// against the provider's cwd when relative, or the provider's cwd when
// opts.Cwd is empty. With opts.RealCwd it is the real location of opts.Cwd
// (contract §6.4: realpath, or the spelling when that fails), found by the
// same walk as a key but without confinement: where the session's cwd
// really is does not depend on the root, and what is joined to it is
// confined as any path is.
func (p *Provider) base(opts fsapi.ResolveOptions) string {
	cwd := p.spelledBase(opts.Cwd)
	if opts.Cwd == "" || !opts.RealCwd {
		return cwd
	}
	loc, err := (&tree{}).walk("/", false, splitPath(cwd))
	if err != nil || !loc.exists {
		return cwd
	}
	return loc.real
}

// spelledBase is base without RealCwd: cwd as spelled, taken against the
// provider's cwd when relative, or the provider's cwd.
func (p *Provider) spelledBase(cwd string) string {
	switch {
	case cwd == "":
		return p.cwd
	case filepath.IsAbs(cwd):
		return cwd
	}
	return filepath.Join(p.cwd, cwd)
}

// uncleanDisplay is the display path of a path that is refused before
// resolution (a NUL in it), before any file system call: joined to the cwd
// as spelled but not cleaned, so `a.txt\0../../etc/passwd` is reported as
// written, not as `etc/passwd`.
func (p *Provider) uncleanDisplay(path, cwd string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return joinName(p.spelledBase(cwd), path)
}

// nfcTwin returns the one entry of the directory dir whose NFC form is that
// of name, when name itself is missing (contract §3.2 [D16]): a file
// written NFD (as macOS does) is found by its NFC spelling and the other
// way round. With no such entry, or two or more, there is no twin. An
// all-ASCII name can have a twin too (U+212A KELVIN SIGN is K in NFC), so
// every miss reads the directory.
func nfcTwin(dir, name string) (string, bool) {
	names, err := readNamesAny(dir)
	if err != nil {
		return "", false
	}
	want := norm.NFC.String(name)
	asciiWant := isASCII(name)
	twin, found := "", 0
	for _, n := range names {
		if n == name {
			continue
		}
		if isASCII(n) {
			// NFC leaves ASCII as it is: such an entry is its own NFC
			// form, and it cannot equal an ASCII name it differs from.
			if !asciiWant && n == want {
				twin, found = n, found+1
			}
			continue
		}
		if norm.NFC.String(n) == want {
			twin, found = n, found+1
		}
	}
	return twin, found == 1
}

// isASCII reports whether s is all ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// location is where a path is (contract §3.2 step 4, §3.10).
type location struct {
	// key is the target key: the realpath when the path exists, else the
	// realpath of the nearest existing ancestor (symlinks followed) plus the
	// missing suffix.
	key string
	// real is the real location: the realpath when the path exists, else
	// where its link chain designates, followed until a missing component,
	// plus the rest. It differs from key only through a dangling link.
	real string
	// exists reports whether the path exists (symlinks followed).
	exists bool
}

// locate finds the location of the absolute, clean path display. Under
// confinement a path lexically under the root starts its walk at the root,
// which is canonical.
func (p *Provider) locate(display string) (location, error) {
	if base := p.tree.base; base != "" && within(base, display) {
		return p.tree.walk(base, true, splitPath(display[len(base):]))
	}
	return p.tree.walk("/", false, splitPath(display))
}

// walk resolves comps below prefix, a real (symlink-free) existing
// directory, the way the kernel resolves a path, one component at a time,
// so that it knows the real location of every step and of dangling links.
// entered says whether the walk has already reached the confinement root.
//
// Under confinement, once the walk has been inside the root, probing any
// location that is neither inside it nor one of its ancestors (which an
// absolute link text passes through on its way back in) marks the walk as
// strayed: the result is then errOutside whatever happens next, so no error
// reveals what lies outside (contract §3.10 "Check order"). A link that
// leads outside and back in is refused too. Before the root is reached (a path spelled
// through a symlinked ancestor of the root), failures outside are refused
// the same way. Errors: errOutside, a *fs.PathError with ENOTDIR (a
// non-directory with components after it) or ELOOP, or the lstat/readlink
// error (EACCES, ...).
func (t *tree) walk(prefix string, entered bool, comps []string) (location, error) {
	resolved := prefix
	keyPrefix := prefix
	strayed := false
	links := 0
	fail := func(at string, err error) (location, error) {
		if strayed || !t.inside(at) {
			return location{}, errOutside
		}
		return location{}, err
	}
	for i, c := range comps {
		queue := []string{c}
		for len(queue) > 0 {
			x := queue[0]
			queue = queue[1:]
			switch x {
			case ".":
				continue
			case "..":
				resolved = filepath.Dir(resolved)
				continue
			}
			cand := joinName(resolved, x)
			if entered && !t.inside(cand) && !within(cand, t.base) {
				strayed = true // a probe off the way to and under the root
			}
			fi, err := lstatAny(cand)
			if errors.Is(err, fs.ErrNotExist) {
				if twin, ok := nfcTwin(resolved, x); ok {
					cand = joinName(resolved, twin)
					fi, err = lstatAny(cand)
				}
			}
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					rest := append(append([]string{cand}, queue...), comps[i+1:]...)
					loc := location{
						key:  filepath.Join(append([]string{keyPrefix}, comps[i:]...)...),
						real: filepath.Join(rest...),
					}
					if strayed || !t.inside(loc.real) || !t.inside(loc.key) {
						return location{}, errOutside
					}
					for _, c := range append(append([]string{x}, queue...), comps[i+1:]...) {
						if len(c) > nameMax {
							return location{}, &fs.PathError{Op: "resolve", Path: c, Err: syscall.ENAMETOOLONG}
						}
					}
					return loc, nil
				}
				return fail(cand, err)
			}
			if fi.Mode()&fs.ModeSymlink != 0 {
				links++
				if links > maxSymlinks {
					return fail(cand, &fs.PathError{Op: "resolve", Path: cand, Err: syscall.ELOOP})
				}
				text, err := readlinkAny(cand)
				if err != nil {
					if errors.Is(err, syscall.EINVAL) && t.root != nil {
						// No longer a link: swapped by a race since the
						// lstat. Under confinement every race is refused.
						return location{}, errOutside
					}
					return fail(cand, err)
				}
				if filepath.IsAbs(text) {
					resolved = "/"
				}
				queue = append(splitPath(text), queue...)
				continue
			}
			if !fi.IsDir() && (len(queue) > 0 || i < len(comps)-1) {
				return fail(cand, &fs.PathError{Op: "resolve", Path: cand, Err: syscall.ENOTDIR})
			}
			resolved = cand
			if t.inside(resolved) {
				entered = true
			}
		}
		keyPrefix = resolved
	}
	if strayed || !t.inside(resolved) {
		return location{}, errOutside
	}
	return location{key: resolved, real: resolved, exists: true}, nil
}

// splitPath splits a slash-separated path into its components, dropping
// empty ones (repeated or leading slashes).
func splitPath(p string) []string {
	parts := strings.Split(p, "/")
	out := parts[:0]
	for _, s := range parts {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// joinName joins one component name (no slash) to the absolute directory
// dir without cleaning.
func joinName(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}
