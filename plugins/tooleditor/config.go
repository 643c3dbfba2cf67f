package tooleditor

import (
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// Config is the tooleditor plugin's config (editor.md §3).
type Config struct {
	// MaxOutputChars is how many UTF-16 units of a view's rows (a file) or
	// listing (a directory) are kept before the clip notice (editor.md
	// §8.5). An integer ≥ 1; default 16000.
	MaxOutputChars int `json:"maxOutputChars" invalid:"tooleditor: maxOutputChars must be a positive integer"`
	// Description replaces the tool description sent to the model; nil
	// keeps the default of editor.md §4.1. When set it must not be blank
	// (contract §3.2).
	Description *string `json:"description" invalid:"tooleditor: description must be a non-empty string"`
}

// DefaultConfig returns the defaults of editor.md §3.
func DefaultConfig() Config { return Config{MaxOutputChars: 16000} }

// Validate checks the keys in the order of editor.md §3 and reports the
// first failure: `tooleditor: maxOutputChars must be a positive integer`,
// then `tooleditor: description must be a non-empty string`.
func (c Config) Validate() error {
	switch {
	case c.MaxOutputChars < 1:
		return configError("maxOutputChars", "tooleditor: maxOutputChars must be a positive integer")
	case c.Description != nil && fsapi.IsBlank(*c.Description):
		return configError("description", "tooleditor: description must be a non-empty string")
	}
	return nil
}

func configError(key, problem string) error {
	return &host.ConfigError{Plugin: "tooleditor", Issues: []host.ConfigIssue{{Path: key, Problem: problem}}}
}

// description returns the configured description or the default.
func (c Config) description() string {
	if c.Description != nil {
		return *c.Description
	}
	return defaultDescription
}
