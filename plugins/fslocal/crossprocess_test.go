package fslocal_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/fslocal"
)

// The cross-process test (contract §3.9 [D18]) re-executes
// the test binary twice: two provider instances in two processes, like two
// dshhost servers on one workspace.
const (
	raceChildEnv  = "FSLOCAL_RACE_CHILD" // the workspace; set only in the child
	raceModeEnv   = "FSLOCAL_RACE_MODE"  // "edit" or "create"
	raceRounds    = 150                  // attempts per child
	raceCounter   = "counter.txt"        // the edit mode's shared file
	raceCreateFmt = "new-%03d.txt"       // the create mode's names
	raceSourceFmt = "src-%s-%03d.txt"    // the move mode's sources, by tag
	raceSwapFmt   = "swap-%s-%03d.txt"   // the move mode's a↔b pairs, by name
	raceTagEnv    = "FSLOCAL_RACE_TAG"   // what the create mode writes
	// raceFileEnv, when set, is the edit mode's file instead of
	// raceCounter, and the child runs with hardLinks "preserve".
	raceFileEnv = "FSLOCAL_RACE_FILE"
)

// runRaceChild is the child. In "edit" mode it reads the counter file
// (version from a stat before the read, as the read tool does), then edits
// n to n+1 guarded by that version, raceRounds times, and prints how many
// edits succeeded; a guarded loser must fail FS_STALE_VERSION. In "create"
// mode it creates each name with CreateIfAbsent and its tag, and prints the
// names it won; a loser must fail FS_NOT_OBSERVED.
func runRaceChild() {
	dir := os.Getenv(raceChildEnv)
	file, cfg := raceCounter, fslocal.Config{Cwd: dir, Root: dir}
	if f := os.Getenv(raceFileEnv); f != "" {
		file, cfg.HardLinks = f, fslocal.HardLinksPreserve
	}
	p, err := fslocal.New(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx := context.Background()
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	switch os.Getenv(raceModeEnv) {
	case "edit":
		tg, err := p.Resolve(ctx, file, fsapi.ResolveOptions{})
		if err != nil {
			fail(err)
		}
		won := 0
		for range raceRounds {
			info, err := p.Stat(ctx, tg)
			if err != nil {
				fail(err)
			}
			text, err := p.ReadText(ctx, tg)
			if err != nil {
				fail(err)
			}
			n, err := strconv.Atoi(strings.TrimSpace(text))
			if err != nil {
				fail(err) // a torn or mixed file
			}
			_, err = p.EditText(ctx, tg, fsapi.EditRequest{OldString: text, NewString: strconv.Itoa(n+1) + "\n"}, &fsapi.EditGuard{Version: info.Version})
			var fe *fsapi.Error
			switch {
			case err == nil:
				won++
			case errors.As(err, &fe) && fe.Code == fsapi.CodeStaleVersion:
			default:
				fail(err)
			}
		}
		fmt.Println(won)
	case "move":
		// Each child moves its own sources onto the shared names without
		// overwrite and prints the names it won; a loser must fail
		// FS_ALREADY_EXISTS. Then it moves swap-a-i to swap-b-i (tag 0) or
		// back (tag 1), the opposite lock orders of two processes, which
		// must not deadlock.
		tag := os.Getenv(raceTagEnv)
		entry := func(name string) fsapi.Target {
			tg, _, err := p.ResolveEntry(ctx, name, fsapi.ResolveOptions{})
			if err != nil {
				fail(err)
			}
			return tg
		}
		for i := range raceRounds {
			_, err := p.Move(ctx, entry(fmt.Sprintf(raceSourceFmt, tag, i)), entry(fmt.Sprintf(raceCreateFmt, i)), fsapi.MoveRequest{SourceType: fsapi.TypeFile})
			var fe *fsapi.Error
			switch {
			case err == nil:
				fmt.Println(i)
			case errors.As(err, &fe) && fe.Code == fsapi.CodeAlreadyExists:
			default:
				fail(err)
			}
		}
		from, to := "a", "b"
		if tag == "1" {
			from, to = to, from
		}
		for i := range raceRounds {
			_, err := p.Move(ctx, entry(fmt.Sprintf(raceSwapFmt, from, i)), entry(fmt.Sprintf(raceSwapFmt, to, i)), fsapi.MoveRequest{SourceType: fsapi.TypeFile})
			var fe *fsapi.Error
			if err != nil && !(errors.As(err, &fe) && (fe.Code == fsapi.CodeAlreadyExists || fe.Code == fsapi.CodeNotFound)) {
				fail(err)
			}
		}
	case "create":
		tag := os.Getenv(raceTagEnv)
		for i := range raceRounds {
			tg, err := p.Resolve(ctx, fmt.Sprintf(raceCreateFmt, i), fsapi.ResolveOptions{})
			if err != nil {
				fail(err)
			}
			_, err = p.WriteText(ctx, tg, tag, &fsapi.WriteIntent{Kind: fsapi.CreateIfAbsent})
			var fe *fsapi.Error
			switch {
			case err == nil:
				fmt.Println(i)
			case errors.As(err, &fe) && fe.Code == fsapi.CodeNotObserved:
			default:
				fail(err)
			}
		}
	}
	os.Exit(0)
}

// runRacePair runs two children in mode on dir at once and returns their
// outputs.
func runRacePair(t *testing.T, dir, mode string, files ...string) [2]string {
	t.Helper()
	var cmds [2]*exec.Cmd
	var outs [2]strings.Builder
	var errs [2]strings.Builder
	for i := range cmds {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), raceChildEnv+"="+dir, raceModeEnv+"="+mode, raceTagEnv+"="+strconv.Itoa(i))
		if len(files) == len(cmds) {
			cmd.Env = append(cmd.Env, raceFileEnv+"="+files[i])
		}
		cmd.Stdout, cmd.Stderr = &outs[i], &errs[i]
		require.NoError(t, cmd.Start())
		cmds[i] = cmd
	}
	var res [2]string
	for i, cmd := range cmds {
		require.NoError(t, cmd.Wait(), "child %d: %s", i, errs[i].String())
		res[i] = outs[i].String()
	}
	return res
}

func TestTwoProcessesLoseNoUpdate(t *testing.T) {
	if testing.Short() {
		t.Skip("races two child processes; CI runs it")
	}
	t.Run("guarded edits: every success is counted once", func(t *testing.T) {
		dir, err := filepath.EvalSymlinks(t.TempDir())
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, raceCounter), []byte("0\n"), 0o644))
		outs := runRacePair(t, dir, "edit")
		total := 0
		for _, out := range outs {
			n, err := strconv.Atoi(strings.TrimSpace(out))
			require.NoError(t, err)
			total += n
		}
		b, err := os.ReadFile(filepath.Join(dir, raceCounter))
		require.NoError(t, err)
		assert.Equal(t, strconv.Itoa(total)+"\n", string(b), "the file counts every successful edit")
		assert.Positive(t, total)
		assert.Equal(t, []string{raceCounter}, names(t, dir), "no lock or staging file is left")
	})
	t.Run("hard links in two directories rewritten in place: every success is counted once", func(t *testing.T) {
		// Each child edits its own link name; the names share one inode but
		// not a directory lock, so only the inode lock serialises them.
		dir, err := filepath.EvalSymlinks(t.TempDir())
		require.NoError(t, err)
		for _, d := range []string{"a", "b"} {
			require.NoError(t, os.Mkdir(filepath.Join(dir, d), 0o755))
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, "a", raceCounter), []byte("0\n"), 0o644))
		require.NoError(t, os.Link(filepath.Join(dir, "a", raceCounter), filepath.Join(dir, "b", raceCounter)))
		outs := runRacePair(t, dir, "edit", "a/"+raceCounter, "b/"+raceCounter)
		total := 0
		for _, out := range outs {
			n, err := strconv.Atoi(strings.TrimSpace(out))
			require.NoError(t, err)
			total += n
		}
		b, err := os.ReadFile(filepath.Join(dir, "b", raceCounter))
		require.NoError(t, err)
		assert.Equal(t, strconv.Itoa(total)+"\n", string(b), "the file counts every successful edit")
		assert.Positive(t, total)
		fi, err := os.Stat(filepath.Join(dir, "a", raceCounter))
		require.NoError(t, err)
		assert.Equal(t, uint64(2), uint64(fi.Sys().(*syscall.Stat_t).Nlink), "still one file with two links")
		assert.Equal(t, []string{raceCounter}, names(t, filepath.Join(dir, "a")), "no lock or copy is left")
		assert.Equal(t, []string{raceCounter}, names(t, filepath.Join(dir, "b")), "no lock or copy is left")
	})
	t.Run("guarded creates: one winner per name, never clobbered", func(t *testing.T) {
		dir, err := filepath.EvalSymlinks(t.TempDir())
		require.NoError(t, err)
		outs := runRacePair(t, dir, "create")
		winner := map[int]string{}
		for tag, out := range outs {
			for _, s := range strings.Fields(out) {
				i, err := strconv.Atoi(s)
				require.NoError(t, err)
				_, dup := winner[i]
				require.False(t, dup, "name %d created by both", i)
				winner[i] = strconv.Itoa(tag)
			}
		}
		require.Len(t, winner, raceRounds, "every name was created once")
		for i, tag := range winner {
			b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf(raceCreateFmt, i)))
			require.NoError(t, err)
			assert.Equal(t, tag, string(b), "name %d holds its winner's content", i)
		}
		assert.Len(t, names(t, dir), raceRounds, "no lock or staging file is left")
	})
}

// TestTwoProcessesMovingOntoOneDestination: two processes move different
// sources onto the same names without overwrite: exactly one wins each
// name, which holds the winner's bytes; the loser's source is still whole
// where it was; nothing is left half-moved or staged. The same two then
// move a→b and b→a at once: neither deadlocks (the test would time out),
// and each pair ends as one file.
func TestTwoProcessesMovingOntoOneDestination(t *testing.T) {
	if testing.Short() {
		t.Skip("races two child processes; CI runs it")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	for i := range raceRounds {
		for _, tag := range []string{"0", "1"} {
			require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf(raceSourceFmt, tag, i)), []byte("from "+tag+"\n"), 0o644))
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf(raceSwapFmt, "a", i)), []byte("pair\n"), 0o644))
	}
	outs := runRacePair(t, dir, "move")
	winner := map[int]string{}
	for tag, out := range outs {
		for _, s := range strings.Fields(out) {
			i, err := strconv.Atoi(s)
			require.NoError(t, err)
			_, dup := winner[i]
			require.False(t, dup, "name %d won by both", i)
			winner[i] = strconv.Itoa(tag)
		}
	}
	require.Len(t, winner, raceRounds, "every name was won once")
	for i, tag := range winner {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf(raceCreateFmt, i)))
		require.NoError(t, err)
		assert.Equal(t, "from "+tag+"\n", string(b), "name %d holds its winner's bytes", i)
		assert.NoFileExists(t, filepath.Join(dir, fmt.Sprintf(raceSourceFmt, tag, i)), "the winner's source is gone")
		loser := map[string]string{"0": "1", "1": "0"}[tag]
		b, err = os.ReadFile(filepath.Join(dir, fmt.Sprintf(raceSourceFmt, loser, i)))
		require.NoError(t, err, "the loser's source is still there")
		assert.Equal(t, "from "+loser+"\n", string(b))
	}
	for i := range raceRounds {
		_, errA := os.Stat(filepath.Join(dir, fmt.Sprintf(raceSwapFmt, "a", i)))
		_, errB := os.Stat(filepath.Join(dir, fmt.Sprintf(raceSwapFmt, "b", i)))
		assert.True(t, (errA == nil) != (errB == nil), "pair %d is one file", i)
	}
	assert.Len(t, names(t, dir), 3*raceRounds, "names, losers' sources and pairs; no staging file")
}

// names lists dir's entries.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}
