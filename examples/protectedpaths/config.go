package protectedpaths

import (
	"fmt"
	"path"
	"strings"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// Config is the protectedpaths plugin's config. In a deployment it is the
// `config` mapping of an entry named `protectedpaths`.
type Config struct {
	// Paths are the protected glob patterns (see the package doc), matched
	// in order; the first match names the rule in the error. Absolute, or
	// relative to the fs provider's cwd. Default: none, which protects
	// nothing.
	Paths []string `json:"paths"`
}

// Validate checks every pattern before apply: it must not be blank, and
// each segment must be valid [path.Match] syntax. A bad pattern is reported
// as `paths[<i>]: protectedpaths: <problem>`, e.g.
// `paths[1]: protectedpaths: bad pattern "secrets/[": syntax error in pattern`.
func (c Config) Validate() error {
	var issues []host.ConfigIssue
	for i, p := range c.Paths {
		if problem := checkPattern(p); problem != "" {
			issues = append(issues, host.ConfigIssue{Path: fmt.Sprintf("paths[%d]", i), Problem: "protectedpaths: " + problem})
		}
	}
	if len(issues) > 0 {
		return &host.ConfigError{Plugin: "protectedpaths", Issues: issues}
	}
	return nil
}

// checkPattern returns what is wrong with pattern p, or "".
func checkPattern(p string) string {
	if fsapi.IsBlank(p) {
		return "a pattern must be a non-empty string"
	}
	for seg := range strings.SplitSeq(p, "/") {
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Sprintf("bad pattern %q: %v", p, err)
		}
	}
	return ""
}
