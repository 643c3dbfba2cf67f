package toolfs

import (
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/internal/linediff"
)

// Config is the toolfs plugin's config (contract §6.1). Every value but
// MultiEdit and ReadMany (booleans) must be an integer of at least 1;
// otherwise loading fails with
// `toolfs: <key> must be a positive integer`, the first failing key in
// declaration order.
type Config struct {
	// ListMaxEntries is the most entries one `list` page shows. Default 200.
	ListMaxEntries int `json:"listMaxEntries"`
	// ReadLimit is both the default and the maximum `limit` of `read`, in
	// lines. Default 2000.
	ReadLimit int `json:"readLimit"`
	// ReadMaxLineLength is how many UTF-16 code units of each line `read`
	// keeps before truncating it (contract §6.7.4). Default 2000.
	ReadMaxLineLength int `json:"readMaxLineLength"`
	// ReadMaxBytes caps the UTF-8 bytes of the line texts one `read` returns
	// (contract §6.7.3). Default 51200.
	ReadMaxBytes int `json:"readMaxBytes"`
	// ReadStreamMinSize is the file size, in bytes, from which `read` streams
	// the file instead of reading it whole; results are identical either
	// way. Default 10485760 (10 MiB).
	ReadStreamMinSize int64 `json:"readStreamMinSize"`
	// DiffMaxBytes bounds the `_meta.diffs` of a write or edit: the total
	// bytes of the hunks' old and new texts. Over it the diffs are left out
	// and the meta is `{diffsOmitted: true}` (contract §5.4a [D20]). Default
	// 65536.
	DiffMaxBytes int `json:"diffMaxBytes"`
	// DiffBasisMaxBytes is the size, in bytes, of a file's text before or
	// after a write or edit past which no diff is computed; the provider then
	// does not hold a larger prior file whole for a write (contract §5.4a
	// [D20], fsapi.WithDiffBasis). Default 10485760 (10 MiB).
	DiffBasisMaxBytes int64 `json:"diffBasisMaxBytes"`
	// MultiEdit registers the multi_edit tool beside the four (several
	// edits of one file in one call, or their diff with dry_run;
	// docs/editing.md) when the fs provider can apply them as one mutation.
	// Default false.
	MultiEdit bool `json:"multiEdit"`
	// ReadImageMaxBytes is the largest PNG, JPEG, GIF or WebP file, in
	// bytes, that `read` returns as an image; a larger one is refused as a
	// binary file. Default 5242880 (5 MiB).
	ReadImageMaxBytes int64 `json:"readImageMaxBytes"`
	// ReadMany registers the opt-in tool `read_many`. Default false.
	ReadMany bool `json:"readMany"`
	// ReadManyMaxFiles is the most paths one `read_many` takes. Default 20.
	ReadManyMaxFiles int `json:"readManyMaxFiles"`
}

// DefaultConfig returns the defaults of contract §6.1 and §5.4a.
func DefaultConfig() Config {
	return Config{ListMaxEntries: 200, ReadLimit: 2000, ReadMaxLineLength: 2000, ReadMaxBytes: 51200, ReadStreamMinSize: 10485760,
		DiffMaxBytes: 65536, DiffBasisMaxBytes: 10485760, ReadImageMaxBytes: 5242880, ReadManyMaxFiles: 20}
}

// Validate checks every value is at least 1, in the order of contract §6.1
// then the two diff bounds of §5.4a and the image bound, and reports the first failure as
// `toolfs: <key> must be a positive integer`.
func (c Config) Validate() error {
	checks := []struct {
		key   string
		value int64
	}{
		{"listMaxEntries", int64(c.ListMaxEntries)},
		{"readLimit", int64(c.ReadLimit)},
		{"readMaxLineLength", int64(c.ReadMaxLineLength)},
		{"readMaxBytes", int64(c.ReadMaxBytes)},
		{"readStreamMinSize", c.ReadStreamMinSize},
		{"diffMaxBytes", int64(c.DiffMaxBytes)},
		{"diffBasisMaxBytes", c.DiffBasisMaxBytes},
		{"readImageMaxBytes", c.ReadImageMaxBytes},
		{"readManyMaxFiles", int64(c.ReadManyMaxFiles)},
	}
	for _, ch := range checks {
		if ch.value < 1 {
			return &host.ConfigError{Plugin: "toolfs", Issues: []host.ConfigIssue{{Path: ch.key, Problem: "toolfs: " + ch.key + " must be a positive integer"}}}
		}
	}
	return nil
}

// diffBounds are the activation's diff bounds (contract §5.4a).
func (ts *toolset) diffBounds() linediff.Bounds {
	return linediff.Bounds{MaxBytes: ts.cfg.DiffMaxBytes, BasisMaxBytes: ts.cfg.DiffBasisMaxBytes}
}
