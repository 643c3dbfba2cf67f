package toolfs

import (
	"errors"
	"strings"

	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// The structured values check themselves against the output schemas of
// schema.go (contract §6.2): their Go types fix every object's keys and JSON
// types, so what is left is the enums and the arrays that must not be null.
// output_test.go validates real values against the published schemas with a
// JSON Schema validator, so the two cannot drift apart.

// CheckOutput implements tools.OutputChecker.
func (p listPage) CheckOutput() error {
	var v []string
	if p.Entries == nil {
		v = append(v, "entries must be an array")
	}
	for _, e := range p.Entries {
		if e.Type != fsapi.TypeFile && e.Type != fsapi.TypeDirectory && e.Type != fsapi.TypeOther {
			v = append(v, `entry type "`+string(e.Type)+`" is not one of file, directory, other`)
		}
	}
	return violations(v)
}

// CheckOutput implements tools.OutputChecker.
func (r readValue) CheckOutput() error {
	if r.Lines == nil {
		return errors.New("lines must be an array")
	}
	return nil
}

// CheckOutput implements tools.OutputChecker.
func (w writeValue) CheckOutput() error {
	if w.Operation != fsapi.OperationCreate && w.Operation != fsapi.OperationUpdate {
		return errors.New(`operation "` + string(w.Operation) + `" is not one of create, update`)
	}
	return nil
}

// CheckOutput implements tools.OutputChecker: every field is a string.
func (editValue) CheckOutput() error { return nil }

func violations(v []string) error {
	if len(v) == 0 {
		return nil
	}
	return errors.New(strings.Join(v, "; "))
}

var (
	_ tools.OutputChecker = listPage{}
	_ tools.OutputChecker = readValue{}
	_ tools.OutputChecker = writeValue{}
	_ tools.OutputChecker = editValue{}
)
