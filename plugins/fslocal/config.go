package fslocal

import (
	"errors"

	"github.com/dsh-go/dsh/host"
)

// Config is the configuration of one fslocal provider (contract §3.1). In a
// deployment it is the `config` mapping of an entry named `fslocal`; unknown
// keys are rejected by the deployment decoder (config.Decode).
type Config struct {
	// Cwd is the directory relative paths resolve against when a call gives
	// no cwd of its own. Default: the process working directory at load. A
	// relative Cwd is taken against that directory. It is not a boundary:
	// absolute paths and `..` leave it. Under confinement it must lie inside
	// Root.
	Cwd string `json:"cwd"`
	// Root is the workspace jail (contract §3.10, [D8]): when set, every
	// operation is confined to this directory tree, checked on real
	// locations (after symlinks) and enforced race-free. It must be an
	// existing directory; it is made absolute and canonical at load.
	// Default "": confinement off. "/" confines to the whole filesystem,
	// which is the same as off.
	Root string `json:"root"`
	// HardLinks says what a rewrite does with a regular file that has more
	// than one hard link (contract §3.7 step 10, [D9]): "preserve" rewrites
	// it in place so every link sees
	// the new content; "break" replaces it with a new file, so the rewritten
	// name no longer shares the others' content. Unset ("") means "break"
	// under confinement (Root set, other than "/") and "preserve" otherwise
	// ([D9+]): a hard link inside the workspace to a file outside it cannot
	// be used to change that file.
	HardLinks string `json:"hardLinks"`
	// DigestMaxBytes bounds freshness by content ([D24]): a file of at most
	// this many bytes that a call had whole anyway (read whole, or written)
	// is observed with a digest of its bytes, and a guard whose version no
	// longer matches still passes while the file holds exactly those bytes.
	// Above it freshness is by version (stat) alone. Default 0: 10485760
	// (10 MiB, fsapi.DefaultDigestMaxBytes); it must not be negative.
	DigestMaxBytes int64 `json:"digestMaxBytes"`
	// EditMaxBytes is the largest file, in bytes, that an edit (EditText,
	// InsertText: `edit`, `str_replace`, `insert`) reads: a larger one is
	// refused by its size, before anything is read, with
	// FS_FILE_TOO_LARGE. 0 means [DefaultEditMaxBytes]; a negative value
	// fails with [ErrEditMaxBytes].
	EditMaxBytes int64 `json:"editMaxBytes"`
}

// DefaultEditMaxBytes is the default [Config.EditMaxBytes]: 1 GiB.
const DefaultEditMaxBytes int64 = 1 << 30

// DefaultConfig returns the defaults a deployment entry starts from:
// EditMaxBytes is DefaultEditMaxBytes; everything else is unset.
func DefaultConfig() Config { return Config{EditMaxBytes: DefaultEditMaxBytes} }

// Hard-link modes of [Config.HardLinks].
const (
	// HardLinksPreserve rewrites multi-link files in place.
	HardLinksPreserve = "preserve"
	// HardLinksBreak replaces multi-link files like any other file.
	HardLinksBreak = "break"
)

// Load-time errors of [New] and [Config.Validate] (contract §3.1). They are
// not model-visible.
var (
	// ErrHardLinks is `fslocal: hardLinks must be "preserve" or "break"`.
	ErrHardLinks = errors.New(`fslocal: hardLinks must be "preserve" or "break"`)
	// ErrRootNotDirectory is `fslocal: root must be an existing directory`.
	ErrRootNotDirectory = errors.New("fslocal: root must be an existing directory")
	// ErrCwdOutsideRoot is `fslocal: cwd must be inside root`.
	ErrCwdOutsideRoot = errors.New("fslocal: cwd must be inside root")
	// ErrDigestMaxBytes is `fslocal: digestMaxBytes must not be negative`.
	ErrDigestMaxBytes = errors.New("fslocal: digestMaxBytes must not be negative")
	// ErrEditMaxBytes is `fslocal: editMaxBytes must be a positive integer`.
	ErrEditMaxBytes = errors.New("fslocal: editMaxBytes must be a positive integer")
)

// Validate makes the checks that need no I/O: HardLinks must be "preserve",
// "break" or empty, and neither DigestMaxBytes nor EditMaxBytes may be
// negative; else a *host.ConfigError whose issue names the key path
// ("hardLinks", "digestMaxBytes", "editMaxBytes": so a deployment error
// names the file, variable or flag that set it) and that wraps
// [ErrHardLinks], [ErrDigestMaxBytes] or [ErrEditMaxBytes]. The host calls
// it before apply; the checks that touch the disk (Root, Cwd) happen in
// [New].
func (c Config) Validate() error {
	switch c.HardLinks {
	case "", HardLinksPreserve, HardLinksBreak:
	default:
		return keyError("hardLinks", ErrHardLinks)
	}
	if c.DigestMaxBytes < 0 {
		return keyError("digestMaxBytes", ErrDigestMaxBytes)
	}
	if c.EditMaxBytes < 0 {
		return keyError("editMaxBytes", ErrEditMaxBytes)
	}
	return nil
}

// keyError is the ConfigError of a bad value at key; errors.Is finds
// sentinel in it.
func keyError(key string, sentinel error) error {
	return &configError{host.ConfigError{Plugin: "fslocal", Issues: []host.ConfigIssue{{Path: key, Problem: sentinel.Error()}}}, sentinel}
}

// configError is a ConfigError that also matches its sentinel.
type configError struct {
	host.ConfigError
	sentinel error
}

func (e *configError) Unwrap() []error { return []error{&e.ConfigError, e.sentinel} }
