package tools

import "github.com/dsh-go/dsh/host"

// Install registers ts and then secs on behalf of s, in order, as a tool
// plugin's apply does (contract §1, §5.6): everything goes away when s
// ends. It stops at the first failure and returns it; what was registered
// before is owned by s and rolled back with it.
func (r *Registry) Install(s *host.Scope, ts []Tool, secs []Section) error {
	for _, t := range ts {
		if _, err := r.Register(s, t); err != nil {
			return err
		}
	}
	for _, sec := range secs {
		if _, err := r.AddSection(s, sec); err != nil {
			return err
		}
	}
	return nil
}
