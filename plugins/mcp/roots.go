package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file is the one adapter between MCP roots and the workspace. The
// roots feature is deprecated in go-sdk v1.8.0 (the protocol moves to tool
// parameters and configuration) but clients still use it; dropping it is
// deleting this file and the two Options hooks it fills.

// Workspace is the front end's workspace as the MCP plugin sees it
// (dshhost serve implements it).
type Workspace interface {
	// Dir is the working directory of new calls' sessions.
	Dir() string
	// Ready is asked before every call; an error fails the call with its
	// text (e.g. no workspace yet).
	Ready() error
	// Pending reports whether the workspace still waits for the client's
	// roots.
	Pending() bool
	// UseRoot makes dir (the client's first usable root) the workspace.
	UseRoot(ctx context.Context, dir string) error
	// NoRoot stops waiting for roots; reason says why none was usable.
	NoRoot(reason string)
}

// rootsOptions fills Options' workspace hooks from w.
func rootsOptions(w Workspace, log *slog.Logger, opts *Options) {
	opts.Cwd = w.Dir
	opts.Ready = w.Ready
	opts.NeedRoots = w.Pending
	opts.UseRoots = func(ctx context.Context, roots []*mcp.Root) {
		dir, err := firstUsableRoot(roots, os.UserHomeDir)
		if err != nil {
			log.Info("no workspace from the client's roots", "reason", err)
			w.NoRoot(err.Error())
			return
		}
		if err := w.UseRoot(ctx, dir); err != nil {
			log.Error("cannot use the client's root as the workspace", "root", dir, "err", err)
			w.NoRoot(err.Error())
		}
	}
}

// rootsRequest is the id of the input request for the client's roots.
const rootsRequest = "dshhost/roots"

// roots runs the roots exchange while NeedRoots holds: it returns the
// input-required result that asks for them, or nil once they were handed to
// UseRoots (or the client cannot offer any).
func (s *Server) roots(ctx context.Context, req *mcp.CallToolRequest) *mcp.CallToolResult {
	if s.opts.NeedRoots == nil || s.opts.UseRoots == nil || !s.opts.NeedRoots() {
		return nil
	}
	if req.Params != nil {
		if resp, ok := req.Params.InputResponses[rootsRequest]; ok {
			lr, _ := resp.(*mcp.ListRootsResult)
			if lr != nil {
				s.opts.UseRoots(ctx, lr.Roots)
			} else {
				s.opts.UseRoots(ctx, nil)
			}
			return nil
		}
	}
	if caps := req.ClientCapabilities(); caps == nil || caps.RootsV2 == nil {
		s.opts.UseRoots(ctx, nil)
		return nil
	}
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{rootsRequest: &mcp.ListRootsParams{}}}
}

// firstUsableRoot returns the first of the client's roots that is a local
// directory other than / and the home directory (the rule the working
// directory follows: MCP clients often run there). The error names every
// refused root and why, in the client's order.
func firstUsableRoot(roots []*mcp.Root, home func() (string, error)) (string, error) {
	if len(roots) == 0 {
		return "", errors.New("the client has no roots")
	}
	var refused []string
	for _, r := range roots {
		dir, err := usableRoot(r.URI, home)
		if err == nil {
			return dir, nil
		}
		refused = append(refused, fmt.Sprintf("root %q was refused: %v", r.URI, err))
	}
	return "", errors.New(strings.Join(refused, "; "))
}

// usableRoot checks one root URI.
func usableRoot(uri string, home func() (string, error)) (string, error) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return "", errors.New("it is not a file: URI")
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", fmt.Errorf("it names another host (%s)", u.Host)
	}
	dir := filepath.Clean(u.Path)
	if dir == "/" {
		return "", errors.New("the filesystem root / is never used as the workspace")
	}
	if h, err := home(); err == nil && filepath.Clean(h) == dir {
		return "", errors.New("the home directory is never used as the workspace")
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("it cannot be opened: %v", errors.Unwrap(err))
	}
	if !fi.IsDir() {
		return "", errors.New("it is not a directory")
	}
	return dir, nil
}
