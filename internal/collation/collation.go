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

	"github.com/dsh-go/dsh/internal/quote"
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
	key := k.compute(name)
	keys.put(name, key)
	return key
}

// compute collates name without the cache; the key is the caller's.
func (k *keyer) compute(name string) []byte {
	if k.c == nil {
		k.c = collators.Get().(*collate.Collator)
		k.buf = new(collate.Buffer)
	}
	key := bytes.Clone(k.c.KeyFromString(k.buf, quote.ReplaceInvalid(name)))
	k.buf.Reset()
	return key
}

func (k *keyer) release() {
	if k.c != nil {
		collators.Put(k.c)
	}
}

// keys remembers the keys of recent names: a listing of the same directory
// again (what an agent does all day) then costs a map lookup per name
// instead of the collation of each name, which is most of a warm list's
// sort. A key is a function of the name alone, so a remembered key is never
// stale. At most keyCacheSize names are kept; past that the cache starts
// afresh.
var keys = keyCache{m: map[string][]byte{}}

// keyCacheSize bounds the key cache: 16,384 names of typical length hold
// about 2 MB.
const keyCacheSize = 16384

// keyCacheMaxName is the longest name the cache keeps: a rare long name is
// not worth its memory.
const keyCacheMaxName = 1024

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
	if len(name) > keyCacheMaxName {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(name, key)
}

func (c *keyCache) putLocked(name string, key []byte) {
	if len(c.m) >= keyCacheSize {
		clear(c.m)
	}
	c.m[name] = key
}

// fill sets out[i] to the key of names[i], taking the cache's lock once to
// look every name up and once more to remember the keys it had to compute,
// not once per name.
func (c *keyCache) fill(out [][]byte, names []string) {
	missed := false
	c.mu.Lock()
	for i, n := range names {
		k, ok := c.m[n]
		out[i] = k
		missed = missed || !ok
	}
	c.mu.Unlock()
	if !missed {
		return
	}
	var k keyer
	defer k.release()
	for i, n := range names {
		if out[i] == nil {
			out[i] = k.compute(n)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, n := range names {
		if len(n) <= keyCacheMaxName {
			if _, ok := c.m[n]; !ok {
				c.putLocked(n, out[i])
			}
		}
	}
}

// SortFunc sorts items in place by rank (ascending), then by the collation
// key of name, then by the raw bytes of name, so the order is total and
// deterministic (contract §6.6.3 "Note (Go)"). Keys are computed once per
// item (and remembered across calls, keys). rank may be nil. The sort moves
// records of two integers, not the items, which move once at the end.
func SortFunc[T any](items []T, name func(T) string, rank func(T) int) {
	n := len(items)
	if n < 2 {
		return
	}
	names := make([]string, n)
	for i, it := range items {
		names[i] = name(it)
	}
	ks := make([][]byte, n)
	keys.fill(ks, names)
	recs := make([]record, n)
	for i, it := range items {
		recs[i] = record{at: i}
		if rank != nil {
			recs[i].rank = rank(it)
		}
	}
	slices.SortFunc(recs, func(a, b record) int {
		if a.rank != b.rank {
			return cmp.Compare(a.rank, b.rank)
		}
		if c := bytes.Compare(ks[a.at], ks[b.at]); c != 0 {
			return c
		}
		return strings.Compare(names[a.at], names[b.at])
	})
	sorted := make([]T, n)
	for i, r := range recs {
		sorted[i] = items[r.at]
	}
	copy(items, sorted)
}

// record is what SortFunc sorts: an item's rank and its index. It holds no
// pointer, so moving it costs the collector nothing.
type record struct {
	rank, at int
}

// Sort sorts names in place by collation key, ties by raw bytes.
func Sort(names []string) {
	SortFunc(names, func(s string) string { return s }, nil)
}
