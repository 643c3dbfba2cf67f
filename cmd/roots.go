package cmd

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The workspace from the client's MCP roots. Roots are deprecated in go-sdk
// v1.8.0 (the protocol moves to tool parameters and configuration) but
// clients still send them; this file and mcpserver's roots exchange are all
// of it, so dropping the feature is deleting them.

// errNoRoots is the reason when the client offered no root at all.
var errNoRoots = errors.New("the client offered no roots")

// usableRoot returns the first of the client's roots that can be the
// workspace: a file: URI naming an existing directory that is neither / nor
// the user's home directory (the rule for a guessed working directory). When
// none can, the error names each refused root and why, e.g.
// `the client's roots were refused: "file:///" (the file system root is never
// used as the workspace)`.
func usableRoot(roots []*mcp.Root) (string, error) {
	if len(roots) == 0 {
		return "", errNoRoots
	}
	var refused []string
	for _, r := range roots {
		dir, why := rootDir(r.URI)
		if why == "" {
			return dir, nil
		}
		refused = append(refused, fmt.Sprintf("%q (%s)", r.URI, why))
	}
	return "", errors.New("the client's roots were refused: " + strings.Join(refused, ", "))
}

// rootDir returns the directory of a root URI, or why it cannot be the
// workspace.
func rootDir(uri string) (string, string) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return "", "not a file: URI"
	}
	dir := filepath.Clean(u.Path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", "not an existing directory"
	}
	if dir == "/" {
		return "", "the file system root is never used as the workspace"
	}
	if refusedGuess(dir) {
		return "", "the home directory is never used as the workspace"
	}
	return dir, ""
}
