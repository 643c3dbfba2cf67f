package fssandbox

import "github.com/dsh-go/dsh/plugins/fsapi"

// The next steps of a refusal (sandbox.md §3.4), appended to the reason.
const (
	stepOperatorReadOnly = ` — the sandbox mode is set by the operator; tell the user instead of retrying`
	stepOperatorRoots    = ` — write under a writable root instead; the sandbox mode is set by the operator`
)

// stepSwitch is the next step of a conversation that may switch: ask for wider.
func stepSwitch(wider Mode) string {
	return ` — to proceed, call sandbox_mode with mode "` + string(wider) + `" and a justification (the user must approve), then retry`
}

// refusal is the FS_SANDBOX_DENIED error of sandbox.md §3.4 for op ("write",
// "edit" or "remove": one word per intent chain) on the display path p under mode m (read-only or
// workspace-write). under says whether the target's real location is under
// the roots; canSwitch whether the caller's conversation may call sandbox_mode.
// The message is final: toolfs adds no suffix to this code.
func (b *sandbox) refusal(op, p string, m Mode, under, canSwitch bool) *fsapi.Error {
	msg := `cannot ` + op + ` "` + fsapi.Display(p) + `": `
	if m == ReadOnly {
		msg += "the sandbox is in read-only mode"
	} else {
		msg += "the sandbox allows writes only under " + b.roots.shown
	}
	switch {
	case canSwitch && m == ReadOnly && under:
		msg += stepSwitch(WorkspaceWrite)
	case canSwitch:
		msg += stepSwitch(FullAccess)
	case m == ReadOnly:
		msg += stepOperatorReadOnly
	default:
		msg += stepOperatorRoots
	}
	return &fsapi.Error{Code: fsapi.CodeSandboxDenied, Op: op, Path: p, Message: msg}
}
