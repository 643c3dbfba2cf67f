package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The client's roots, for a front end that takes its workspace from them
// (Options.NeedRoots, Options.UseRoots). Roots are deprecated in go-sdk
// v1.8.0 but clients still send them; this file is the whole exchange.

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
