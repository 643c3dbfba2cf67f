package fsapi

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHasDotDot(t *testing.T) {
	for s, want := range map[string]bool{
		"..": true, "../a": true, "a/..": true, "a/../b": true, `a\..\b`: true,
		"a..b": false, "...": false, "a/...": false, "..a": false, "a/b": false, "": false,
	} {
		assert.Equal(t, want, hasDotDot(s), "%q", s)
	}
}

// contract §6.4: no session cwd leaves the provider's; a `..` in the cwd or
// the path asks for the cwd's real location; otherwise it is used as spelled.
func TestCwdOptions(t *testing.T) {
	assert.Equal(t, ResolveOptions{}, CwdOptions("../a", ""))
	assert.Equal(t, ResolveOptions{Cwd: "/w/link"}, CwdOptions("a/b", "/w/link"))
	assert.Equal(t, ResolveOptions{Cwd: "/w/link", RealCwd: true}, CwdOptions("../a", "/w/link"))
	assert.Equal(t, ResolveOptions{Cwd: "/w/link/..", RealCwd: true}, CwdOptions("a", "/w/link/.."))
}
