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

	"github.com/dsh-go/dsh/plugins/frontend"
	"github.com/dsh-go/dsh/plugins/tools"
)

// This file is the one adapter between MCP roots and the workspace. The
// roots feature is deprecated in go-sdk v1.8.0 (the protocol moves to tool
// parameters and configuration) but clients still use it; dropping it is
// deleting this file and the two Options hooks it fills.

// rootsOptions fills Options' workspace hooks from w.
func rootsOptions(w frontend.Workspace, log *slog.Logger, opts *Options) {
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
// UseRoots (or the client cannot offer any). A legacy session is asked
// within the call (roots/list), for at most the call timeout; failed is the
// call's failure when it did not answer, and the next call asks again.
func (s *Server) roots(ctx context.Context, req *mcp.CallToolRequest) (ask *mcp.CallToolResult, failed *tools.Result) {
	if s.opts.NeedRoots == nil || s.opts.UseRoots == nil || !s.opts.NeedRoots() {
		return nil, nil
	}
	if req.Params != nil {
		if resp, ok := req.Params.InputResponses[rootsRequest]; ok {
			lr, _ := resp.(*mcp.ListRootsResult)
			if lr != nil {
				s.opts.UseRoots(ctx, lr.Roots)
			} else {
				s.opts.UseRoots(ctx, nil)
			}
			return nil, nil
		}
	}
	if caps := req.ClientCapabilities(); caps == nil || caps.RootsV2 == nil {
		s.opts.UseRoots(ctx, nil)
		return nil, nil
	}
	if ss := legacySession(req); ss != nil {
		timeout := s.limits.limit.Load().timeout
		wait, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		lr, err := ss.ListRoots(wait, &mcp.ListRootsParams{})
		if err != nil {
			if wait.Err() != nil {
				err = fmt.Errorf("no answer within %d ms", timeout.Milliseconds())
			}
			f := toolFailure("the client's roots/list failed: " + err.Error())
			return nil, &f
		}
		s.opts.UseRoots(ctx, lr.Roots)
		return nil, nil
	}
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{rootsRequest: &mcp.ListRootsParams{}}}, nil
}

// errNoRoots is the reason when the client offered no root at all.
var errNoRoots = errors.New("the client offered no roots")

// firstUsableRoot returns the first of the client's roots that can be the
// workspace: a file: URI naming an existing directory that is neither / nor
// the home directory (the rule for a guessed working directory: MCP clients
// often run there). When none can, the error names each refused root and
// why, in the client's order, e.g. `the client's roots were refused:
// "file:///" (the file system root is never used as the workspace)`.
func firstUsableRoot(roots []*mcp.Root, home func() (string, error)) (string, error) {
	if len(roots) == 0 {
		return "", errNoRoots
	}
	var refused []string
	for _, r := range roots {
		dir, why := rootDir(r.URI, home)
		if why == "" {
			return dir, nil
		}
		refused = append(refused, fmt.Sprintf("%q (%s)", r.URI, why))
	}
	return "", errors.New("the client's roots were refused: " + strings.Join(refused, ", "))
}

// rootDir returns the directory of a root URI, or why it cannot be the
// workspace.
func rootDir(uri string, home func() (string, error)) (string, string) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return "", "not a file: URI"
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", "a file on another host"
	}
	dir := filepath.Clean(u.Path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", "not an existing directory"
	}
	if dir == "/" {
		return "", "the file system root is never used as the workspace"
	}
	if h, err := home(); err == nil && filepath.Clean(h) == dir {
		return "", "the home directory is never used as the workspace"
	}
	return dir, ""
}
