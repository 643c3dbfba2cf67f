package docs_test

import (
	"bufio"
	"fmt"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/config"
	_ "github.com/dsh-go/dsh/examples/auditlog"
	_ "github.com/dsh-go/dsh/examples/protectedpaths"
	"github.com/dsh-go/dsh/host"
	_ "github.com/dsh-go/dsh/plugins/standard"
)

// root is the module root, seen from this package's directory.
const root = ".."

const module = "github.com/dsh-go/dsh/"

func read(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, rel))
	require.NoError(t, err)
	return string(data)
}

// pages returns the Markdown pages of docs/, sorted.
func pages(t *testing.T) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	var out []string
	for _, n := range names {
		out = append(out, "docs/"+filepath.Base(n))
	}
	require.NotEmpty(t, out)
	return out
}

// section returns the lines of md from the heading line equal to heading
// up to the next heading of the same or a higher level.
func section(md, heading string) (string, bool) {
	level := strings.Index(heading, " ")
	lines := strings.Split(md, "\n")
	for i, l := range lines {
		if l != heading {
			continue
		}
		var b strings.Builder
		for _, l := range lines[i+1:] {
			if n := strings.Index(l, " "); n > 0 && n <= level && strings.Trim(l[:n], "#") == "" {
				break
			}
			b.WriteString(l + "\n")
		}
		return b.String(), true
	}
	return "", false
}

func TestTheReadmeLinksEveryDocsPage(t *testing.T) {
	docs, ok := section(read(t, "README.md"), "## Documentation")
	require.True(t, ok, "README.md has a Documentation section")
	for _, p := range pages(t) {
		assert.Contains(t, docs, "]("+p+")", "README.md's Documentation section links %s", p)
	}
}

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

func TestRelativeLinksResolve(t *testing.T) {
	for _, page := range append([]string{"README.md"}, pages(t)...) {
		for _, m := range mdLink.FindAllStringSubmatch(read(t, page), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			_, err := os.Stat(filepath.Join(root, filepath.Dir(page), target))
			assert.NoError(t, err, "%s links %s", page, m[1])
		}
	}
}

// configKeys returns the top-level keys (json tags) of a config type and
// the default value of each.
func configKeys(p *host.Plugin) ([]string, map[string]reflect.Value) {
	ct := p.ConfigType()
	defaults := map[string]reflect.Value{}
	if ct.Kind() != reflect.Struct {
		return nil, defaults
	}
	dv := reflect.ValueOf(p.DefaultConfig())
	var keys []string
	for i := range ct.NumField() {
		f := ct.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		keys = append(keys, name)
		defaults[name] = dv.Field(i)
	}
	return keys, defaults
}

// tableKeys returns the key of every table row of a section: the first
// cell, when it is one code span.
func tableKeys(sec string) map[string]string {
	rows := map[string]string{}
	for l := range strings.SplitSeq(sec, "\n") {
		cells := strings.Split(l, "|")
		if len(cells) < 3 {
			continue
		}
		cell := strings.TrimSpace(cells[1])
		if len(cell) > 2 && strings.HasPrefix(cell, "`") && strings.HasSuffix(cell, "`") && strings.Count(cell, "`") == 2 {
			rows[strings.Trim(cell, "`")] = l
		}
	}
	return rows
}

func TestEveryConfigKeyIsDocumented(t *testing.T) {
	md := read(t, "docs/configuration.md")
	keysSection, ok := section(md, "## Plugin keys")
	require.True(t, ok)
	registered := host.Registered()
	names := map[string]bool{}
	for _, p := range registered {
		names[p.Name()] = true
	}
	for _, want := range []string{"auditlog", "fslocal", "fspolicy", "protectedpaths", "toolfs", "tools"} {
		require.True(t, names[want], "plugin %q is registered in this test binary", want)
	}
	for _, p := range registered {
		t.Run(p.Name(), func(t *testing.T) {
			var sec string
			for l := range strings.SplitSeq(keysSection, "\n") {
				if strings.HasPrefix(l, "### `"+p.Name()+"`") {
					sec, _ = section(keysSection, l)
				}
			}
			require.NotEmpty(t, sec, "docs/configuration.md has a section \"### `%s`...\" under \"## Plugin keys\"", p.Name())
			keys, defaults := configKeys(p)
			rows := tableKeys(sec)
			if len(keys) == 0 {
				assert.Contains(t, sec, "No keys.")
			}
			for _, k := range keys {
				row, ok := rows[k]
				if !assert.True(t, ok, "key `%s` of plugin %q has a row in its section", k, p.Name()) {
					continue
				}
				// A multi-line default (a description) cannot sit in a
				// table cell; its row describes it instead.
				if d := defaults[k]; !d.IsZero() && d.Kind() != reflect.Slice && d.Kind() != reflect.Map &&
					!(d.Kind() == reflect.String && strings.Contains(d.String(), "\n")) {
					assert.Contains(t, row, fmt.Sprintf("`%v`", d.Interface()), "the default of `%s`", k)
				}
			}
			for k := range rows {
				assert.True(t, slices.Contains(keys, k), "section of %q documents `%s`, which is not one of its keys %v", p.Name(), k, keys)
			}
		})
	}
	for l := range strings.SplitSeq(keysSection, "\n") {
		if name, ok := strings.CutPrefix(l, "### `"); ok {
			name, _, _ = strings.Cut(name, "`")
			assert.True(t, names[name] || buildTagged[name], "docs/configuration.md documents plugin %q, which is not registered", name)
		}
	}
}

var excerpt = regexp.MustCompile("<!-- excerpt: (\\S+) -->\n```go\n((?s:.*?))```\n")

func TestGuideExcerptsAreVerbatimFromTheCode(t *testing.T) {
	n := 0
	for _, page := range pages(t) {
		for _, m := range excerpt.FindAllStringSubmatch(read(t, page), -1) {
			n++
			assert.True(t, strings.Contains(read(t, m[1]), m[2]), "%s: this excerpt of %s is no longer in that file:\n%s", page, m[1], m[2])
		}
	}
	assert.GreaterOrEqual(t, n, 10, "the guide's excerpts are found")
}

// tagged is the build context of the tagged build (docs/fleet.md), a
// superset of the default one: with natsbus, plugins/natsbus is a package
// too.
var tagged = func() build.Context {
	c := build.Default
	c.BuildTags = append(c.BuildTags, "natsbus")
	return c
}()

// buildTagged names the plugins compiled in only under a build tag: docs
// describe them in every build, the untagged test binary does not hold
// them.
var buildTagged = map[string]bool{"natsbus": true}

// packageDirs returns every package directory of the module with non-test
// Go files in the tagged build (relative, slash-separated), except
// testdata and hidden directories.
func packageDirs(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if pkg, err := tagged.ImportDir(path, 0); err != nil || len(pkg.GoFiles) == 0 {
			return nil // no Go files, or only tests
		}
		rel, _ := filepath.Rel(root, path)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	require.NoError(t, err)
	return out
}

var repoFile = regexp.MustCompile("`([a-z][a-zA-Z0-9_./-]*/[a-zA-Z0-9_.-]+\\.(?:go|md|yaml))`")

func TestFilesNamedInTheDocsExist(t *testing.T) {
	for _, page := range pages(t) {
		for _, m := range repoFile.FindAllStringSubmatch(read(t, page), -1) {
			_, err := os.Stat(filepath.Join(root, m[1]))
			assert.NoError(t, err, "%s names %s", page, m[1])
		}
	}
}

func TestTheExamplePluginsUseOnlyThePublicAPI(t *testing.T) {
	public := []string{"host", "events", "plugins/fsapi", "plugins/tools"}
	for _, dir := range []string{"examples/auditlog", "examples/protectedpaths"} {
		pkg, err := build.ImportDir(filepath.Join(root, dir), 0)
		require.NoError(t, err)
		for _, imp := range pkg.Imports {
			first, _, _ := strings.Cut(imp, "/")
			if !strings.Contains(first, ".") {
				continue // the standard library
			}
			ours, ok := strings.CutPrefix(imp, module)
			assert.True(t, ok && slices.Contains(public, ours), "%s imports %s", dir, imp)
		}
	}
}

func TestEveryPackageHasADocComment(t *testing.T) {
	for _, dir := range packageDirs(t) {
		pkg, err := tagged.ImportDir(filepath.Join(root, dir), 0)
		require.NoError(t, err)
		var doc string
		fset := token.NewFileSet()
		for _, f := range pkg.GoFiles {
			af, err := parser.ParseFile(fset, filepath.Join(pkg.Dir, f), nil, parser.PackageClauseOnly|parser.ParseComments)
			require.NoError(t, err)
			if af.Doc != nil {
				doc += af.Doc.Text()
			}
		}
		want := "Package " + pkg.Name + " "
		if pkg.Name == "main" {
			want = "Command "
		}
		assert.True(t, strings.HasPrefix(doc, want), "%s: the package doc starts %q: %q", dir, want, firstLine(doc))
		assert.Equal(t, 1, strings.Count(doc, want), "%s: one package doc comment", dir)
	}
}

func firstLine(s string) string {
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Scan()
	return sc.Text()
}

// The default deployment is written once, in config; the YAML block that
// opens configuration.md shows it and must list the same entries.
func TestTheDocumentedDefaultDeploymentIsTheBuiltIn(t *testing.T) {
	md := read(t, "docs/configuration.md")
	start := strings.Index(md, "```yaml\n")
	require.GreaterOrEqual(t, start, 0, "configuration.md opens with the default deployment as YAML")
	block, _, ok := strings.Cut(md[start+len("```yaml\n"):], "```")
	require.True(t, ok)
	var shown []string
	for l := range strings.SplitSeq(block, "\n") {
		if name, ok := strings.CutPrefix(strings.TrimSpace(l), "- name: "); ok {
			shown = append(shown, name)
		}
	}
	dep, err := config.Load(config.Options{Dir: t.TempDir(), Environ: []string{}})
	require.NoError(t, err)
	var built []string
	for _, e := range dep.Entries {
		built = append(built, e.Name)
	}
	assert.Equal(t, built, shown)
}

// The README's layout table names every package of the module.
func TestTheReadmeLayoutListsEveryPackage(t *testing.T) {
	layout, ok := section(read(t, "README.md"), "## Layout")
	require.True(t, ok)
	for _, dir := range packageDirs(t) {
		if dir == "." {
			continue
		}
		assert.Contains(t, layout, "`"+dir+"/`", "README.md's layout lists %s", dir)
	}
}
