package toolfs

import (
	"context"
	"errors"
	"math"

	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// resolve resolves path for the call's conversation (contract §6.4,
// fsapi.CwdOptions): list's directory path.
func (ts *toolset) resolve(ctx context.Context, path string, exec *tools.Exec) (fsapi.Target, error) {
	return ts.fs.Resolve(ctx, path, fsapi.CwdOptions(path, exec.Cwd()))
}

// resolveFile resolves the file_path of read, write or edit for op
// (fsapi.ResolveFile: a final "/" is refused, contract §6.4a [D23]).
func (ts *toolset) resolveFile(ctx context.Context, path string, exec *tools.Exec, op string) (fsapi.Target, error) {
	return fsapi.ResolveFile(ctx, ts.fs, path, exec.Cwd(), op)
}

// positiveInteger reports whether v is an integer ≥ 1 (contract §6.6.1,
// §6.7.1).
func positiveInteger(v float64) bool {
	return v >= 1 && v == math.Trunc(v) && !math.IsInf(v, 0)
}

// escalationKeys are the argument keys of write and edit that their
// schemas do not declare but checkEscalation checks (contract §5.3, §6.8).
var escalationKeys = []string{"sandbox_permissions", "justification", "prefix_rule"}

// checkEscalation runs the escalation argument checks every write and
// edit makes after its own validation and before resolving (contract
// §6.8, with prefix_rule's rule of [D22]); "present" means the key exists,
// whatever its value.
func checkEscalation(args tools.Args) error {
	perms, just := args.Has("sandbox_permissions"), args.Has("justification")
	switch {
	case perms && !just:
		return errors.New("invalid escalation: sandbox_permissions requires a justification")
	case just && !perms:
		return errors.New("invalid escalation: justification is only valid together with sandbox_permissions")
	case !perms && args.Has("prefix_rule"):
		return errors.New("invalid escalation: prefix_rule is only valid together with sandbox_permissions")
	case perms && just:
		if s, ok := args.String("justification"); !ok || fsapi.IsBlank(s) {
			return errors.New("invalid justification: expected a non-empty sentence")
		}
		return errors.New("sandbox_permissions is not available in this composition (no sandboxing filesystem to escalate)")
	}
	return nil
}
