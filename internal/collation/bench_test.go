package collation_test

import (
	"fmt"
	"testing"

	"github.com/dsh-go/dsh/internal/collation"
)

// listed is a list entry as toolfs sorts it: display name, type, raw name.
type listed struct {
	name, typ, raw string
}

func rankOf(e listed) int {
	switch e.typ {
	case "directory":
		return 0
	case "file":
		return 1
	}
	return 2
}

// BenchmarkSortFunc200 sorts a 200-entry listing whose keys the cache
// already holds, as a warm list does: names f000.txt..f199.txt and a few
// directories, in directory (hash) order.
func BenchmarkSortFunc200(b *testing.B) {
	in := make([]listed, 200)
	for i := range in {
		j := (i * 7919) % 200 // a fixed shuffle
		e := listed{name: fmt.Sprintf("f%03d.txt", j), typ: "file"}
		if j%20 == 0 {
			e = listed{name: fmt.Sprintf("dir%02d", j), typ: "directory"}
		}
		e.raw = e.name
		in[i] = e
	}
	work := make([]listed, len(in))
	copy(work, in)
	collation.SortFunc(work, func(e listed) string { return e.raw }, rankOf) // warm the key cache
	for b.Loop() {
		copy(work, in)
		collation.SortFunc(work, func(e listed) string { return e.raw }, rankOf)
	}
}
