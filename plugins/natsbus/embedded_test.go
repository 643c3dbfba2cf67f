//go:build natsbus

package natsbus_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/config"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/natsbus"
)

// listening returns the TCP ports this process listens on, from
// /proc/self/fd and /proc/net/tcp{,6}.
func listening(t *testing.T) []int {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the socket count reads /proc (Linux)")
	}
	mine := map[string]bool{}
	fds, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	for _, fd := range fds {
		if l, err := os.Readlink("/proc/self/fd/" + fd.Name()); err == nil && strings.HasPrefix(l, "socket:[") {
			mine[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	var ports []int
	for _, table := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // the header
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" || !mine[fields[9]] { // 0A: LISTEN
				continue
			}
			_, hexPort, _ := strings.Cut(fields[1], ":")
			p, _ := strconv.ParseInt(hexPort, 16, 32)
			ports = append(ports, int(p))
		}
		f.Close()
	}
	return ports
}

// embedded: true runs JetStream in the process on no TCP port; the trail
// it keeps is on its data directory (mode 0700), where a nats-server
// started on it later finds every event.
func TestTheEmbeddedServerListensOnNoPort(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nats")
	before := listening(t)
	s := stacktest.New(t, stacktest.Options{})
	inst := mountBus(t, s, map[string]any{"embedded": true, "dataDir": dir, "audit": map[string]any{}})
	require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())
	assert.Equal(t, "connected to the embedded server (no port)", stateOf(s).Process)
	assert.ElementsMatch(t, before, listening(t), "no port more than before")
	require.False(t, write(s, s.Conversation("c"), "a.txt", "x").IsError)
	fi, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm())
	require.NoError(t, s.Host.Shutdown(t.Context())) // drains the queue, then stops the server

	srv := natsServer(t, dir, -1) // an operator reading the trail afterwards
	evs := trail(t, client(t, srv.ClientURL()), "DSH_AUDIT", 1)
	require.Len(t, evs, 1)
	assert.Equal(t, "a.txt", evs[0].Subject)
}

// listen makes the embedded server reachable on a port, with a token it
// generates in a 0600 file of the data directory and keeps across starts:
// without the token a client is refused.
func TestListenMakesAToken(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nats")
	s := stacktest.New(t, stacktest.Options{})
	inst := mountBus(t, s, map[string]any{"embedded": true, "dataDir": dir, "listen": "127.0.0.1:0", "audit": map[string]any{}})
	require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())
	st := stateOf(s).Process
	require.True(t, strings.HasPrefix(st, "connected to the embedded server (listening on 127.0.0.1:"), st)
	addr := strings.TrimSuffix(strings.TrimPrefix(st, "connected to the embedded server (listening on "), ")")
	_, port, _ := strings.Cut(addr, ":")
	p, _ := strconv.Atoi(port)
	assert.Contains(t, listening(t), p, "the socket count sees the listener")
	fi, err := os.Stat(filepath.Join(dir, "token"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	tok, err := os.ReadFile(filepath.Join(dir, "token"))
	require.NoError(t, err)

	_, err = nats.Connect("nats://" + addr)
	assert.ErrorContains(t, err, "Authorization Violation", "no token, no entry")
	nc, err := nats.Connect("nats://"+addr, nats.Token(strings.TrimSpace(string(tok))))
	require.NoError(t, err)
	defer nc.Close()
	require.False(t, write(s, s.Conversation("c"), "a.txt", "x").IsError)
	assert.Len(t, trail(t, nc, "DSH_AUDIT", 1), 1)
	require.NoError(t, s.Host.Shutdown(t.Context()))

	s2 := stacktest.New(t, stacktest.Options{})
	require.Equal(t, host.StateActive, mountBus(t, s2, map[string]any{"embedded": true, "dataDir": dir, "listen": "127.0.0.1:0"}).State())
	tok2, err := os.ReadFile(filepath.Join(dir, "token"))
	require.NoError(t, err)
	assert.Equal(t, tok, tok2, "the token is kept across starts")
}

// The data directory is the audit trail and the token: inside the
// workspace the tools could change them, so it is refused there, through
// any spelling; the default is under $XDG_STATE_HOME, per workspace.
func TestTheDataDirectoryStaysOutsideTheWorkspace(t *testing.T) {
	s := stacktest.New(t, stacktest.Options{})
	link := filepath.Join(t.TempDir(), "ws")
	require.NoError(t, os.Symlink(s.W, link))
	for _, dir := range []string{filepath.Join(s.W, "nats"), filepath.Join(link, "deep", "nats"), s.W} {
		inst := mountBus(t, s, map[string]any{"embedded": true, "dataDir": dir})
		require.Equal(t, host.StateFailed, inst.State(), dir)
		assert.ErrorContains(t, inst.Err(), `plugin "natsbus": dataDir `+strconv.Quote(dir)+" is inside the workspace")
		assert.NoDirExists(t, filepath.Join(s.W, "nats"), "nothing made in the workspace")
		require.NoError(t, inst.Dispose(t.Context()))
	}

	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	inst := mountBus(t, s, map[string]any{"embedded": true})
	require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())
	sum := sha256.Sum256([]byte(s.W))
	assert.FileExists(t, filepath.Join(state, "dshhost", "natsbus", hex.EncodeToString(sum[:]), "lock"))
}

// One embedded server per data directory: a second entry on the same one
// fails with a message that says whose it is.
func TestOneServerPerDataDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nats")
	a := stacktest.New(t, stacktest.Options{})
	require.Equal(t, host.StateActive, mountBus(t, a, map[string]any{"embedded": true, "dataDir": dir}).State())
	b := stacktest.New(t, stacktest.Options{})
	inst := mountBus(t, b, map[string]any{"embedded": true, "dataDir": dir})
	require.Equal(t, host.StateFailed, inst.State())
	assert.ErrorContains(t, inst.Err(), `plugin "natsbus": the data directory `+dir+" is in use by the embedded NATS server of process "+strconv.Itoa(os.Getpid()))

	c := stacktest.New(t, stacktest.Options{})
	inst = mountBus(t, c, map[string]any{"embedded": true, "dataDir": dir, "onFailure": "allow"})
	require.Equal(t, host.StateActive, inst.State(), "allow: ACTIVE, doing nothing")
	assert.Contains(t, stateOf(c).Process, "failed: the data directory "+dir+" is in use")
}

// A config change restarts the entry on the same data directory: the old
// server drains its queue and lets the directory go before the new one
// takes it, and the trail goes on in the same stream.
func TestAChangedEntryRestartsOnItsDataDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nats")
	s := stacktest.New(t, stacktest.Options{})
	raw := map[string]any{"embedded": true, "dataDir": dir, "listen": "127.0.0.1:0", "audit": map[string]any{}}
	inst := mountBus(t, s, raw)
	require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())
	require.False(t, write(s, s.Conversation("c"), "a.txt", "x").IsError)

	raw["host"] = "renamed"
	cfg, err := config.Decode(natsbus.Plugin, raw)
	require.NoError(t, err)
	c := cfg.(natsbus.Config)
	c.UseWorkspace(s.W)
	require.NoError(t, inst.Update(t.Context(), c))
	require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())
	require.False(t, write(s, s.Conversation("c"), "b.txt", "x").IsError)

	addr := regexp.MustCompile(`listening on ([^)]+)\)`).FindStringSubmatch(stateOf(s).Process)[1]
	tok, err := os.ReadFile(filepath.Join(dir, "token"))
	require.NoError(t, err)
	nc, err := nats.Connect("nats://"+addr, nats.Token(strings.TrimSpace(string(tok))))
	require.NoError(t, err)
	defer nc.Close()
	evs := trail(t, nc, "DSH_AUDIT", 2)
	require.Len(t, evs, 2)
	assert.Equal(t, "dsh.audit."+hostNameOf(t)+".fs.observed", evs[0].NATSSubject, "the first, from before the restart")
	assert.Equal(t, "dsh.audit.renamed.fs.observed", evs[1].NATSSubject)
}

// hostNameOf is the default host: the machine's hostname, spelled as §4
// says.
func hostNameOf(t *testing.T) string {
	h, err := os.Hostname()
	require.NoError(t, err)
	return regexp.MustCompile(`[^A-Za-z0-9_-]`).ReplaceAllString(h, "_")
}

// A dataDir that exists is used only when it is natsbus's own: no other
// user may write it, and it is empty or a data directory natsbus used
// before. Its mode is never changed, and a refused one gets no file.
func TestAnExistingDataDirIsUsedOnlyWhenItIsNatsbussOwn(t *testing.T) {
	mk := func(t *testing.T, mode os.FileMode, files ...string) string {
		dir := filepath.Join(t.TempDir(), "d")
		require.NoError(t, os.Mkdir(dir, 0o700))
		for _, f := range files {
			require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o700))
			require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("mine\n"), 0o644))
		}
		require.NoError(t, os.Chmod(dir, mode)) // exactly, whatever the umask
		return dir
	}
	names := func(dir string) []string {
		entries, _ := os.ReadDir(dir)
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	mode := func(dir string) os.FileMode {
		fi, err := os.Stat(dir)
		require.NoError(t, err)
		return fi.Mode().Perm()
	}
	for _, c := range []struct {
		name  string
		mode  os.FileMode
		files []string
		err   string // "" when it is used
	}{
		{"not empty, not natsbus's", 0o755, []string{"notes.txt", "src/main.go"}, "is not empty and is not a natsbus data directory (it has no .dshhost-natsbus and no jetstream/)"},
		{"writable by the group", 0o770, nil, "can be written by other users (mode 0770)"},
		{"writable by anyone", 0o777, []string{natsbus.Marker}, "can be written by other users (mode 0777)"},
		{"empty", 0o750, nil, ""},
		{"a nats-server store", 0o755, []string{"jetstream/meta"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := mk(t, c.mode, c.files...)
			before := names(dir)
			s := stacktest.New(t, stacktest.Options{})
			inst := mountBus(t, s, map[string]any{"embedded": true, "dataDir": dir})
			assert.Equal(t, c.mode, mode(dir), "the mode is the user's")
			if c.err != "" {
				require.Equal(t, host.StateFailed, inst.State())
				assert.ErrorContains(t, inst.Err(), "dataDir "+dir+" "+c.err)
				assert.Equal(t, before, names(dir), "nothing written into a refused directory")
				return
			}
			require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())
			assert.Contains(t, names(dir), natsbus.Marker)
			assert.Contains(t, names(dir), "jetstream")
		})
	}

	// A path that is a file is refused; a new path is made with mode 0700.
	file := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	inst := mountBus(t, stacktest.New(t, stacktest.Options{}), map[string]any{"embedded": true, "dataDir": file})
	assert.ErrorContains(t, inst.Err(), "dataDir "+file+" is not a directory")
	fresh := filepath.Join(t.TempDir(), "a", "b")
	inst = mountBus(t, stacktest.New(t, stacktest.Options{}), map[string]any{"embedded": true, "dataDir": fresh})
	require.Equal(t, host.StateActive, inst.State(), "%v", inst.Err())
	assert.Equal(t, os.FileMode(0o700), mode(fresh))
}
