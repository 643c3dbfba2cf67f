package protectedpaths

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// rule is one configured pattern, compiled against the fs provider: the
// pattern as written (for the error message) and its display and real
// forms.
type rule struct {
	text  string
	forms []pattern
}

// compile resolves the literal leading segments of p through fsys, so the
// rule matches display paths and real locations alike. An absolute pattern
// whose prefix cannot be resolved (for example outside a confined
// provider's root) is matched as written; a relative one fails, since only
// the provider knows what it is relative to.
func compile(ctx context.Context, fsys fsapi.FileSystem, p string) (rule, error) {
	r := rule{text: p}
	clean := path.Clean(p)
	prefix, rest := literalPrefix(clean)
	lookup := prefix
	if lookup == "" {
		lookup = "."
	}
	t, err := fsys.Resolve(ctx, lookup, fsapi.ResolveOptions{})
	if err != nil {
		if strings.HasPrefix(clean, "/") {
			r.forms = append(r.forms, pattern(segments(clean)))
			return r, nil
		}
		return rule{}, fmt.Errorf("protectedpaths: cannot resolve pattern %q: %w", p, err)
	}
	r.forms = append(r.forms, join(t.DisplayPath, rest))
	if real, ok := fsapi.RealPath(fsys, t); ok && real != t.DisplayPath {
		r.forms = append(r.forms, join(real, rest))
	}
	return r, nil
}

// join appends the glob segments rest to the resolved prefix dir.
func join(dir string, rest []string) pattern {
	return pattern(append(segments(dir), rest...))
}

// match reports whether any of the candidate paths matches any form.
func (r rule) match(candidates ...string) bool {
	for _, c := range candidates {
		if c == "" {
			continue
		}
		for _, f := range r.forms {
			if f.matches(c) {
				return true
			}
		}
	}
	return false
}
