package tools

import (
	"fmt"
	"strings"

	"github.com/dsh-go/dsh/host"
)

// Section is one paragraph of the assembled prompt (contract §5.6): Name
// identifies it (`tool:read`), Order places it (ascending; equal orders keep
// registration order) and Text is the paragraph.
type Section struct {
	Name  string
	Order int
	Text  string
}

type sectionEntry struct {
	sec Section
	seq int64
}

// AddSection registers sec on behalf of s until s ends or the returned
// Disposer runs. On an inactive scope it returns host.ErrInactive.
func (r *Registry) AddSection(s *host.Scope, sec Section) (host.Disposer, error) {
	r.mu.Lock()
	r.seq++
	se := &sectionEntry{sec: sec, seq: r.seq}
	r.sections.add(se, func(a, b *sectionEntry) int {
		if a.sec.Order != b.sec.Order {
			return a.sec.Order - b.sec.Order
		}
		return int(a.seq - b.seq)
	})
	r.mu.Unlock()
	d, err := r.own(s, fmt.Sprintf("section(%q)", sec.Name), true, func() { r.sections.remove(se) }, nil)
	if err != nil {
		return nil, err
	}
	r.changed()
	return d, nil
}

// Sections returns the registered sections in prompt order.
func (r *Registry) Sections() []Section {
	list := r.sections.load()
	if list == nil {
		return nil
	}
	out := make([]Section, len(list))
	for i, se := range list {
		out[i] = se.sec
	}
	return out
}

// Prompt assembles the sections in order, each its own paragraph, separated
// by exactly one blank line (contract §5.6). It is "" with no sections.
func (r *Registry) Prompt() string {
	secs := r.Sections()
	texts := make([]string, len(secs))
	for i, s := range secs {
		texts[i] = s.Text
	}
	return strings.Join(texts, "\n\n")
}
