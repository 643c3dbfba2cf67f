package toolsearch

import (
	"bytes"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/gitignore"
)

func TestStackPrecedence(t *testing.T) {
	var s ignoreStack
	top := ignoreLevel{Files: []*gitignore.Rules{gitignore.Parse([]byte("*.log\n!keep.log\nbuild/\n"))}}
	sub := ignoreLevel{Dir: "sub", Files: []*gitignore.Rules{gitignore.Parse([]byte("!deep.txt\n")), gitignore.Parse([]byte("local.txt\ndeep.txt\n"))}}
	s.Push(top)
	s.Push(sub)
	check := func(path string, dir, want bool) {
		t.Helper()
		s.Trim(path)
		assert.Equal(t, want, s.Ignored(path, dir), path)
	}
	check("sub/a.log", false, true)
	check("sub/keep.log", false, false)
	check("sub/local.txt", false, true)
	check("sub/deep.txt", false, false) // .ignore before .gitignore in one directory
	check("x/local.txt", false, false)  // the sub level was trimmed
	assert.Equal(t, 1, s.Len())
	check("x/build", true, true)

	// ignoreRules from above the root apply with the path from their directory.
	var above ignoreStack
	above.Push(ignoreLevel{Above: "out", Files: []*gitignore.Rules{gitignore.Parse([]byte("out/*\n/out/keep\n"))}})
	above.Trim("a.txt")
	assert.True(t, above.Ignored("a.txt", false), "out/* matches out/a.txt")
	assert.True(t, above.Ignored("keep", false))
	above.Trim("d/x")
	assert.False(t, above.Ignored("d/x", false), "out/* does not cross into out/d/x")
	var zero ignoreStack
	assert.False(t, zero.Ignored("a", false))
}

// TestAgainstGit builds random trees with random .gitignore files and
// compares the files we keep with `git ls-files --others --exclude-standard`
// (which prunes excluded directories, as our walk does). It is skipped when
// git is not installed.
func TestAgainstGit(t *testing.T) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	names := []string{"a", "b", "ab", "a.log", "b.txt", "x.txt", "build", "keep.log", "c d", "{a,b}.txt", "#x", "!y", "-z", "é.txt", "a.TXT", "]y.txt", "xy.txt", "7.num", "x.num", "[", "a]"}
	patterns := []string{"*.log", "!keep.log", "build/", "/a", "a/", "**/b", "b/**", "a/**/x.txt", "*.txt", "!x.txt", "/*/b.txt",
		"{a,b}.txt", "\\#x", "\\!y", "a?", "[ab]", "[!a]b", "*", "!*.txt", "ab/", "a/b", "# comment", "", "c\\ d", "b.txt  ", "**", "!b/",
		"/build/**", "a*", "?.txt", "[a-c].log", "x.txt/", "*/", "!a/", "é*", "*.TXT",
		"[]x]y.txt", "[!]x]y.txt", "[[:digit:]]*.num", "[[:alpha:]].num", "??.txt", "[", "\\[", "a[]]", "[[:space:][:punct:]]*"}
	seeds := 40
	if testing.Short() {
		seeds = 10
	}
	ignored := 0
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		dir := t.TempDir()
		var files []string
		var walkDirs func(rel string, depth int)
		walkDirs = func(rel string, depth int) {
			for range 1 + rng.IntN(4) {
				name := names[rng.IntN(len(names))]
				p := filepath.Join(rel, name)
				if depth < 3 && rng.IntN(3) == 0 {
					if os.MkdirAll(filepath.Join(dir, p), 0o755) == nil {
						walkDirs(p, depth+1)
					}
					continue
				}
				if fi, err := os.Stat(filepath.Join(dir, p)); err == nil && fi.IsDir() {
					continue
				}
				require.NoError(t, os.WriteFile(filepath.Join(dir, p), []byte("x"), 0o644))
				files = append(files, p)
			}
			if rng.IntN(2) == 0 {
				var lines []string
				for range 1 + rng.IntN(5) {
					lines = append(lines, patterns[rng.IntN(len(patterns))])
				}
				require.NoError(t, os.WriteFile(filepath.Join(dir, rel, ".gitignore"), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
			}
		}
		walkDirs(".", 0)
		want := gitKept(t, gitPath, dir)
		got := ourKept(t, dir)
		if !assert.Equal(t, want, got, "seed %d", seed) {
			dumpIgnores(t, dir)
			return
		}
		ignored += len(files) - len(slices.DeleteFunc(slices.Clone(got), func(p string) bool { return filepath.Base(p) == ".gitignore" }))
	}
	assert.Positive(t, ignored, "the generated rules ignored some files, so the comparison means something")
}

// gitKept returns the files git does not ignore, sorted.
func gitKept(t *testing.T, gitPath, dir string) []string {
	t.Helper()
	run := func(args ...string) []byte {
		cmd := exec.Command(gitPath, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "XDG_CONFIG_HOME="+dir)
		out, err := cmd.Output()
		require.NoError(t, err, "git %v", args)
		return out
	}
	run("init", "-q")
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "info", "exclude"), nil, 0o644))
	out := run("-c", "core.excludesFile=/dev/null", "-c", "core.ignoreCase=false", "ls-files", "-z", "--others", "--exclude-standard")
	var kept []string
	for _, p := range bytes.Split(out, []byte{0}) {
		if len(p) > 0 {
			kept = append(kept, string(p))
		}
	}
	slices.Sort(kept)
	return kept
}

// ourKept walks dir as the search tools do (pruning ignored directories,
// reading every .gitignore) and returns the files kept, sorted. Hidden files
// are kept, as git keeps them; only .git is skipped.
func ourKept(t *testing.T, dir string) []string {
	t.Helper()
	var s ignoreStack
	var kept []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			if data, err := os.ReadFile(filepath.Join(p, ".gitignore")); err == nil {
				s.Push(ignoreLevel{Files: []*gitignore.Rules{gitignore.Parse(data)}})
			}
			return nil
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		s.Trim(rel)
		if s.Ignored(rel, d.IsDir()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if data, err := os.ReadFile(filepath.Join(p, ".gitignore")); err == nil {
				s.Push(ignoreLevel{Dir: rel, Files: []*gitignore.Rules{gitignore.Parse(data)}})
			}
			return nil
		}
		kept = append(kept, rel)
		return nil
	})
	require.NoError(t, err)
	slices.Sort(kept)
	return kept
}

func dumpIgnores(t *testing.T, dir string) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == ".gitignore" {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			t.Logf("%s:\n%s", rel, b)
		}
		return nil
	})
}
