// Package collation orders names the way the list tool shows them (contract
// §6.6.3): CLDR root collation with default options, as golang.org/x/text's
// collate implements it for language.Und, with the raw bytes breaking ties.
// fslocal sorts listings with it and toolfs orders entries by it within a
// type rank.
package collation

import (
	"bytes"
	"cmp"
	"slices"
	"strings"
	"sync"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// collators are pooled: a collate.Collator is not safe for concurrent use.
var collators = sync.Pool{New: func() any { return collate.New(language.Und) }}

// Key returns the collation key of name: its CLDR root sort key, computed on
// the name with each invalid UTF-8 byte read as U+FFFD (contract §6.6.3).
// Keys compare with bytes.Compare; a key is shared, never modified.
func Key(name string) []byte {
	var k keyer
	defer k.release()
	return k.key(name)
}

// keyer computes keys with one pooled collator and one buffer (a
// collate.Buffer holds 4 KB: one per name made a listing of 10,000 names
// allocate 40 MB), remembering them in keys.
type keyer struct {
	c   *collate.Collator
	buf *collate.Buffer
}

func (k *keyer) key(name string) []byte {
	if key, ok := keys.get(name); ok {
		return key
	}
	if k.c == nil {
		k.c = collators.Get().(*collate.Collator)
		k.buf = new(collate.Buffer)
	}
	key := bytes.Clone(k.c.KeyFromString(k.buf, fsapi.Display(name)))
	k.buf.Reset()
	keys.put(name, key)
	return key
}

func (k *keyer) release() {
	if k.c != nil {
		collators.Put(k.c)
	}
}

// keys remembers the keys of recent names: a listing of the same directory
// again (what an agent does all day) then costs a map lookup per name
// instead of the collation of each name, which was most of a warm list's
// sort (issue 10). At most keyCacheSize names are kept; past that the cache
// starts afresh.
var keys = keyCache{m: map[string][]byte{}}

// keyCacheSize bounds the key cache: 16,384 names of typical length hold
// about 2 MB.
const keyCacheSize = 16384

type keyCache struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (c *keyCache) get(name string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.m[name]
	return k, ok
}

func (c *keyCache) put(name string, key []byte) {
	if len(name) > 1024 {
		return // a rare long name is not worth its memory
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= keyCacheSize {
		clear(c.m)
	}
	c.m[name] = key
}

// SortFunc sorts items in place by rank (ascending), then by the collation
// key of name, then by the raw bytes of name, so the order is total and
// deterministic (contract §6.6.3 "Note (Go)"). Keys are computed once per
// item. rank may be nil.
func SortFunc[T any](items []T, name func(T) string, rank func(T) int) {
	// The sort moves small records that point back at the items, and the
	// items move once at the end: moving whole entries was most of a
	// listing's sort (issue 10).
	type keyed struct {
		key  []byte
		name string
		rank int
		at   int // the item's index in items
	}
	ks := make([]keyed, len(items))
	var k keyer
	defer k.release()
	for i, it := range items {
		n := name(it)
		r := 0
		if rank != nil {
			r = rank(it)
		}
		ks[i] = keyed{key: k.key(n), name: n, rank: r, at: i}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		if a.rank != b.rank {
			return cmp.Compare(a.rank, b.rank)
		}
		if c := bytes.Compare(a.key, b.key); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	sorted := make([]T, len(items))
	for i := range ks {
		sorted[i] = items[ks[i].at]
	}
	copy(items, sorted)
}

// Sort sorts names in place by collation key, ties by raw bytes.
func Sort(names []string) {
	SortFunc(names, func(s string) string { return s }, nil)
}
