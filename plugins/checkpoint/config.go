package checkpoint

import (
	"encoding/json"
	"time"

	"github.com/dsh-go/dsh/host"
)

// Config is the checkpoint plugin's config (docs/configuration.md
// "checkpoint").
type Config struct {
	// MaxFileBytes is the largest file, in bytes, whose content a step
	// keeps; a larger one is recorded as not restorable. Default 33554432
	// (32 MiB).
	MaxFileBytes int64 `json:"maxFileBytes"`
	// MaxStoreBytes bounds the content the store keeps, in bytes; past it
	// the content of the oldest steps is evicted first. Default 1073741824
	// (1 GiB).
	MaxStoreBytes int64 `json:"maxStoreBytes"`
	// MaxAge is how long a step is kept; older steps are dropped with
	// their content. Default 720h (30 days).
	MaxAge time.Duration `json:"maxAge"`
	// Workspace is the deployment's workspace (config.WorkspaceUser): the
	// store is the one of its real path.
	Workspace string `json:"-"`
}

// DefaultConfig returns 32 MiB per file, 1 GiB in all and 30 days.
func DefaultConfig() Config {
	return Config{MaxFileBytes: 32 << 20, MaxStoreBytes: 1 << 30, MaxAge: 30 * 24 * time.Hour}
}

// UseWorkspace sets Workspace when unset (config.WorkspaceUser).
func (c *Config) UseWorkspace(dir string) {
	if c.Workspace == "" {
		c.Workspace = dir
	}
}

// Validate checks the bounds: each must be positive, and a file's bound at
// most the store's.
func (c Config) Validate() error {
	var issues []host.ConfigIssue
	if c.MaxFileBytes < 1 {
		issues = append(issues, host.ConfigIssue{Path: "maxFileBytes", Problem: "checkpoint: maxFileBytes must be a positive integer"})
	}
	if c.MaxStoreBytes < 1 {
		issues = append(issues, host.ConfigIssue{Path: "maxStoreBytes", Problem: "checkpoint: maxStoreBytes must be a positive integer"})
	} else if c.MaxFileBytes > c.MaxStoreBytes {
		issues = append(issues, host.ConfigIssue{Path: "maxFileBytes", Problem: "checkpoint: maxFileBytes must be at most maxStoreBytes"})
	}
	if c.MaxAge <= 0 {
		issues = append(issues, host.ConfigIssue{Path: "maxAge", Problem: "checkpoint: maxAge must be a positive duration"})
	}
	if len(issues) > 0 {
		return &host.ConfigError{Plugin: "checkpoint", Issues: issues}
	}
	return nil
}

// MarshalJSON writes the file form of the keys (`dshhost config`): maxAge
// as a string such as "720h0m0s", which loads back.
func (c Config) MarshalJSON() ([]byte, error) {
	type keys Config // without this method
	return json.Marshal(struct {
		keys
		MaxAge string `json:"maxAge"`
	}{keys: keys(c), MaxAge: c.MaxAge.String()})
}
