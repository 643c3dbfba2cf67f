package fssandbox

// Mode is a sandbox mode (sandbox.md §2.1). The three constants are the
// only accepted spellings, in config and in sandbox_mode.
type Mode string

// The modes, from narrowest to widest (sandbox.md §2.1).
const (
	// ReadOnly refuses every write and edit.
	ReadOnly Mode = "read-only"
	// WorkspaceWrite allows a write or edit only when the target's real
	// location is under a writable root.
	WorkspaceWrite Mode = "workspace-write"
	// FullAccess puts no sandbox limit; the provider's confinement still
	// applies.
	FullAccess Mode = "full-access"
)

// rank orders the modes: 0 read-only, 1 workspace-write, 2 full-access, -1
// for anything else.
func (m Mode) rank() int {
	switch m {
	case ReadOnly:
		return 0
	case WorkspaceWrite:
		return 1
	case FullAccess:
		return 2
	}
	return -1
}

// valid reports whether m is one of the three modes.
func (m Mode) valid() bool { return m.rank() >= 0 }
