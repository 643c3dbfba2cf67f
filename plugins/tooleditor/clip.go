package tooleditor

import (
	"strings"
	"unicode/utf8"
)

// clipNotice follows a clipped part (editor.md §8.5).
const clipNotice = "<response clipped><NOTE>Output cut here to save context. For the rest of a file, view it again with a view_range that starts after the last line shown; for a directory, view its subdirectories one at a time.</NOTE>"

// clipper collects text up to max UTF-16 units (a character above U+FFFF
// counts 2) and notes whether anything was cut: it keeps the longest
// prefix of whole characters that fits, so memory stays bounded by max
// whatever is written (editor.md §8.1, §8.5).
type clipper struct {
	b       strings.Builder
	units   int
	max     int
	clipped bool
}

// write appends s, or as much of it as fits.
func (c *clipper) write(s string) {
	if c.clipped || s == "" {
		return
	}
	if u := units(s); c.units+u <= c.max {
		c.b.WriteString(s)
		c.units += u
		return
	}
	for i, r := range s {
		u := 1
		if r > 0xFFFF {
			u = 2
		}
		if c.units+u > c.max {
			c.b.WriteString(s[:i])
			c.clipped = true
			return
		}
		c.units += u
	}
}

// full reports whether nothing more can be kept.
func (c *clipper) full() bool { return c.clipped }

// String returns the kept text, followed by the notice when something was
// cut.
func (c *clipper) String() string {
	if c.clipped {
		return c.b.String() + clipNotice
	}
	return c.b.String()
}

// units counts the UTF-16 units of s: one per character, two for one above
// U+FFFF (a valid four-byte UTF-8 sequence). Each invalid byte counts one,
// as its U+FFFD would.
func units(s string) int {
	n := utf8.RuneCountInString(s)
	for i := 0; i < len(s); i++ {
		if s[i] >= 0xF0 {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 4 {
				n++
				i += 3
			}
		}
	}
	return n
}
