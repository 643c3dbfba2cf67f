package fslocal

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// Provider is the local-disk implementation of the fs service (contract
// §3). It implements [fsapi.FileSystem], [fsapi.Streamer],
// [fsapi.ByteStreamer], [fsapi.Lstater],
// [fsapi.RealPather], and the search capabilities [fsapi.Walker] and
// [fsapi.Opener] (search.md §2). All methods are safe for concurrent use;
// WriteText and EditText on one target key are serialised in arrival
// order, on different keys they run in parallel (contract §3.9). Make one
// with [New] and release it with [Provider.Close].
type Provider struct {
	cwd       string // absolute, clean
	hardLinks string // HardLinksPreserve or HardLinksBreak
	digestMax int64  // the digest bound in bytes ([D24])
	editMax   int64  // the largest file an edit reads, in bytes
	// protected is the host's protected set (Refuse); nil: none.
	protected *fsapi.Protected
	tree      tree
	locks     lockTable
	closeOnce sync.Once
	closeErr  error
}

// New returns a provider for cfg (contract §3.1). An empty Cwd is the
// process working directory now; a relative one is taken against it. With a
// Root, the root is made absolute and canonical, must be an existing
// directory ([ErrRootNotDirectory]) and is opened as an os.Root; Cwd's real
// location must lie inside it ([ErrCwdOutsideRoot]). An invalid HardLinks
// fails with [ErrHardLinks]; an empty one is "break" under confinement (a
// root other than "/") and "preserve" otherwise (contract §3.1, [D9+]). A
// zero DigestMaxBytes is fsapi.DefaultDigestMaxBytes ([D24]); a zero
// EditMaxBytes is [DefaultEditMaxBytes].
func New(cfg Config) (*Provider, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	p := &Provider{cwd: cfg.Cwd, hardLinks: cfg.HardLinks, digestMax: cfg.DigestMaxBytes, editMax: cfg.EditMaxBytes}
	if p.digestMax == 0 {
		p.digestMax = fsapi.DefaultDigestMaxBytes
	}
	if p.editMax == 0 {
		p.editMax = DefaultEditMaxBytes
	}
	if p.cwd == "" || !filepath.IsAbs(p.cwd) {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("fslocal: cwd: %w", err)
		}
		p.cwd = filepath.Join(wd, p.cwd)
	}
	p.cwd = filepath.Clean(p.cwd)
	if p.hardLinks == "" {
		p.hardLinks = HardLinksPreserve
	}
	if cfg.Root == "" {
		return p, nil
	}
	base, err := canonicalRoot(cfg.Root)
	if err != nil {
		return nil, err
	}
	if base == "/" {
		return p, nil // nothing lies outside "/": no handle needed
	}
	if cfg.HardLinks == "" {
		// [D9+]: a name inside the workspace that shares its inode with one
		// outside must not change the outside file.
		p.hardLinks = HardLinksBreak
	}
	r, err := os.OpenRoot(base)
	if err != nil {
		return nil, ErrRootNotDirectory
	}
	p.tree = tree{root: r, base: base}
	if _, err := p.locate(p.cwd); err != nil {
		r.Close()
		return nil, ErrCwdOutsideRoot
	}
	return p, nil
}

// Cwd returns the absolute directory relative paths resolve against when a
// call gives no cwd (contract §3.1).
func (p *Provider) Cwd() string { return p.cwd }

// Root returns the canonical confinement root, or "" when confinement is
// off (no root, or root "/"). Contract §3.10.
func (p *Provider) Root() string { return p.tree.base }

// HardLinks returns the effective hard-link mode, HardLinksPreserve or
// HardLinksBreak: the configured one, or for an unset one "break" under
// confinement and "preserve" without (contract §3.1 [D9+]).
func (p *Provider) HardLinks() string { return p.hardLinks }

// RealPath returns the real location of t: for fslocal its key, the
// realpath (contract §2.2). It is always known, so the bool is true.
func (p *Provider) RealPath(t fsapi.Target) (string, bool) { return t.Key, true }

// Close releases the confinement root handle. Operations after Close fail
// under confinement. Close is idempotent and returns the first result.
func (p *Provider) Close() error {
	p.closeOnce.Do(func() { p.closeErr = p.tree.close() })
	return p.closeErr
}

var (
	_ fsapi.FileSystem = (*Provider)(nil)
	_ fsapi.RealPather = (*Provider)(nil)
)
