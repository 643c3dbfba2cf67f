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
	MaxOutputChars int `json:"maxOutputChars"`
	// Description is the tool description sent to the model: a string that
	// is not blank (contract §3.2); default the seven lines of editor.md
	// §4.1.
	Description string `json:"description"`
}

// DefaultConfig returns the defaults of editor.md §3.
func DefaultConfig() Config { return Config{MaxOutputChars: 16000, Description: defaultDescription} }

// Validate checks the keys in the order of editor.md §3 and reports the
// first failure: `tooleditor: maxOutputChars must be a positive integer`,
// then `tooleditor: description must be a non-empty string`. A value of the
// wrong type reaches it as the zero value, so the same messages cover 2.5,
// "x" and a non-string description (config.Decode).
func (c Config) Validate() error {
	switch {
	case c.MaxOutputChars < 1:
		return configError("maxOutputChars", "tooleditor: maxOutputChars must be a positive integer")
	case fsapi.IsBlank(c.Description):
		return configError("description", "tooleditor: description must be a non-empty string")
	}
	return nil
}

func configError(key, problem string) error {
	return &host.ConfigError{Plugin: "tooleditor", Issues: []host.ConfigIssue{{Path: key, Problem: problem}}}
}
