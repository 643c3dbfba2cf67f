package host

import (
	"cmp"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// add appends, or inserts stably by cmp; remove drops exactly the element
// given; a snapshot taken earlier never changes.
func TestCowListOrderAndSnapshots(t *testing.T) {
	var l cowList[*int]
	assert.Nil(t, l.load())
	a, b, c, d := new(1), new(2), new(2), new(0)
	l.add(a, nil)
	l.add(b, nil)
	before := l.load()
	byValue := func(x, y *int) int { return cmp.Compare(*x, *y) }
	l.add(c, byValue)
	l.add(d, byValue)
	assert.Equal(t, []*int{a, b}, before, "an earlier snapshot is unchanged")
	assert.Equal(t, []*int{d, a, b, c}, l.load(), "equal elements keep their order")

	assert.True(t, l.remove(b))
	assert.False(t, l.remove(b), "already gone")
	assert.Equal(t, []*int{d, a, c}, l.load())
	for _, x := range []*int{a, c, d} {
		assert.True(t, l.remove(x))
	}
	assert.Nil(t, l.load(), "an emptied list is stored as nil")
}

// Concurrent writers lose nothing and readers always see a whole snapshot
// (run with -race).
func TestCowListConcurrentUse(t *testing.T) {
	var l cowList[int]
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 100 {
				l.add(w*1000+i, nil)
				_ = len(l.load())
			}
		})
	}
	wg.Wait()
	assert.Len(t, l.load(), 400)
	for w := range 4 {
		wg.Go(func() {
			for i := range 100 {
				assert.True(t, l.remove(w*1000+i))
			}
		})
	}
	wg.Wait()
	assert.Nil(t, l.load())
}
