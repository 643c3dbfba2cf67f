package host_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
)

// host §3.3: Protect turns a panic into `<site> panicked: <value>` and
// passes errors through.
func TestProtect(t *testing.T) {
	cause := errors.New("bad input")
	cases := []struct {
		name   string
		fn     func() error
		err    string
		panics bool
	}{
		{name: "no error", fn: func() error { return nil }},
		{name: "an error passes through", fn: func() error { return cause }, err: "bad input"},
		{name: "a string panic", fn: func() error { panic("tool broke") }, err: `tool "read" panicked: tool broke`, panics: true},
		{name: "an error panic unwraps to it", fn: func() error { panic(cause) }, err: `tool "read" panicked: bad input`, panics: true},
		{name: "a runtime error panic", fn: func() error { var m map[string]int; m["x"] = 1; return nil },
			err: `tool "read" panicked: assignment to entry in nil map`, panics: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := host.Protect(`tool "read"`, tc.fn)
			if tc.err == "" {
				assert.NoError(t, err)
				return
			}
			assert.EqualError(t, err, tc.err)
			var pe *host.PanicError
			if !tc.panics {
				assert.False(t, errors.As(err, &pe))
				return
			}
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, `tool "read"`, pe.Site)
			assert.Contains(t, string(pe.Stack), "host_test.TestProtect")
			if tc.name == "an error panic unwraps to it" {
				assert.ErrorIs(t, err, cause)
			}
		})
	}
}
