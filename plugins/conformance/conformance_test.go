package conformance_test

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/internal/npmtest"
)

// suites are the conformance runs of conversations.md §5.5: the suite's
// npm package (internal/npmtest/packages.txt), its requirement level (0.1.16
// has none: its active suite) and its expected failures.
var suites = []struct {
	name, pkg, requirements, baseline string
}{
	{"0.1.16", "conformance-0.1.16", "", "0.1.16.yaml"},
	{"0.2.0-alpha.12 at 2025-11-25", "@modelcontextprotocol/conformance", "2025-11-25", "0.2.0-alpha.12-2025-11-25.yaml"},
	{"0.2.0-alpha.12 at 2026-07-28", "@modelcontextprotocol/conformance", "2026-07-28", "0.2.0-alpha.12-2026-07-28.yaml"},
}

// TestTheSuitesFailOnlyWhereAFeatureIsAbsent runs each suite against
// `dshhost serve --http --no-auth` of the conformance build with its
// baseline (`--expected-failures`): the suite exits non-zero for a failure
// outside the baseline and for an entry that no longer fails.
func TestTheSuitesFailOnlyWhereAFeatureIsAbsent(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped under -short: builds dshhost and runs three suites")
	}
	dir, node := npmtest.Dir(t), npmtest.Node(t)
	url := serve(t)
	for _, s := range suites {
		t.Run(s.name, func(t *testing.T) {
			baseline, err := filepath.Abs(filepath.Join("testdata", "expected-failures", s.baseline))
			require.NoError(t, err)
			args := []string{filepath.Join(dir, "node_modules", filepath.FromSlash(s.pkg), "dist", "index.js"), "server",
				"--url", url, "--expected-failures", baseline, "-o", t.TempDir()}
			if s.requirements != "" { // 0.2: the levels, and a per-scenario timeout
				args = append(args, "--requirements", s.requirements, "--timeout", "5000")
			}
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
			defer cancel()
			out, err := exec.CommandContext(ctx, node, args...).CombinedOutput()
			text := stripColour(string(out))
			require.NoError(t, err, "the suite found failures outside %s:\n%s", s.baseline, text)
			assert.Contains(t, text, "Baseline check passed: all failures are expected.")
			for _, l := range strings.Split(text, "\n") {
				if strings.HasPrefix(l, "Total: ") {
					t.Log(l)
				}
			}
		})
	}
}

// serve starts the conformance build of dshhost on a free port and returns
// its URL; the server is stopped (SIGTERM) when the test ends.
func serve(t *testing.T) string {
	t.Helper()
	bin := build(t)
	config, err := filepath.Abs(filepath.Join("testdata", "dsh.yaml"))
	require.NoError(t, err)
	cmd := exec.Command(bin, "serve", "--config", config, "--workspace", t.TempDir(), "--http", "127.0.0.1:0", "--no-auth")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "DSH_STATE_DIR=" + os.Getenv("DSH_STATE_DIR")}
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
				urls <- u
			}
		}
	}()
	select {
	case u := <-urls:
		return u
	case <-time.After(30 * time.Second):
		t.Fatal("dshhost serve did not say where it listens within 30 s")
		return ""
	}
}

// build builds the conformance build of dshhost and returns its path.
func build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "dshhost")
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-tags", "conformance", "-o", bin, "github.com/dsh-go/dsh/cmd/dshhost")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build -tags conformance: %s", out)
	return bin
}

var colour = regexp.MustCompile("\x1b\\[[0-9;]*m")

func stripColour(s string) string { return colour.ReplaceAllString(s, "") }

// absent are the features dshhost does not serve, the only reasons a
// scenario may be expected to fail (conversations.md §5.5), and the words
// that tie a scenario's name to one of them.
var absent = map[string]string{"prompts": "prompt", "resources": "resource", "completion": "completion", "sampling": "sampling", "tasks": "task"}

// TestEveryExpectedFailureNamesAnAbsentFeature: each baseline entry has a
// reason that begins with an absent feature, one its name does not
// contradict, and none is a protocol-version refusal.
func TestEveryExpectedFailureNamesAnAbsentFeature(t *testing.T) {
	entry := regexp.MustCompile(`^  - ([a-z0-9-]+(?::[a-z0-9-]+)?)\s+# ([a-z]+): (.+)$`)
	for _, s := range suites {
		t.Run(s.baseline, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "expected-failures", s.baseline))
			require.NoError(t, err)
			n := 0
			inServer := false
			for i, l := range strings.Split(string(b), "\n") {
				switch {
				case l == "" || strings.HasPrefix(l, "#"):
					continue
				case l == "server:":
					inServer = true
					continue
				}
				require.True(t, inServer, "line %d: %q outside the server list", i+1, l)
				m := entry.FindStringSubmatch(l)
				require.NotNil(t, m, "line %d: %q is not `  - <scenario>[:<check>]  # <feature>: <reason>`", i+1, l)
				name, feature, reason := m[1], m[2], m[3]
				word, ok := absent[feature]
				assert.True(t, ok, "%s: %q is not a feature dshhost lacks (prompts, resources, completion, sampling, tasks)", name, feature)
				for other, w := range absent {
					if other != feature && strings.Contains(strings.SplitN(name, ":", 2)[0], w) && !strings.Contains(name, word) {
						t.Errorf("%s: named for %s, but its reason is %s", name, other, feature)
					}
				}
				assert.NotRegexp(t, `(?i)version|unsupported protocol`, reason+name, "%s: a protocol-version refusal is never an expected failure", name)
				n++
			}
			assert.Positive(t, n)
		})
	}
}

// TestARealClientSeesTitlesProgressAndImages: the TypeScript SDK v1 over
// stdio gets every tool's title, progress notifications of a grep that
// runs past its first second (at least 146 MB of text, no literal to skip
// by), an image block from the fixture tool, and the elicitation a fixture
// asks within its call (the stdio fast path hands such a call to the SDK).
func TestARealClientSeesTitlesProgressAndImages(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped under -short: builds dshhost and greps 146 MB")
	}
	dir, node := npmtest.Dir(t), npmtest.Node(t)
	bin := build(t)
	ws := t.TempDir()
	text := []byte(strings.Repeat("alpha beta gamma delta 12345 epsilon zeta eta theta iota kappa lambda mu\n", 1000))
	dirs := 0
	grow := func(n int) { // directories of 100 files of 73 KB
		for ; dirs < n; dirs++ {
			sub := filepath.Join(ws, fmt.Sprintf("d%03d", dirs))
			require.NoError(t, os.Mkdir(sub, 0o755))
			for f := range 100 {
				require.NoError(t, os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%03d.txt", f)), text, 0o644))
			}
		}
	}
	// The tree grows until one grep of it takes 1.5 s here, whatever the
	// machine's speed: the progress starts after the first second.
	for grow(20); dirs < 320; grow(2 * dirs) {
		start := time.Now()
		out, err := exec.Command(bin, "call", "--workspace", ws, "grep", `{"pattern":"[0-9]{6}"}`).CombinedOutput()
		require.NoError(t, err, "%s", out)
		if time.Since(start) >= 1500*time.Millisecond {
			break
		}
	}
	config, err := filepath.Abs(filepath.Join("testdata", "dsh.yaml"))
	require.NoError(t, err)
	run := exec.CommandContext(t.Context(), node, filepath.Join("testdata", "surface.mjs"), bin, config, ws)
	run.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "DSH_STATE_DIR=" + os.Getenv("DSH_STATE_DIR"), "MCP_CLIENTS_DIR=" + dir}
	out, err := run.Output()
	require.NoError(t, err, "%s", out)
	var got struct {
		Titles, AnnotationTitles map[string]*string
		Progress                 []struct {
			Progress float64 `json:"progress"`
			Message  string  `json:"message"`
		}
		Grep struct {
			IsError bool
			Text    string
		}
		Image       []struct{ Type, MimeType, Data string }
		Elicitation string
		Error       string
	}
	require.NoError(t, json.Unmarshal(out, &got), "%s", out)
	require.Empty(t, got.Error)
	want := map[string]string{"list": "List directory", "read": "Read file", "write": "Write file", "edit": "Edit file",
		"glob": "Find files", "grep": "Search file contents", "test_image_content": "Image content"}
	for name, title := range want {
		if assert.NotNil(t, got.Titles[name], name) {
			assert.Equal(t, title, *got.Titles[name], name)
		}
		if assert.NotNil(t, got.AnnotationTitles[name], name) {
			assert.Equal(t, title, *got.AnnotationTitles[name], name)
		}
	}
	for name, title := range got.Titles {
		assert.NotNil(t, title, "%s has no title", name)
	}
	assert.False(t, got.Grep.IsError, got.Grep.Text)
	require.NotEmpty(t, got.Progress, "a grep of %s took past a second and reported nothing", ws)
	for i, p := range got.Progress {
		assert.Equal(t, "files searched", p.Message)
		if i > 0 {
			assert.Greater(t, p.Progress, got.Progress[i-1].Progress)
		}
	}
	assert.LessOrEqual(t, got.Progress[len(got.Progress)-1].Progress, float64(100*dirs))
	t.Logf("%d progress notifications, the last at %v files searched", len(got.Progress), got.Progress[len(got.Progress)-1].Progress)
	require.Len(t, got.Image, 1)
	assert.Equal(t, "image", got.Image[0].Type)
	assert.Equal(t, "image/png", got.Image[0].MimeType)
	png, err := base64.StdEncoding.DecodeString(got.Image[0].Data)
	require.NoError(t, err)
	assert.Equal(t, "\x89PNG\r\n\x1a\n", string(png[:8]))
	assert.Equal(t, `Elicitation result: action=accept, content={"username":"ada (who?)"}`, got.Elicitation)
}
