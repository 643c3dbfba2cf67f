package host_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
)

// request is the shared argument of the waterfall tests.
type request struct {
	trace *journal
	note  string
}

// chainOn registers fn on c and requires the registration to succeed.
func chainOn[A, R any](t *testing.T, c *host.Chain[A, R], s *host.Scope, fn host.ChainFunc[A, R], opts ...host.ListenOption) host.Disposer {
	t.Helper()
	d, err := c.On(s, fn, opts...)
	require.NoError(t, err)
	return d
}

// wrap is a transforming listener: it records entry and exit around next
// and decorates next's result.
func wrap(name string) host.ChainFunc[*request, string] {
	return func(ctx context.Context, r *request, next host.Next[string]) (string, error) {
		r.trace.add("%s>", name)
		out, err := next(ctx)
		r.trace.add("<%s", name)
		return name + "(" + out + ")", err
	}
}

func innerResult(r *request) host.Next[string] {
	return func(context.Context) (string, error) {
		r.trace.add("inner")
		return "inner" + r.note, nil
	}
}

// host §6 item 17, §1.5, §3.1: the waterfall's semantics.
func TestWaterfall(t *testing.T) {
	errVeto := errors.New("vetoed")
	cases := []struct {
		name      string
		listeners []host.ChainFunc[*request, string]
		inner     func(r *request) host.Next[string]
		want      string
		err       string
		trace     []string
	}{
		{
			name:  "with no listeners it returns inner's result",
			want:  "inner",
			trace: []string{"inner"},
		},
		{
			name:      "the first listener is the outermost",
			listeners: []host.ChainFunc[*request, string]{wrap("a"), wrap("b"), wrap("c")},
			want:      "a(b(c(inner)))",
			trace:     []string{"a>", "b>", "c>", "inner", "<c", "<b", "<a"},
		},
		{
			name: "a listener that skips next decides",
			listeners: []host.ChainFunc[*request, string]{wrap("a"), func(_ context.Context, r *request, _ host.Next[string]) (string, error) {
				r.trace.add("decider")
				return "decided", nil
			}, wrap("never")},
			want:  "a(decided)",
			trace: []string{"a>", "decider", "<a"},
		},
		{
			name: "a listener's error propagates through the outer ones",
			listeners: []host.ChainFunc[*request, string]{wrap("a"), func(_ context.Context, r *request, _ host.Next[string]) (string, error) {
				r.trace.add("veto")
				return "", errVeto
			}, wrap("never")},
			want:  "a()",
			err:   "vetoed",
			trace: []string{"a>", "veto", "<a"},
		},
		{
			name:      "inner's error propagates",
			listeners: []host.ChainFunc[*request, string]{wrap("a")},
			inner: func(r *request) host.Next[string] {
				return func(context.Context) (string, error) { r.trace.add("inner"); return "", errors.New("inner failed") }
			},
			want:  "a()",
			err:   "inner failed",
			trace: []string{"a>", "inner", "<a"},
		},
		{
			name: "a panicking listener becomes an error",
			listeners: []host.ChainFunc[*request, string]{func(context.Context, *request, host.Next[string]) (string, error) {
				panic("listener exploded")
			}},
			err: `listener of "test/chain" panicked: listener exploded`,
		},
		{
			name: "a panicking inner becomes an error",
			inner: func(*request) host.Next[string] {
				return func(context.Context) (string, error) { panic("inner exploded") }
			},
			err: `default of "test/chain" panicked: inner exploded`,
		},
		{
			name: "calling next twice re-runs the downstream chain",
			listeners: []host.ChainFunc[*request, string]{func(ctx context.Context, r *request, next host.Next[string]) (string, error) {
				first, err := next(ctx)
				if err != nil {
					return "", err
				}
				r.note = "-retry"
				second, err := next(ctx)
				return first + "|" + second, err
			}, wrap("b"), wrap("c")},
			want:  "b(c(inner))|b(c(inner-retry))",
			trace: []string{"b>", "c>", "inner", "<c", "<b", "b>", "c>", "inner", "<c", "<b"},
		},
		{
			name: "all listeners see the same shared argument",
			listeners: []host.ChainFunc[*request, string]{func(ctx context.Context, r *request, next host.Next[string]) (string, error) {
				r.note = "-noted"
				return next(ctx)
			}, func(ctx context.Context, r *request, next host.Next[string]) (string, error) {
				r.trace.add("second sees %s", r.note)
				return next(ctx)
			}},
			want:  "inner-noted",
			trace: []string{"second sees -noted", "inner"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t)
			s, _ := listenerScope(t, h, "listeners")
			c := host.NewChain[*request, string]("test/chain")
			for _, fn := range tc.listeners {
				chainOn(t, c, s, fn)
			}
			r := &request{trace: &journal{}}
			inner := innerResult(r)
			if tc.inner != nil {
				inner = tc.inner(r)
			}
			got, err := c.Waterfall(t.Context(), s, r, inner)
			if tc.err != "" {
				assert.EqualError(t, err, tc.err)
			} else {
				assert.NoError(t, err)
			}
			assert.Equal(t, tc.want, got)
			if tc.trace != nil {
				assert.Equal(t, tc.trace, r.trace.list())
			}
		})
	}
}

func TestWaterfallErrorsKeepTheirIdentity(t *testing.T) {
	h := newHost(t)
	s, _ := listenerScope(t, h, "listeners")
	c := host.NewChain[int, int]("test/veto")
	errVeto := errors.New("FS_NOT_OBSERVED")
	chainOn(t, c, s, func(context.Context, int, host.Next[int]) (int, error) { return 0, errVeto })
	innerRan := false
	_, err := c.Waterfall(t.Context(), s, 1, func(context.Context) (int, error) { innerRan = true; return 1, nil })
	assert.Same(t, errVeto, err)
	assert.False(t, innerRan, "a veto never reaches the default")
}

// host §6 item 17, §3.1: next takes the ctx to pass on, so a wrapper's
// deadline is seen by every downstream listener and by inner.
func TestAWrappersDeadlineIsSeenDownstream(t *testing.T) {
	h := newHost(t)
	s, _ := listenerScope(t, h, "listeners")
	c := host.NewChain[string, string]("test/deadline")
	var want time.Time
	chainOn(t, c, s, func(ctx context.Context, _ string, next host.Next[string]) (string, error) {
		ctx, cancel := context.WithTimeout(ctx, time.Hour)
		defer cancel()
		want, _ = ctx.Deadline()
		return next(ctx)
	})
	var seen []string
	chainOn(t, c, s, func(ctx context.Context, _ string, next host.Next[string]) (string, error) {
		d, ok := ctx.Deadline()
		seen = append(seen, "listener: "+boolWord(ok && d.Equal(want)))
		return next(ctx)
	})
	_, err := c.Waterfall(t.Context(), s, "", func(ctx context.Context) (string, error) {
		d, ok := ctx.Deadline()
		seen = append(seen, "inner: "+boolWord(ok && d.Equal(want)))
		return "", nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"listener: yes", "inner: yes"}, seen)
}

// Waterfall listeners follow the same registration rules: Prepend leads, a
// disposed listener is skipped.
func TestWaterfallRegistrationOptions(t *testing.T) {
	h := newHost(t)
	s, _ := listenerScope(t, h, "listeners")
	c := host.NewChain[*request, string]("test/options")
	chainOn(t, c, s, wrap("a"))
	d := chainOn(t, c, s, wrap("gone"))
	chainOn(t, c, s, wrap("first"), host.Prepend())
	require.NoError(t, d(t.Context()))
	r := &request{trace: &journal{}}
	got, err := c.Waterfall(t.Context(), s, r, innerResult(r))
	require.NoError(t, err)
	assert.Equal(t, "first(a(inner))", got)
}

// host §3.5: a waterfall listener may dispatch, register and dispose
// re-entrantly.
func TestWaterfallReentrancy(t *testing.T) {
	h := newHost(t)
	s, _ := listenerScope(t, h, "listeners")
	c := host.NewChain[int, string]("test/reentrant")
	var self host.Disposer
	self = chainOn(t, c, s, func(ctx context.Context, depth int, next host.Next[string]) (string, error) {
		if depth == 0 {
			return next(ctx)
		}
		nested, err := c.Waterfall(ctx, s, depth-1, func(context.Context) (string, error) { return "nested", nil })
		if err != nil {
			return "", err
		}
		if depth == 1 {
			chainOn(t, c, s, func(ctx context.Context, _ int, next host.Next[string]) (string, error) {
				out, err := next(ctx)
				return "late+" + out, err
			})
			if err := self(ctx); err != nil {
				return "", err
			}
		}
		out, err := next(ctx)
		return strings.Join([]string{nested, out}, "/"), err
	})
	var got string
	within(t, 5*time.Second, "a re-entrant waterfall", func() {
		var err error
		got, err = c.Waterfall(t.Context(), s, 2, func(context.Context) (string, error) { return "outer", nil })
		assert.NoError(t, err)
	})
	assert.Equal(t, "nested/nested/outer", got)
	got, err := c.Waterfall(t.Context(), s, 2, func(context.Context) (string, error) { return "after", nil })
	require.NoError(t, err)
	assert.Equal(t, "late+after", got)
}
