//go:build natsbus

package natsbus

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// embedded is the in-process nats-server of an `embedded: true` entry.
type embedded struct {
	srv   *server.Server
	dir   string // the JetStream data directory, locked while the server runs
	token string // the listener's token; "" without listen
	addr  string // the listener's host:port; "" without listen
	lock  *os.File
}

// readyWait bounds the embedded server's start.
const readyWait = 10 * time.Second

// startEmbedded checks dir (ownDataDir), locks it and starts the server
// on it: JetStream, no listener unless listen (then on that address, with
// a token).
func startEmbedded(dir, listen, host string, log *slog.Logger) (*embedded, error) {
	if err := ownDataDir(dir); err != nil {
		return nil, err
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	e := &embedded{dir: dir, lock: lock}
	opts := &server.Options{
		ServerName: "dshhost-" + host,
		JetStream:  true,
		StoreDir:   dir,
		DontListen: listen == "",
		NoSigs:     true,
	}
	if listen != "" {
		h, p, _ := net.SplitHostPort(listen) // Validate checked it
		port, _ := strconv.Atoi(p)
		if port == 0 {
			port = server.RANDOM_PORT // nats-server takes 0 as its default port
		}
		if e.token, err = token(filepath.Join(dir, "token")); err != nil {
			e.unlock()
			return nil, err
		}
		opts.Host, opts.Port, opts.Authorization = h, port, e.token
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		e.unlock()
		return nil, fmt.Errorf("the embedded server: %w", err)
	}
	srv.SetLoggerV2(serverLog{log}, false, false, false)
	srv.Start()
	if !srv.ReadyForConnections(readyWait) {
		srv.Shutdown()
		e.unlock()
		return nil, fmt.Errorf("the embedded server did not start within %s (see the log)", readyWait)
	}
	e.srv = srv
	if listen != "" {
		e.addr = srv.Addr().String()
	}
	return e, nil
}

// Marker is the file natsbus writes in each data directory it uses; an
// existing directory that holds it (or the `jetstream` directory of a
// nats-server store) is a data directory natsbus may use again.
const Marker = ".dshhost-natsbus"

// ownDataDir makes dir (mode 0700, its missing parents too) when it does
// not exist, and otherwise accepts it only as natsbus's own: a directory
// no other user may write (no group or other write bit), and either empty
// or already a data directory (Marker, or jetstream/). It never changes
// the mode of a directory it did not make, and writes Marker into dir.
func ownDataDir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("dataDir: %w", err)
		}
	case err != nil:
		return fmt.Errorf("dataDir: %w", err)
	case !fi.IsDir():
		return fmt.Errorf("dataDir %s is not a directory", dir)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("dataDir %s can be written by other users (mode %04o), who could change the audit trail; "+
			"give a new path (natsbus makes it, mode 0700) or a directory only you can write (chmod go-w)", dir, fi.Mode().Perm())
	default:
		entries, err := os.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("dataDir: %w", err)
		}
		known := len(entries) == 0
		for _, e := range entries {
			if e.Name() == Marker || (e.Name() == "jetstream" && e.IsDir()) {
				known = true
			}
		}
		if !known {
			return fmt.Errorf("dataDir %s is not empty and is not a natsbus data directory (it has no %s and no jetstream/); "+
				"give a new path, an empty directory, or one natsbus used before", dir, Marker)
		}
	}
	name := filepath.Join(dir, Marker)
	if _, err := os.Stat(name); err == nil {
		return nil
	}
	if err := os.WriteFile(name, []byte("The JetStream data directory of a dshhost natsbus entry (docs/fleet.md).\n"), 0o600); err != nil {
		return fmt.Errorf("dataDir: %w", err)
	}
	return nil
}

// stop shuts the server down and releases the directory.
func (e *embedded) stop(ctx context.Context) error {
	e.srv.Shutdown()
	done := make(chan struct{})
	go func() { e.srv.WaitForShutdown(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		return fmt.Errorf("the embedded server did not stop: %w", ctx.Err())
	}
	e.unlock()
	return nil
}

func (e *embedded) unlock() {
	if e.lock != nil {
		_ = unlockDir(e.lock)
		e.lock = nil
	}
}

// token returns the listener's token, from file, or a new random one
// written there with mode 0600.
func token(file string) (string, error) {
	if b, err := os.ReadFile(file); err == nil && len(strings.TrimSpace(string(b))) >= 32 {
		_ = os.Chmod(file, 0o600)
		return strings.TrimSpace(string(b)), nil
	}
	raw := make([]byte, 24)
	_, _ = rand.Read(raw) // crypto/rand.Read never fails
	tok := hex.EncodeToString(raw)
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, []byte(tok+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("the token file: %w", err)
	}
	if err := os.Rename(tmp, file); err != nil {
		return "", fmt.Errorf("the token file: %w", err)
	}
	return tok, nil
}

// dataDir returns the entry's data directory: DataDir, else
// $XDG_STATE_HOME/dshhost/natsbus/<sha256 of the workspace's real path>.
func dataDir(cfg Config, workspace string) (string, error) {
	if cfg.DataDir != "" {
		return filepath.Abs(cfg.DataDir)
	}
	state := os.Getenv("XDG_STATE_HOME")
	if state == "" || !filepath.IsAbs(state) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", errors.New("no home directory for the default data directory: set dataDir")
		}
		state = filepath.Join(home, ".local", "state")
	}
	sum := sha256.Sum256([]byte(workspace))
	return filepath.Join(state, "dshhost", "natsbus", hex.EncodeToString(sum[:])), nil
}

// outside refuses path (key says which) when its real path is the
// workspace or beneath it: the tools could then change it (§4).
func outside(key, path, workspace string) error {
	if workspace == "" {
		return nil
	}
	real := fsapi.RealLocation(path)
	if real == workspace || strings.HasPrefix(real, workspace+string(filepath.Separator)) || workspace == "/" {
		return fmt.Errorf("%s %q is inside the workspace %q, where the tools could read or change it; keep it outside", key, path, workspace)
	}
	return nil
}

// serverLog sends the embedded server's log to the entry's: notices at
// debug (its start-up banner is a dozen lines), warnings and errors as
// they are.
type serverLog struct{ log *slog.Logger }

func (l serverLog) Noticef(format string, v ...any) {
	l.log.Debug("nats-server: " + fmt.Sprintf(format, v...))
}
func (l serverLog) Warnf(format string, v ...any) {
	l.log.Warn("nats-server: " + fmt.Sprintf(format, v...))
}
func (l serverLog) Fatalf(format string, v ...any) {
	l.log.Error("nats-server: " + fmt.Sprintf(format, v...))
}
func (l serverLog) Errorf(format string, v ...any) {
	l.log.Error("nats-server: " + fmt.Sprintf(format, v...))
}
func (l serverLog) Debugf(format string, v ...any) {}
func (l serverLog) Tracef(format string, v ...any) {}
