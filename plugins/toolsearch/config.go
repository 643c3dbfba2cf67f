package toolsearch

import (
	"math"

	"github.com/dsh-go/dsh/host"
)

// Config is the toolsearch plugin's config (search.md §3). Every value must
// be an integer of at least 1 and timeoutMs at most 2147483647; otherwise
// loading fails with `toolsearch: <key> must be a positive integer` (or
// `toolsearch: timeoutMs must be no greater than 2147483647`), the first
// failing key in declaration order.
type Config struct {
	// GlobMaxResults is the most paths one glob page shows. Default 100.
	GlobMaxResults int `json:"globMaxResults" invalid:"toolsearch: globMaxResults must be a positive integer"`
	// GrepMaxMatches is the most matches one grep page shows. Default 250.
	GrepMaxMatches int `json:"grepMaxMatches" invalid:"toolsearch: grepMaxMatches must be a positive integer"`
	// GrepMaxBytes bounds the bytes of one grep page's groups (the path
	// lines, `Line N:` lines and the empty lines between groups; not the
	// header or footer) [S10]: a page ends before the match that would
	// pass it, and holds at least one match. Default 51200.
	GrepMaxBytes int `json:"grepMaxBytes" invalid:"toolsearch: grepMaxBytes must be a positive integer"`
	// GrepMaxLineBytes is how many UTF-8 bytes of a matched line its
	// preview keeps (§6.6). Default 2000.
	GrepMaxLineBytes int `json:"grepMaxLineBytes" invalid:"toolsearch: grepMaxLineBytes must be a positive integer"`
	// MaxKept is how many paths (glob) or matches (grep) one call keeps and
	// can page through (§5.4, §6.5). Default 10000.
	MaxKept int `json:"maxKept" invalid:"toolsearch: maxKept must be a positive integer"`
	// FileMaxBytes is the size in bytes above which grep skips a file, and
	// the cap on one ignore file. Default 67108864 (64 MiB).
	FileMaxBytes int64 `json:"fileMaxBytes" invalid:"toolsearch: fileMaxBytes must be a positive integer"`
	// TimeoutMs is the time budget of one call, in milliseconds (§4.8).
	// Default 30000.
	TimeoutMs int64 `json:"timeoutMs" invalid:"toolsearch: timeoutMs must be a positive integer"`
}

// DefaultConfig returns the defaults of search.md §3.
func DefaultConfig() Config {
	return Config{GlobMaxResults: 100, GrepMaxMatches: 250, GrepMaxBytes: 51200, GrepMaxLineBytes: 2000, MaxKept: 10000, FileMaxBytes: 67108864, TimeoutMs: 30000}
}

// Validate checks the values in the order of search.md §3 and reports the
// first failure.
func (c Config) Validate() error {
	checks := []struct {
		key   string
		value int64
	}{
		{"globMaxResults", int64(c.GlobMaxResults)},
		{"grepMaxMatches", int64(c.GrepMaxMatches)},
		{"grepMaxBytes", int64(c.GrepMaxBytes)},
		{"grepMaxLineBytes", int64(c.GrepMaxLineBytes)},
		{"maxKept", int64(c.MaxKept)},
		{"fileMaxBytes", c.FileMaxBytes},
		{"timeoutMs", c.TimeoutMs},
	}
	for _, ch := range checks {
		if ch.value < 1 {
			return configError(ch.key, "toolsearch: "+ch.key+" must be a positive integer")
		}
	}
	if c.TimeoutMs > math.MaxInt32 {
		return configError("timeoutMs", "toolsearch: timeoutMs must be no greater than 2147483647")
	}
	return nil
}

func configError(key, problem string) error {
	return &host.ConfigError{Plugin: "toolsearch", Issues: []host.ConfigIssue{{Path: key, Problem: problem}}}
}
