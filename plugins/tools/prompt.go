package tools

import (
	"cmp"
	"fmt"
	"slices"
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

// sectionEntry is one registration of a section: removed by its identity,
// since two registrations may carry equal sections.
type sectionEntry struct {
	sec Section
}

// AddSection registers sec on behalf of s until s ends or the returned
// Disposer runs. On an inactive scope it returns host.ErrInactive.
func (r *Registry) AddSection(s *host.Scope, sec Section) (host.Disposer, error) {
	r.mu.Lock()
	se := &sectionEntry{sec: sec}
	r.sections = append(r.sections, se)
	slices.SortStableFunc(r.sections, func(a, b *sectionEntry) int { return cmp.Compare(a.sec.Order, b.sec.Order) })
	r.mu.Unlock()
	d, err := r.own(s, fmt.Sprintf("section(%q)", sec.Name), true, func() { r.sections = without(r.sections, se) }, nil)
	if err != nil {
		return nil, err
	}
	r.changed()
	return d, nil
}

// Sections returns the registered sections in prompt order.
func (r *Registry) Sections() []Section {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if len(r.sections) == 0 {
		return nil
	}
	out := make([]Section, len(r.sections))
	for i, se := range r.sections {
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
