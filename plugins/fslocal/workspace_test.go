package fslocal_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/fslocal"
)

// workspace is a fresh, symlink-free temporary directory W with a provider
// whose cwd is W (the contract's W).
type workspace struct {
	t   testing.TB
	dir string
	p   *fslocal.Provider
}

// newWorkspace makes a workspace; edit adjusts the provider's config (Cwd
// is W unless edit changes it).
func newWorkspace(t testing.TB, edit ...func(*fslocal.Config)) *workspace {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	cfg := fslocal.Config{Cwd: dir}
	for _, e := range edit {
		e(&cfg)
	}
	p, err := fslocal.New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { p.Close() })
	return &workspace{t: t, dir: dir, p: p}
}

// confined sets Root to W.
func confined(c *fslocal.Config) { c.Root = c.Cwd }

// path returns W joined with rel.
func (w *workspace) path(rel string) string { return filepath.Join(w.dir, rel) }

// file creates the file rel with content and mode, creating parents.
func (w *workspace) file(rel, content string, mode os.FileMode) string {
	w.t.Helper()
	p := w.path(rel)
	require.NoError(w.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(w.t, os.WriteFile(p, []byte(content), mode))
	require.NoError(w.t, os.Chmod(p, mode))
	return p
}

// mkdir creates the directory rel.
func (w *workspace) mkdir(rel string) string {
	w.t.Helper()
	p := w.path(rel)
	require.NoError(w.t, os.MkdirAll(p, 0o755))
	return p
}

// symlink creates the link rel with the given text.
func (w *workspace) symlink(rel, text string) string {
	w.t.Helper()
	p := w.path(rel)
	require.NoError(w.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(w.t, os.Symlink(text, p))
	return p
}

// fifo creates a named pipe rel.
func (w *workspace) fifo(rel string) string {
	w.t.Helper()
	p := w.path(rel)
	require.NoError(w.t, syscall.Mkfifo(p, 0o644))
	return p
}

// target resolves rel against W and requires success.
func (w *workspace) target(rel string) fsapi.Target {
	w.t.Helper()
	tg, err := w.p.Resolve(context.Background(), rel, fsapi.ResolveOptions{})
	require.NoError(w.t, err)
	return tg
}

// content returns the bytes of rel (following links).
func (w *workspace) content(rel string) string {
	w.t.Helper()
	b, err := os.ReadFile(w.path(rel))
	require.NoError(w.t, err)
	return string(b)
}

// names returns the names in directory rel.
func (w *workspace) names(rel string) []string {
	w.t.Helper()
	es, err := os.ReadDir(w.path(rel))
	require.NoError(w.t, err)
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Name()
	}
	return out
}

// cancelled returns a context that is already cancelled.
func cancelled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// itoa formats n in decimal.
func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// inode returns the inode field of a version token.
func inode(t *testing.T, v fsapi.Version) string {
	t.Helper()
	parts := strings.Split(string(v), ":")
	require.Len(t, parts, 5, "version %q", v)
	return parts[1]
}

// countdownCtx is a context that reports itself cancelled from its n-th
// Err call on (counting from 0), so a test can abort an operation at each of
// its context checks in turn.
type countdownCtx struct {
	context.Context
	mu    sync.Mutex
	left  int
	done  chan struct{}
	calls int
}

func newCountdown(n int) *countdownCtx {
	return &countdownCtx{Context: context.Background(), left: n, done: make(chan struct{})}
}

func (c *countdownCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	if c.left == 0 {
		select {
		case <-c.done:
		default:
			close(c.done)
		}
		return context.Canceled
	}
	c.left--
	return nil
}

func (c *countdownCtx) Done() <-chan struct{} { return c.done }

// stagingFiles returns the staging files (`.<name>.<uuid>.dsh-tmp`) in
// directory rel.
func (w *workspace) stagingFiles(rel string) []string {
	w.t.Helper()
	var out []string
	for _, n := range w.names(rel) {
		if strings.HasPrefix(n, ".") && strings.HasSuffix(n, ".dsh-tmp") {
			out = append(out, n)
		}
	}
	return out
}

// fslocalConfig abbreviates the config type in option literals.
type fslocalConfig = fslocal.Config

// strp returns a pointer to s.
func strp(s string) *string { return &s }

// replaceP puts the display path p in a message template's %s.
func replaceP(msg, p string) string { return strings.Replace(msg, "%s", p, 1) }

// mode returns the mode of path (not following links) with type bits.
func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	require.NoError(t, err)
	return fi.Mode()
}

// statT returns the raw stat of path.
func statT(t *testing.T, path string) *syscall.Stat_t {
	t.Helper()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	return fi.Sys().(*syscall.Stat_t)
}

// readRegular returns the content of path when it is a regular file, and
// "" for anything else that exists (never opening a FIFO).
func readRegular(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return "", err
	}
	b, err := os.ReadFile(path)
	return string(b), err
}

// gateCtx is a context whose n-th Err call (counting from 1) signals
// reached and blocks until open is closed: it parks an operation at one of
// its context checks.
type gateCtx struct {
	context.Context
	mu      sync.Mutex
	n       int
	reached chan struct{}
	open    chan struct{}
}

func newGate(n int) *gateCtx {
	return &gateCtx{Context: context.Background(), n: n, reached: make(chan struct{}), open: make(chan struct{})}
}

func (g *gateCtx) Err() error {
	g.mu.Lock()
	g.n--
	stop := g.n == 0
	g.mu.Unlock()
	if stop {
		close(g.reached)
		<-g.open
	}
	return nil
}
