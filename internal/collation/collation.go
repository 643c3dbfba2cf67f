// Package collation orders names the way the list tool shows them (contract
// §6.6.3): CLDR root collation with default options, as golang.org/x/text's
// collate implements it for language.Und, with the raw bytes breaking ties.
// fslocal sorts listings with it and toolfs orders entries by it within a
// type rank.
package collation

import (
	"bytes"
	"cmp"
	"encoding/binary"
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
// instead of the collation of each name, which was most of a warm list's
// sort (issue 10). At most keyCacheSize names are kept; past that the cache
// starts afresh.
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
// look every name up and once more to remember the keys it had to compute
// (one lock per name was a visible share of a warm listing, issue 10).
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
// item. rank may be nil.
//
// The sort moves 24-byte records, not the items (which move once at the
// end), and compares each record's rank and a 16-byte window of its key as
// integers: the window starts past the prefix every key of the call shares,
// so names such as f000.txt..f199.txt differ inside it. Only records whose
// windows are equal compare whole keys and then names. A window is a
// prefix of the key's remainder, zero-padded, so comparing windows never
// contradicts comparing keys (a shorter key pads with zeros and sorts
// first, as bytes.Compare has it): the order is the one of the plain
// comparison (issue 10; order_test.go checks it). The same names and ranks
// in the same input order as one of the last few sorts take that sort's
// order without sorting (orders).
func SortFunc[T any](items []T, name func(T) string, rank func(T) int) {
	n := len(items)
	if n < 2 {
		return
	}
	rankOf := func(it T) int {
		if rank == nil {
			return 0
		}
		return rank(it)
	}
	perm := findOrder(&orders, items, name, rankOf)
	if perm == nil {
		names := make([]string, n)
		ranks := make([]int, n)
		for i, it := range items {
			names[i], ranks[i] = name(it), rankOf(it)
		}
		perm = order(names, ranks)
		orders.put(names, ranks, perm)
	}
	permute(items, perm)
}

// permute moves items[perm[i]] to position i for every i, in place, one
// cycle of the permutation at a time: each item is written once (an item
// holds pointers, and every pointer written while the collector runs costs
// a barrier).
func permute[T any](items []T, perm []int32) {
	done := make([]bool, len(items))
	for i := range items {
		if done[i] || int(perm[i]) == i {
			continue
		}
		held := items[i]
		j := i
		for {
			done[j] = true
			k := int(perm[j])
			if k == i {
				items[j] = held
				break
			}
			items[j] = items[k]
			j = k
		}
	}
}

// order returns the sorted order of the items with these names and ranks
// (SortFunc's): perm[i] is the index of the item that goes to position i.
func order(names []string, ranks []int) []int32 {
	n := len(names)
	ks := make([][]byte, n)
	keys.fill(ks, names)
	skip := sharedPrefix(ks)
	recs := make([]record, n)
	for i := range recs {
		hi, lo := window(ks[i], skip)
		recs[i] = record{hi: hi, lo: lo, rank: ranks[i], at: i}
	}
	slices.SortFunc(recs, func(a, b record) int {
		switch {
		case a.rank != b.rank:
			return cmp.Compare(a.rank, b.rank)
		case a.hi != b.hi:
			return cmp.Compare(a.hi, b.hi)
		case a.lo != b.lo:
			return cmp.Compare(a.lo, b.lo)
		}
		if c := bytes.Compare(ks[a.at][skip:], ks[b.at][skip:]); c != 0 {
			return c
		}
		return strings.Compare(names[a.at], names[b.at])
	})
	perm := make([]int32, n)
	for i := range recs {
		perm[i] = int32(recs[i].at)
	}
	return perm
}

// orders remembers the orders of recent sorts: a listing of an unchanged
// directory comes back with the same names in the same directory order,
// and then its order is a comparison of the names (mostly the same
// strings, which compare by pointer) instead of a sort (issue 10). The
// order is a function of the names and ranks alone, so a remembered one is
// the one the sort would give.
var orders orderMemo

// orderMemoSlots is how many recent orders are kept (one per directory an
// agent keeps listing); orderMemoMaxItems is the largest sort remembered.
const (
	orderMemoSlots    = 8
	orderMemoMaxItems = 1 << 14
)

type orderMemo struct {
	mu    sync.Mutex
	slots [orderMemoSlots]*rememberedOrder
	next  int // the slot the next order replaces
}

// rememberedOrder is one sort's input and result; never modified once
// stored.
type rememberedOrder struct {
	names []string
	ranks []int
	perm  []int32
}

// findOrder returns m's remembered order of a sort whose names and ranks
// were exactly those of items, in the same order, or nil.
func findOrder[T any](m *orderMemo, items []T, name func(T) string, rank func(T) int) []int32 {
	m.mu.Lock()
	slots := m.slots
	m.mu.Unlock()
next:
	for _, o := range slots {
		if o == nil || len(o.names) != len(items) {
			continue
		}
		for i, it := range items {
			if o.names[i] != name(it) || o.ranks[i] != rank(it) {
				continue next
			}
		}
		return o.perm
	}
	return nil
}

// put remembers the order perm of names and ranks (the caller's slices,
// which it no longer modifies).
func (m *orderMemo) put(names []string, ranks []int, perm []int32) {
	if len(names) > orderMemoMaxItems {
		return
	}
	o := &rememberedOrder{names: names, ranks: ranks, perm: perm}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.slots[m.next] = o
	m.next = (m.next + 1) % orderMemoSlots
}

// record is what order sorts: an item's rank, the 16 bytes of its key past
// the shared prefix as two big-endian integers, and its index.
type record struct {
	hi, lo uint64
	rank   int
	at     int
}

// sharedPrefix returns the length of the prefix all keys share.
func sharedPrefix(ks [][]byte) int {
	p := ks[0]
	for _, k := range ks[1:] {
		m := min(len(p), len(k))
		i := 0
		for i < m && p[i] == k[i] {
			i++
		}
		p = p[:i]
		if len(p) == 0 {
			break
		}
	}
	return len(p)
}

// window returns key[skip:skip+16] as two big-endian integers, the bytes
// past the key's end read as zeros.
func window(key []byte, skip int) (hi, lo uint64) {
	var w [16]byte
	copy(w[:], key[skip:])
	return binary.BigEndian.Uint64(w[:8]), binary.BigEndian.Uint64(w[8:])
}

// Sort sorts names in place by collation key, ties by raw bytes.
func Sort(names []string) {
	SortFunc(names, func(s string) string { return s }, nil)
}
