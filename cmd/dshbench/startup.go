package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// startupGroups names the third-party modules whose start-up the
// attribution measures one group at a time: each group is left out of the
// "all linked packages" program and the difference is its share. A module in
// no group stays in every program. The groups follow what dshhost uses them
// for, not the module graph: the MCP SDK with the modules only it brings,
// the config stack, CLDR collation, and the mandated event bus.
var startupGroups = []struct {
	name    string
	modules []string // module path prefixes
}{
	{"the MCP SDK and what only it brings", []string{
		"github.com/modelcontextprotocol/go-sdk", "github.com/google/jsonschema-go", "golang.org/x/oauth2",
		"github.com/yosida95/uritemplate", "github.com/segmentio/"}},
	{"the config stack (koanf and its parsers)", []string{
		"github.com/knadh/koanf", "go.yaml.in/yaml", "github.com/pelletier/go-toml", "github.com/go-viper/mapstructure",
		"github.com/mitchellh/", "github.com/fsnotify/fsnotify"}},
	{"golang.org/x/text (collation)", []string{"golang.org/x/text"}},
	{"EventBus (with net/rpc)", []string{"github.com/asaskevich/EventBus"}},
}

// startup attributes the start-up of `dshhost call read` to what dshhost
// links. It builds,
// with a plain `go build`, hello-world programs that blank-import more and
// more of dshhost's dependencies (so their package initialisation and their
// share of the binary run, but none of their code is called), and times them
// round robin with `dshhost --version` and `dshhost call read`: p50 wall time
// of n runs each, and the ratio to the hello-world.
func (b *bench) startup() {
	fmt.Println("\nstart-up attribution: hello-world programs that link more and more of dshhost's packages (plain go build)")
	progs, err := b.startupPrograms()
	if err != nil {
		fmt.Println("start-up attribution: ERROR", err)
		return
	}
	cmds := make([][]string, 0, len(progs)+2)
	for _, p := range progs {
		cmds = append(cmds, []string{p.bin})
	}
	cmds = append(cmds, []string{b.dshhost, "--version"},
		[]string{b.dshhost, "call", "--workspace=" + b.ws, "read", `{"file_path":"` + smallFile + `"}`})
	names := make([]string, 0, len(cmds))
	for _, p := range progs {
		names = append(names, p.name)
	}
	names = append(names, "dshhost --version (no tool code runs)", "dshhost call read small.txt")

	p50s, err := roundRobin(b.n/3, cmds)
	if err != nil {
		fmt.Println("start-up attribution: ERROR", err)
		return
	}
	hello := p50s[0]
	for i, name := range names {
		fmt.Printf("  %-62s p50 %8s  %.2fx hello\n", name, ms(p50s[i]), float64(p50s[i])/float64(hello))
	}
	all := p50s[3]
	for i, g := range startupGroups {
		fmt.Printf("  share of %-53s %8s\n", g.name, ms(all-p50s[4+i]))
	}
	fmt.Printf("  (%d runs each, round robin; a share is the all-packages p50 minus the p50 without the group)\n", b.n/3)
}

type startupProgram struct{ name, bin string }

// startupPrograms writes and builds the attribution programs: hello; hello
// with net (the cgo, dynamically linked start-up); with every standard
// package dshhost links; with every package dshhost links except its own;
// then that last one without each of startupGroups.
func (b *bench) startupPrograms() ([]startupProgram, error) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}} {{with .Module}}{{.Path}} {{.Main}}{{end}}", "./cmd/dshhost").Output()
	if err != nil {
		return nil, fmt.Errorf("go list -deps ./cmd/dshhost: %w", err)
	}
	var std, third []string
	var mods []string // third[i]'s module
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || !importable(f[0]) {
			continue
		}
		switch {
		case f[1] == "true":
			std = append(std, f[0])
		case len(f) == 4 && f[3] == "false":
			third = append(third, f[0])
			mods = append(mods, f[2])
		}
	}
	without := func(prefixes []string) []string {
		var keep []string
		for i, p := range third {
			if !slices.ContainsFunc(prefixes, func(pre string) bool { return strings.HasPrefix(mods[i], pre) }) {
				keep = append(keep, p)
			}
		}
		return keep
	}
	progs := []struct {
		name    string
		imports []string
	}{
		{"hello-world (fmt.Println)", nil},
		{"  + net (cgo: dynamically linked, libc, pthreads)", []string{"net"}},
		{fmt.Sprintf("  + the %d standard packages dshhost links", len(std)), std},
		{fmt.Sprintf("  + the %d third-party packages it links (all but its own)", len(third)), slices.Concat(std, third)},
	}
	for _, g := range startupGroups {
		progs = append(progs, struct {
			name    string
			imports []string
		}{"    without " + g.name, slices.Concat(std, without(g.modules))})
	}
	dir := filepath.Join(b.work, "startup")
	var built []startupProgram
	for i, p := range progs {
		src := filepath.Join(dir, fmt.Sprintf("p%d", i), "main.go")
		if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
			return nil, err
		}
		var text strings.Builder
		text.WriteString("package main\n\nimport (\n\t\"fmt\"\n")
		for _, imp := range p.imports {
			fmt.Fprintf(&text, "\t_ %q\n", imp)
		}
		text.WriteString(")\n\nfunc main() { fmt.Println(\"hello\") }\n")
		if err := os.WriteFile(src, []byte(text.String()), 0o644); err != nil {
			return nil, err
		}
		bin := filepath.Join(dir, fmt.Sprintf("p%d.bin", i))
		// A file argument builds in the module of the current directory, so
		// the third-party imports resolve to the versions dshhost uses.
		cmd := exec.Command("go", "build", "-o", bin, src)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("go build %s: %w", p.name, err)
		}
		built = append(built, startupProgram{name: p.name, bin: bin})
	}
	return built, nil
}

// importable reports whether a program outside the package's module may
// import path: not an internal or vendored package, not a pseudo-package.
func importable(path string) bool {
	if path == "C" || path == "unsafe" || strings.HasPrefix(path, "vendor/") {
		return false
	}
	for _, el := range strings.Split(path, "/") {
		if el == "internal" {
			return false
		}
	}
	return true
}

// roundRobin runs each command once unmeasured, then n times in turn, and
// returns each command's p50 wall time. Output is counted, as in pair.
func roundRobin(n int, cmds [][]string) ([]time.Duration, error) {
	times := make([][]time.Duration, len(cmds))
	for i := range n + 1 {
		for j, c := range cmds {
			d, _, _, _, err := run(false, c...)
			if err != nil {
				return nil, err
			}
			if i > 0 {
				times[j] = append(times[j], d)
			}
		}
	}
	p50s := make([]time.Duration, len(cmds))
	for j := range cmds {
		p50s[j], _ = percentiles(times[j])
	}
	return p50s, nil
}
