package toolfiles

import "github.com/dsh-go/dsh/host"

// Config is the toolfiles plugin's config (docs/configuration.md
// "toolfiles"): one switch per tool, all on by default, and the bound of
// file_info's line count.
type Config struct {
	// Move registers `move`. Default true.
	Move bool `json:"move"`
	// Delete registers `delete`. Default true.
	Delete bool `json:"delete"`
	// Mkdir registers `mkdir`. Default true.
	Mkdir bool `json:"mkdir"`
	// FileInfo registers `file_info`. Default true.
	FileInfo bool `json:"fileInfo"`
	// LineCountMaxSize is the largest file, in bytes, whose lines
	// file_info counts (toolfs's readStreamMinSize by default, 10485760:
	// what read takes whole). Must be at least 1.
	LineCountMaxSize int64 `json:"lineCountMaxSize"`
}

// DefaultConfig returns every tool on and a 10 MiB line-count bound.
func DefaultConfig() Config {
	return Config{Move: true, Delete: true, Mkdir: true, FileInfo: true, LineCountMaxSize: 10485760}
}

// Validate checks the line-count bound: `toolfiles: lineCountMaxSize must
// be a positive integer`.
func (c Config) Validate() error {
	if c.LineCountMaxSize < 1 {
		return &host.ConfigError{Plugin: "toolfiles", Issues: []host.ConfigIssue{{Path: "lineCountMaxSize", Problem: "toolfiles: lineCountMaxSize must be a positive integer"}}}
	}
	return nil
}
