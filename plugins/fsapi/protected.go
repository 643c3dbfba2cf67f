package fsapi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"

	"github.com/dsh-go/dsh/host"
)

// CodeProtected is FS_PROTECTED: the target is a file the running server
// keeps from its tools (a [ProtectedFile]).
const CodeProtected Code = "FS_PROTECTED"

// ProtectKind says what a protected file is, and so what is refused.
type ProtectKind uint8

const (
	// ProtectConfig is a deployment file: every config file the running
	// deployment was loaded from, an exec plugin's scripts. Tools read it,
	// never change it.
	ProtectConfig ProtectKind = iota + 1
	// ProtectState is a plugin's own store (a data directory). Tools read
	// it, never change it.
	ProtectState
	// ProtectSecret is a token file, a TLS certificate or key, NATS
	// credentials. Tools neither read nor change it, and the search tools
	// skip it.
	ProtectSecret
)

// ProtectedFile is one protected path. Everything at or below Real is
// protected (a protected directory protects its contents), and so is the
// file that had identity (Dev, Ino) at registration, by any name (a hard
// link, a bind mount).
type ProtectedFile struct {
	Kind ProtectKind
	// Path is the path as registered, made absolute.
	Path string
	// Real is Path's real location at registration: symlinks resolved
	// as far as the path exists, the missing rest appended.
	Real string
	// Dev and Ino identify the file at Path at registration; HasID is
	// false when nothing existed there.
	Dev, Ino uint64
	HasID    bool
}

// Protected is the set of protected files of one host: the files the
// running deployment was loaded from and those its plugins keep for
// themselves. `dshhost` provides one on the host's root scope under
// [ProtectedKey] before it mounts any plugin, so no deployment can leave it
// out; an fs provider enforces it on every tool it serves (fslocal: after
// Resolve, before any intent, and again in every operation). Safe for
// concurrent use.
type Protected struct {
	mu    sync.RWMutex
	files []*ProtectedFile
}

// ProtectedKey is the service key of the host's protected set
// ("fs/protected").
var ProtectedKey = host.NewKey[*Protected]("fs/protected")

// NewProtected returns an empty set.
func NewProtected() *Protected { return &Protected{} }

// Files returns the protected files, in registration order.
func (p *Protected) Files() []ProtectedFile {
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := make([]ProtectedFile, len(p.files))
	for i, f := range p.files {
		out[i] = *f
	}
	return out
}

// Add protects paths as kind and returns the function that protects them
// no longer. Each path is made absolute (against the working directory),
// its real location and identity taken now.
func (p *Protected) Add(kind ProtectKind, paths ...string) (remove func()) {
	var added []*ProtectedFile
	for _, path := range paths {
		abs, err := filepath.Abs(path)
		if err != nil {
			continue
		}
		f := &ProtectedFile{Kind: kind, Path: abs, Real: realLocation(abs)}
		if fi, err := os.Stat(abs); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				f.Dev, f.Ino, f.HasID = uint64(st.Dev), uint64(st.Ino), true
			}
		}
		added = append(added, f)
	}
	p.mu.Lock()
	p.files = append(p.files, added...)
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.files = slices.DeleteFunc(p.files, func(f *ProtectedFile) bool { return slices.Contains(added, f) })
	}
}

// Protect registers paths as protected files of kind on behalf of s, the
// registration API of plugins: the exec plugin registers its scripts
// (ProtectConfig), the mcp front end its token files and TLS certificate
// and key (ProtectSecret), natsbus its credentials (ProtectSecret) and
// its data directory (ProtectState), a checkpoint store its store
// (ProtectState). They stay protected until s ends or the returned
// Disposer runs; a reload that remounts the plugin registers them again,
// with their identities taken again. In a host without a set (a test's
// bare host) Protect registers nothing and returns a Disposer that does
// nothing. On an inactive scope it returns host.ErrInactive.
func Protect(s *host.Scope, kind ProtectKind, paths ...string) (host.Disposer, error) {
	set, ok := ProtectedKey.Get(s)
	if !ok {
		return func(context.Context) error { return nil }, nil
	}
	remove := set.Add(kind, paths...)
	d, err := s.Effect(fmt.Sprintf("protect(%d files)", len(paths)), func(context.Context) error { remove(); return nil })
	if err != nil {
		remove()
		return nil, err
	}
	return d, nil
}

// RealLocation returns the real location of path, made absolute: its
// longest existing prefix with symlinks resolved, joined with the rest
// (the path itself when no prefix resolves). Plugins use it to compare a
// directory of their own with the workspace.
func RealLocation(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	return realLocation(abs)
}

// realLocation is RealLocation of an absolute path.
func realLocation(abs string) string {
	rest := ""
	for p := abs; ; {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return abs
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// ErrProtected is FS_PROTECTED, the refusal of op ("read", "write",
// "edit", "insert into", "move", "delete") on the protected file p of
// kind: `cannot <op> "<p>": it is a deployment file of this server; no
// sandbox mode allows changing it (only the operator edits it)`, with `a
// file this server keeps for itself` in place of `a deployment file of
// this server` for ProtectState and ProtectSecret; a "read" (only ever of
// a secret) says `no sandbox mode allows reading it (only the operator
// reads it)`, since nothing is changed.
func ErrProtected(op, p string, kind ProtectKind) *Error {
	what := "a deployment file of this server"
	if kind != ProtectConfig {
		what = "a file this server keeps for itself"
	}
	if op == "read" {
		return cannot(CodeProtected, op, p, "it is "+what+"; no sandbox mode allows reading it (only the operator reads it)", nil)
	}
	return cannot(CodeProtected, op, p, "it is "+what+"; no sandbox mode allows changing it (only the operator edits it)", nil)
}

// ErrScratchName is FS_PROTECTED, the refusal of op (any change) on p,
// whose name has the form of the provider's own scratch files (fslocal's
// staging files and the marked copies of in-place rewrites, whose crash
// recovery trusts them): `cannot <op> "<p>": the name is reserved for this
// server's scratch files (staged writes and interrupted rewrites); choose
// another name`.
func ErrScratchName(op, p string) *Error {
	return cannot(CodeProtected, op, p, "the name is reserved for this server's scratch files (staged writes and interrupted rewrites); choose another name", nil)
}

// Refuser is the optional capability of an fs provider that enforces the
// host's protected files (fslocal does). The tools ask it right after
// Resolve, before any intent, so a model is never first told to read a
// file it may not change; the provider refuses again in every operation.
type Refuser interface {
	// Refuse returns the FS_PROTECTED refusal ([ErrProtected]) of op on t,
	// or nil: a change (every op but "read") of a protected file or of
	// anything below a protected directory, a move or delete of a
	// directory that holds one, a read of a ProtectSecret file, and
	// ([ErrScratchName]) a change of a name of the provider's scratch form. The real
	// identity decides (real path, device and inode), never the spelling.
	Refuse(ctx context.Context, t Target, op string) error
}

// Refuse is t's refusal for op by fs, when fs is a [Refuser]; nil
// otherwise.
func Refuse(ctx context.Context, fs FileSystem, t Target, op string) error {
	if r, ok := fs.(Refuser); ok {
		return r.Refuse(ctx, t, op)
	}
	return nil
}
