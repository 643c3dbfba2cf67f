package toolfs

import (
	"context"
	"errors"
	"math"
	"strings"

	"github.com/dsh-go/dsh/internal/sessionpath"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// resolve resolves path for the call's session (contract §6.4; see
// sessionpath.Options).
func (ts *toolset) resolve(ctx context.Context, path string, exec *tools.Exec) (fsapi.Target, error) {
	return sessionpath.Resolve(ctx, ts.fs, path, exec.Cwd())
}

// positiveInteger reports whether v is an integer ≥ 1 (contract §6.6.1,
// §6.7.1).
func positiveInteger(v float64) bool {
	return v >= 1 && v == math.Trunc(v) && !math.IsInf(v, 0)
}

// Remedy suffixes of contract §6.5 ([D5]).
const (
	staleRemedy       = " — re-read the file, then retry"
	notObservedRemedy = " — read the file, then retry"
)

// withRemedy shapes an error from the intent waterfall or the provider
// mutation (contract §6.5): a coded FS_STALE_VERSION or FS_NOT_OBSERVED is
// re-raised with the same code, the original as its cause and the remedy
// suffix, once; everything else passes through unchanged.
func withRemedy(err error) error {
	var fe *fsapi.Error
	if !errors.As(err, &fe) || err.Error() != fe.Message {
		return err
	}
	suffix := ""
	switch fe.Code {
	case fsapi.CodeStaleVersion:
		suffix = staleRemedy
	case fsapi.CodeNotObserved:
		suffix = notObservedRemedy
	default:
		return err
	}
	if strings.HasSuffix(fe.Message, suffix) {
		return err
	}
	return &fsapi.Error{Code: fe.Code, Op: fe.Op, Path: fe.Path, Message: fe.Message + suffix, Err: fe}
}

// checkEscalation runs the escalation argument checks every write and
// edit makes after its own validation and before resolving (contract
// §6.8); "present" means the key exists, whatever its value.
func checkEscalation(args tools.Args) error {
	perms, just := args.Has("sandbox_permissions"), args.Has("justification")
	switch {
	case perms && !just:
		return errors.New("invalid escalation: sandbox_permissions requires a justification")
	case just && !perms:
		return errors.New("invalid escalation: justification is only valid together with sandbox_permissions")
	case perms && just:
		if s, ok := args.String("justification"); !ok || fsapi.IsBlank(s) {
			return errors.New("invalid justification: expected a non-empty sentence")
		}
		return errors.New("sandbox_permissions is not available in this composition (no sandboxing filesystem to escalate)")
	}
	return nil
}
