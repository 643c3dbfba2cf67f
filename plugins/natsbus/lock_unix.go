//go:build natsbus && unix

package natsbus

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// lockDir takes the exclusive lock of dir (its file `lock`, holding the
// pid): one nats-server per data directory, or its files would be
// written by two.
func lockDir(dir string) (*os.File, error) {
	name := filepath.Join(dir, "lock")
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("the data directory's lock: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		b, _ := os.ReadFile(name)
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("the data directory %s is in use by the embedded NATS server of process %s; "+
				"give this entry a dataDir of its own, or point both at one NATS server with url", dir, strings.TrimSpace(string(b)))
		}
		return nil, fmt.Errorf("the data directory's lock: %w", err)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return f, nil
}

// unlockDir releases the lock lockDir took.
func unlockDir(f *os.File) error { return f.Close() }
