package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// bench holds one run: the built binaries, the workspace and the figures.
type bench struct {
	work, ws string
	n        int
	quick    bool
	dshhost  string   // plain go build, or the -dshhost binary
	static   string   // CGO_ENABLED=0 go build
	hello    string   // CGO_ENABLED=0 go build of a hello-world
	official []string // node + the official server's entry point; nil: skipped
	modern   bool     // dshhost is spoken to at 2026-07-28 (no session, _meta on every request)
	rows     []row
}

// build builds dshhost (plain and static) and the hello-world (static, as
// the README installs dshhost) into the work directory. The module root is
// found from the current directory.
func (b *bench) build() error {
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return fmt.Errorf("run dshbench inside the dsh module: %w", err)
	}
	mod := strings.TrimSpace(string(root))
	b.static = filepath.Join(b.work, "dshhost-static")
	b.hello = filepath.Join(b.work, "hello")
	steps := []struct {
		out, dir string
		env      []string
		pkg      string
	}{
		{b.static, mod, []string{"CGO_ENABLED=0"}, "./cmd/dshhost"},
	}
	if b.dshhost == "" {
		b.dshhost = filepath.Join(b.work, "dshhost")
		steps = append(steps, struct {
			out, dir string
			env      []string
			pkg      string
		}{b.dshhost, mod, nil, "./cmd/dshhost"})
	}
	for _, s := range steps {
		cmd := exec.Command("go", "build", "-o", s.out, s.pkg)
		cmd.Dir, cmd.Env, cmd.Stderr = s.dir, append(os.Environ(), s.env...), os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go build %s: %w", s.pkg, err)
		}
	}
	hello := filepath.Join(b.work, "hello-src")
	if err := os.MkdirAll(hello, 0o755); err != nil {
		return err
	}
	files := map[string]string{
		"go.mod":  "module hello\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(hello, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	cmd := exec.Command("go", "build", "-o", b.hello, ".")
	cmd.Dir, cmd.Env, cmd.Stderr = hello, append(os.Environ(), "CGO_ENABLED=0"), os.Stderr
	return cmd.Run()
}

// Fixture names, relative to the workspace.
const (
	smallFile    = "small.txt"       // 2 lines
	readFile     = "read2000.txt"    // 2,000 lines, 66 KB
	listDir      = "dir200"          // 200 entries: 20 directories, 180 files
	editDsh      = "edit10m-dsh.txt" // 10 MB, one MARKER line; one copy per server
	editOfficial = "edit10m-node.txt"
	bigFile      = "big200m.txt" // 200 MB of lines
	manyDir      = "dir10200"    // 10,200 files
	hugeFile     = "huge1g.txt"  // 1 GB of lines, rewritten by the last step
)

func (b *bench) fixtures() error {
	if err := os.MkdirAll(b.ws, 0o755); err != nil {
		return err
	}
	steps := []func() error{
		func() error { return os.WriteFile(b.path(smallFile), []byte("hello\nworld\n"), 0o644) },
		func() error { return writeLines(b.path(readFile), 2000, 66_000, "") },
		func() error { return makeDir(b.path(listDir), 20, 180) },
		func() error { return writeLines(b.path(editDsh), 0, 10_000_000, "MARKER-A") },
		func() error { return writeLines(b.path(editOfficial), 0, 10_000_000, "MARKER-A") },
		func() error { return makeDir(b.path(manyDir), 0, 10200) },
	}
	if !b.quick {
		steps = append(steps,
			func() error { return writeLines(b.path(bigFile), 0, 200_000_000, "") },
			func() error { return writeLines(b.path(hugeFile), 0, 1_000_000_000, "") })
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) path(rel string) string { return filepath.Join(b.ws, rel) }

// writeLines writes numbered text lines to path: exactly lines lines when
// lines > 0 (padded to about size bytes in all), else lines of 50 bytes up
// to size bytes. A non-empty marker replaces the middle line.
func writeLines(path string, lines int, size int64, marker string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	width := 49
	if lines > 0 {
		width = int(size/int64(lines)) - 1
	} else {
		lines = int(size / 50)
	}
	pad := strings.Repeat("abcdefghij", width/10+1)
	for i := 1; i <= lines; i++ {
		l := "line " + strconv.Itoa(i) + " "
		if marker != "" && i == lines/2 {
			l = marker + " "
		}
		if len(l) < width {
			l += pad[:width-len(l)]
		}
		w.WriteString(l)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// makeDir makes dir with dirs subdirectories and files empty files.
func makeDir(dir string, dirs, files int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i := range dirs {
		if err := os.Mkdir(filepath.Join(dir, "sub"+strconv.Itoa(i)), 0o755); err != nil {
			return err
		}
	}
	for i := range files {
		if err := os.WriteFile(filepath.Join(dir, "file"+strconv.Itoa(i)+".txt"), nil, 0o644); err != nil {
			return err
		}
	}
	return nil
}
