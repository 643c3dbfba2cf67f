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
// already holds (issue 10): names f000.txt..f199.txt and a few
// directories, in directory (hash) order. "same" sorts the same input each
// time (a warm list of an unchanged directory: the remembered order);
// "rotated" starts the input at another entry each time, so every sort is
// a sort.
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
	b.Run("same", func(b *testing.B) {
		for b.Loop() {
			copy(work, in)
			collation.SortFunc(work, func(e listed) string { return e.raw }, rankOf)
		}
	})
	b.Run("rotated", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			copy(work, in[i%len(in):])
			copy(work[len(in)-i%len(in):], in)
			collation.SortFunc(work, func(e listed) string { return e.raw }, rankOf)
		}
	})
}
