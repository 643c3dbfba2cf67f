package fssandbox

import (
	"fmt"
	"path/filepath"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// Config is the fssandbox plugin's config (sandbox.md §2.2). In a deployment
// it is the `config` mapping of an entry named `fssandbox`; unknown keys and
// wrong types are the host's strict decoder's errors.
type Config struct {
	// Mode is the mode every conversation starts in, and the mode of every
	// call without a conversation. Default "workspace-write".
	Mode Mode `json:"mode"`
	// Workspace is the first writable root. In dshhost it defaults to the
	// deployment's workspace, and a relative value is taken against it
	// (UseWorkspace); in the library, "" is the process working directory at
	// load and a relative value is taken against that directory.
	Workspace string `json:"workspace"`
	// WritableRoots are more writable roots; a relative entry is taken
	// against the canonical workspace (sandbox.md §2.3). Default none.
	WritableRoots []string `json:"writableRoots"`
	// SessionSwitch lets a conversation change its own mode through the
	// sandbox_mode tool (sandbox.md §4.2). Default false: no tool, and every
	// conversation runs in Mode.
	SessionSwitch bool `json:"sessionSwitch"`
}

// DecoderTyped marks Config for the config package (config.DecoderTyped):
// a wrong type is the strict decoder's error, not Validate's message
// (sandbox.md §2.2), so `mode: [a]` is "expected a string, got ..." and
// `writableRoots: [1]` is "expected a string, got 1".
func (*Config) DecoderTyped() {}

func defaultConfig() Config { return Config{Mode: WorkspaceWrite} }

// Validate makes the checks that need no I/O (sandbox.md §2.2), reporting
// every issue with its key path, in key order:
//
//	mode: fssandbox: mode must be "read-only", "workspace-write" or "full-access"
//	writableRoots[<i>]: fssandbox: writableRoots[<i>] must be a non-empty string
//
// (blank per contract §3.2). The existence checks run at apply.
func (c Config) Validate() error {
	var issues []host.ConfigIssue
	if !c.Mode.valid() {
		issues = append(issues, host.ConfigIssue{Path: "mode", Problem: `fssandbox: mode must be "read-only", "workspace-write" or "full-access"`})
	}
	for i, r := range c.WritableRoots {
		if fsapi.IsBlank(r) {
			key := fmt.Sprintf("writableRoots[%d]", i)
			issues = append(issues, host.ConfigIssue{Path: key, Problem: "fssandbox: " + key + " must be a non-empty string"})
		}
	}
	if len(issues) > 0 {
		return &host.ConfigError{Plugin: "fssandbox", Issues: issues}
	}
	return nil
}

// UseWorkspace gives an entry that leaves workspace unset the deployment's
// workspace dir, and takes a relative workspace against dir (sandbox.md
// §2.2). It implements config.WorkspaceUser, so dshhost fills it, and
// retargets it when serve takes the workspace from the client's first root.
func (c *Config) UseWorkspace(dir string) {
	switch {
	case c.Workspace == "":
		c.Workspace = dir
	case !filepath.IsAbs(c.Workspace):
		c.Workspace = dir + string(filepath.Separator) + c.Workspace
	}
}
