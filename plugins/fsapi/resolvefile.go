package fsapi

import (
	"context"
	"strings"
)

// ResolveFile resolves the path of a file tool's call for op ("read",
// "write", "edit", "insert into"), in the conversation whose working
// directory is cwd (contract §6.4, [CwdOptions]). A path ending in "/"
// names a directory, never a file: it fails FS_INVALID_PATH
// ([ErrFinalSlash], contract §6.4a [D23]), with the display path Resolve
// makes of the path without its final slashes, and nothing is created,
// read or observed. Then the provider's refusal of op on a protected file
// ([Refuse], FS_PROTECTED), before any intent runs. Errors of Resolve pass
// through.
func ResolveFile(ctx context.Context, fs FileSystem, path, cwd, op string) (Target, error) {
	if strings.HasSuffix(path, "/") {
		bare := strings.TrimRight(path, "/")
		if bare == "" {
			bare = "/"
		}
		t, err := fs.Resolve(ctx, bare, CwdOptions(bare, cwd))
		if err != nil {
			return Target{}, err
		}
		return Target{}, ErrFinalSlash(op, t.DisplayPath)
	}
	t, err := fs.Resolve(ctx, path, CwdOptions(path, cwd))
	if err != nil {
		return Target{}, err
	}
	if err := Refuse(ctx, fs, t, op); err != nil {
		return Target{}, err
	}
	return t, nil
}
