package toolsearch

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// indexNeed finds what bytes.Index finds, wherever need's rarest byte is
// and however often its other bytes occur.
func TestIndexNeedIsBytesIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	alphabet := []byte("eeeeet(N\"\n x")
	for range 5000 {
		need := make([]byte, 1+r.IntN(6))
		for i := range need {
			need[i] = alphabet[r.IntN(len(alphabet))]
		}
		data := make([]byte, r.IntN(80))
		for i := range data {
			data[i] = alphabet[r.IntN(len(alphabet))]
		}
		m := &matcher{need: need, rare: rarestByte(need)}
		require.Equal(t, bytes.Index(data, need), m.indexNeed(data), "need %q in %q", need, data)
	}
	m := &matcher{need: []byte(`errors.New("`), rare: rarestByte([]byte(`errors.New("`))}
	require.Equal(t, byte('N'), m.need[m.rare], "a capital is rarer than the lower-case letters and the quote")
}
