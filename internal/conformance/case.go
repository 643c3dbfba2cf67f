package conformance

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Placeholder is the workspace placeholder in texts, arguments and link
// targets.
const Placeholder = "{{W}}"

// Case is one conformance case.
type Case struct {
	Name       string         `json:"name"`
	Tags       []string       `json:"tags"`
	Policy     bool           `json:"policy"`
	ToolFS     map[string]any `json:"toolfs"`
	ToolSearch map[string]any `json:"toolsearch"` // search.md §8; nil without the key
	// ToolFiles holds toolfiles config overrides (docs/files.md); nil: none.
	ToolFiles map[string]any `json:"toolfiles"`
	// ProtectedConfig, when set, is a path below the workspace where the
	// case's deployment file (DeploymentFile) is written and served from,
	// so it is a protected deployment file (FS_PROTECTED) of the run.
	ProtectedConfig string `json:"protected_config"`
	// FSLocal holds provider config overrides put on the fslocal entry
	// (for example {"hardLinks": "preserve"}); nil: none.
	FSLocal map[string]any `json:"fslocal"`
	// ToolEditor, when present ({} for defaults), mounts tooleditor with
	// these config overrides after toolfs (editor.md §16).
	ToolEditor map[string]any `json:"tooleditor"`
	// FSSandbox, when present ({} for no overrides), mounts fssandbox with
	// these config overrides right after fslocal (sandbox.md §5).
	FSSandbox  map[string]any       `json:"fssandbox"`
	Setup      []Op                 `json:"setup"`
	Calls      []Call               `json:"calls"`
	Expect     []Expect             `json:"expect"`
	FilesAfter map[string]FileCheck `json:"files_after"`
	Deviation  string               `json:"deviation"`
	Note       string               `json:"note"`
	// Supersedes, in a project case, says why it replaces the shared case
	// of the same name (withProject); empty in the shared copies.
	Supersedes string `json:"supersedes"`
}

// Op is one set-up step: op is file, dir, symlink, hardlink or fifo.
type Op struct {
	Op         string  `json:"op"`
	Path       string  `json:"path"`
	PathBase64 string  `json:"path_base64"`
	Text       *string `json:"text"`
	Base64     string  `json:"base64"`
	Mode       string  `json:"mode"`
	Target     string  `json:"target"`
	// MTime, on a file or dir op, is the access and modification time to
	// set right after creating the path, in seconds since the epoch
	// (search.md §8).
	MTime *float64 `json:"mtime"`
}

// Call is one tool call: the tool name and its raw JSON arguments.
type Call struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

// Expect is one call's expected result: isError, the text content and the
// error code (present exactly when the error carries one).
type Expect struct {
	IsError bool   `json:"isError"`
	Text    string `json:"text"`
	Code    string `json:"code"`
	// TextPrefix and TextContains replace Text where the exact text depends
	// on the machine (a temporary directory's parent): the text must start
	// with TextPrefix and contain TextContains.
	TextPrefix   string `json:"text_prefix"`
	TextContains string `json:"text_contains"`
}

// CheckText compares a call's text with the expectation, the placeholder
// replaced by w: exactly, or by prefix and substring when the case gives
// those instead. It returns nil on a match.
func (e Expect) CheckText(w, got string) error {
	if e.TextPrefix == "" && e.TextContains == "" {
		if want := Subst(e.Text, w); got != want {
			return fmt.Errorf("text %q, want %q", got, want)
		}
		return nil
	}
	if p := Subst(e.TextPrefix, w); !strings.HasPrefix(got, p) {
		return fmt.Errorf("text %q does not start with %q", got, p)
	}
	if c := Subst(e.TextContains, w); !strings.Contains(got, c) {
		return fmt.Errorf("text %q does not contain %q", got, c)
	}
	return nil
}

// FileCheck is one files_after check; several keys may combine.
type FileCheck struct {
	Text    *string `json:"text"`
	Base64  *string `json:"base64"`
	Absent  bool    `json:"absent"`
	Mode    string  `json:"mode"`
	Symlink *string `json:"symlink"`
	Type    string  `json:"type"`
}

// Load reads the cases from a JSON file.
func Load(path string) ([]Case, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cases []Case
	if err := json.Unmarshal(b, &cases); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cases, nil
}

// Subst replaces the workspace placeholder in s by w.
func Subst(s, w string) string { return strings.ReplaceAll(s, Placeholder, w) }

// ArgsFor returns the call's arguments with the placeholder replaced by w in
// every string (escaped as JSON, so any w is safe).
func (c Call) ArgsFor(w string) json.RawMessage {
	if len(c.Args) == 0 {
		return c.Args
	}
	enc, _ := json.Marshal(w)
	inner := string(enc[1 : len(enc)-1])
	return json.RawMessage(strings.ReplaceAll(string(c.Args), Placeholder, inner))
}

// Build prepares the case's workspace in w (an existing, empty, symlink-free
// directory). The process umask should be 022.
func (c Case) Build(w string) error {
	for i, op := range c.Setup {
		if err := op.apply(w); err != nil {
			return fmt.Errorf("setup[%d] %s %s: %w", i, op.Op, op.Path, err)
		}
		if err := op.touch(w); err != nil {
			return fmt.Errorf("setup[%d] mtime %s: %w", i, op.Path, err)
		}
	}
	return nil
}

func (op Op) apply(w string) error {
	name, err := op.name()
	if err != nil {
		return err
	}
	p := filepath.Join(w, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	switch op.Op {
	case "file":
		var data []byte
		switch {
		case op.Text != nil:
			data = []byte(*op.Text)
		case op.Base64 != "":
			var err error
			if data, err = base64.StdEncoding.DecodeString(op.Base64); err != nil {
				return err
			}
		}
		mode := os.FileMode(0o644)
		if op.Mode != "" {
			m, err := strconv.ParseUint(op.Mode, 8, 32)
			if err != nil {
				return err
			}
			mode = os.FileMode(m)
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			return err
		}
		return os.Chmod(p, mode)
	case "dir":
		return os.MkdirAll(p, 0o755)
	case "symlink":
		return os.Symlink(Subst(op.Target, w), p)
	case "hardlink":
		return os.Link(filepath.Join(w, op.Target), p)
	case "fifo":
		return syscall.Mkfifo(p, 0o644)
	}
	return fmt.Errorf("unknown op %q", op.Op)
}

// name returns the op's path below the workspace: path, or path_base64
// decoded.
func (op Op) name() (string, error) {
	if op.PathBase64 == "" {
		return op.Path, nil
	}
	raw, err := base64.StdEncoding.DecodeString(op.PathBase64)
	return string(raw), err
}

// touch sets the op's mtime (and atime) on its path when it has one.
func (op Op) touch(w string) error {
	if op.MTime == nil {
		return nil
	}
	name, err := op.name()
	if err != nil {
		return err
	}
	sec, frac := math.Modf(*op.MTime)
	t := time.Unix(int64(sec), int64(math.Round(frac*1e9)))
	return os.Chtimes(filepath.Join(w, name), t, t)
}

// CheckFiles checks files_after in w and returns one line per mismatch.
func (c Case) CheckFiles(w string) []string {
	var problems []string
	for rel, fc := range c.FilesAfter {
		problems = append(problems, fc.check(w, rel)...)
	}
	return problems
}

func (fc FileCheck) check(w, rel string) []string {
	p := filepath.Join(w, rel)
	var out []string
	fail := func(format string, args ...any) { out = append(out, rel+": "+fmt.Sprintf(format, args...)) }
	li, lerr := os.Lstat(p)
	if fc.Absent {
		if lerr == nil {
			fail("should be absent")
		}
		return out
	}
	if lerr != nil {
		fail("%v", lerr)
		return out
	}
	if fc.Text != nil || fc.Base64 != nil {
		got, err := os.ReadFile(p)
		want := []byte(nil)
		if fc.Text != nil {
			want = []byte(Subst(*fc.Text, w))
		} else {
			want, _ = base64.StdEncoding.DecodeString(*fc.Base64)
		}
		if err != nil {
			fail("%v", err)
		} else if string(got) != string(want) {
			fail("content %q, want %q", got, want)
		}
	}
	if fc.Mode != "" {
		fi, err := os.Stat(p)
		want, _ := strconv.ParseUint(fc.Mode, 8, 32)
		if err != nil {
			fail("%v", err)
		} else if got := uint64(fi.Mode().Perm()) | modeBits(fi.Mode()); got != want {
			fail("mode %04o, want %s", got, fc.Mode)
		}
	}
	if fc.Symlink != nil {
		target, err := os.Readlink(p)
		if err != nil {
			fail("should be a symlink: %v", err)
		} else if target != Subst(*fc.Symlink, w) {
			fail("link to %q, want %q", target, Subst(*fc.Symlink, w))
		}
	}
	if fc.Type != "" {
		got := "other"
		switch m := li.Mode(); {
		case m.IsRegular():
			got = "file"
		case m.IsDir():
			got = "dir"
		case m&os.ModeSymlink != 0:
			got = "symlink"
		case m&os.ModeNamedPipe != 0:
			got = "fifo"
		}
		if got != fc.Type {
			fail("type %s, want %s", got, fc.Type)
		}
	}
	return out
}

// modeBits returns the setuid, setgid and sticky bits as st_mode bits.
func modeBits(m os.FileMode) uint64 {
	var b uint64
	if m&os.ModeSetuid != 0 {
		b |= 0o4000
	}
	if m&os.ModeSetgid != 0 {
		b |= 0o2000
	}
	if m&os.ModeSticky != 0 {
		b |= 0o1000
	}
	return b
}
