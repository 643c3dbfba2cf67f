package auditlog

import (
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// Config is the auditlog plugin's config. In a deployment it is the
// `config` mapping of an entry named `auditlog`.
type Config struct {
	// Path is the file records are appended to, created with mode 0644 if
	// missing. A relative path is taken against the process's working
	// directory. Required.
	Path string `json:"path"`
	// Queue is how many records may wait for the writer, in records. When
	// the queue is full a new record is dropped (and counted) rather than
	// delaying the tool call. Default 1024; at least 1.
	Queue int `json:"queue"`
}

// DefaultConfig returns the defaults: no path (it is required) and a queue
// of 1024 records.
func DefaultConfig() Config { return Config{Queue: 1024} }

// Validate checks the config before apply: `path: auditlog: path is
// required` when Path is blank, `queue: auditlog: queue must be at least 1`
// when Queue is below 1.
func (c Config) Validate() error {
	var issues []host.ConfigIssue
	if fsapi.IsBlank(c.Path) {
		issues = append(issues, host.ConfigIssue{Path: "path", Problem: "auditlog: path is required"})
	}
	if c.Queue < 1 {
		issues = append(issues, host.ConfigIssue{Path: "queue", Problem: "auditlog: queue must be at least 1"})
	}
	if len(issues) > 0 {
		return &host.ConfigError{Plugin: "auditlog", Issues: issues}
	}
	return nil
}
