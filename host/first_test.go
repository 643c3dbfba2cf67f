package host_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
)

// host §6 item 18, §1.5: First stops at the first handled result, and a
// zero value can be handled (Cordis would read 0 as unhandled).
func TestFirstStopsAtTheFirstHandled(t *testing.T) {
	type answer struct {
		value   int
		handled bool
		err     error
		panics  bool
	}
	cases := []struct {
		name    string
		answers []answer
		want    int
		handled bool
		err     string
		ran     int
	}{
		{name: "no listeners: zero and not handled", want: 0, handled: false, ran: 0},
		{name: "none handles: zero and not handled", answers: []answer{{value: 1}, {value: 2}}, want: 0, handled: false, ran: 2},
		{name: "the first handled wins", answers: []answer{{value: 1}, {value: 2, handled: true}, {value: 3, handled: true}}, want: 2, handled: true, ran: 2},
		{name: "a zero value can be handled", answers: []answer{{value: 0, handled: true}, {value: 7, handled: true}}, want: 0, handled: true, ran: 1},
		{name: "an error stops the dispatch and propagates", answers: []answer{{value: 1}, {err: errors.New("lookup failed")}, {value: 3, handled: true}}, err: "lookup failed", ran: 2},
		{name: "a panic stops the dispatch as an error", answers: []answer{{panics: true}, {value: 3, handled: true}}, err: `listener of "test/first" panicked: first exploded`, ran: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t)
			s, _ := listenerScope(t, h, "listeners")
			f := host.NewFirst[string, int]("test/first")
			assert.Equal(t, "test/first", f.Name())
			ran := 0
			for _, a := range tc.answers {
				_, err := f.On(s, func(_ context.Context, q string) (int, bool, error) {
					ran++
					require.Equal(t, "question", q)
					if a.panics {
						panic("first exploded")
					}
					return a.value, a.handled, a.err
				})
				require.NoError(t, err)
			}
			got, handled, err := f.Dispatch(t.Context(), s, "question")
			if tc.err != "" {
				assert.EqualError(t, err, tc.err)
				assert.False(t, handled)
			} else {
				assert.NoError(t, err)
				assert.Equal(t, tc.handled, handled)
			}
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.ran, ran)
		})
	}
}
