package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
)

// listenerScope mounts a plugin that only hands out its scope, for tests
// that register listeners directly.
func listenerScope(t *testing.T, h *host.Host, name string) (*host.Scope, *host.Instance) {
	t.Helper()
	var scope *host.Scope
	inst := mount(t, h, define(name, func(_ context.Context, s *host.Scope) error { scope = s; return nil }), nil)
	return scope, inst
}

// on registers fn on ev and requires the registration to succeed.
func on[A any](t *testing.T, ev *host.Notify[A], s *host.Scope, fn host.NotifyFunc[A], opts ...host.ListenOption) host.Disposer {
	t.Helper()
	d, err := ev.On(s, fn, opts...)
	require.NoError(t, err)
	return d
}

// record returns a listener that records name.
func record[A any](j *journal, name string) host.NotifyFunc[A] {
	return func(context.Context, A) error { j.add("%s", name); return nil }
}

// host §6 item 12, §3.4: Emit runs every listener in order, even after one
// errors or panics, and returns the joined error in dispatch order.
func TestEmitRunsEveryListenerInOrder(t *testing.T) {
	h := newHost(t)
	s, _ := listenerScope(t, h, "listeners")
	ev := host.NewNotify[string]("test/emit")
	var j journal
	errFourth := errors.New("fourth failed")
	on(t, ev, s, record[string](&j, "first"))
	on(t, ev, s, func(_ context.Context, a string) error { j.add("second got %s", a); return errors.New("second failed") })
	on(t, ev, s, func(context.Context, string) error { j.add("third"); panic("third exploded") })
	on(t, ev, s, func(context.Context, string) error { j.add("fourth"); return fmt.Errorf("wrapped: %w", errFourth) })
	on(t, ev, s, record[string](&j, "fifth"))

	err := ev.Emit(t.Context(), s, "payload")
	assert.Equal(t, []string{"first", "second got payload", "third", "fourth", "fifth"}, j.list())
	assert.EqualError(t, err, "second failed\nlistener of \"test/emit\" panicked: third exploded\nwrapped: fourth failed")
	assert.ErrorIs(t, err, errFourth)
	var pe *host.PanicError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, `listener of "test/emit"`, pe.Site)
	assert.Equal(t, "third exploded", pe.Value)
}

// contract §1.1: a single failure is returned unchanged, not wrapped in a
// join.
func TestEmitReturnsASingleFailureUnchanged(t *testing.T) {
	h := newHost(t)
	s, _ := listenerScope(t, h, "listeners")
	ev := host.NewNotify[int]("test/single")
	failure := errors.New("only failure")
	on(t, ev, s, func(context.Context, int) error { return nil })
	on(t, ev, s, func(context.Context, int) error { return failure })
	assert.Same(t, failure, ev.Emit(t.Context(), s, 1))
}

func TestEmitWithoutListeners(t *testing.T) {
	h := newHost(t)
	s, _ := listenerScope(t, h, "listeners")
	ev := host.NewNotify[int]("test/nobody")
	assert.NoError(t, ev.Emit(t.Context(), h.Root(), 1), "never listened to")
	d := on(t, ev, s, func(context.Context, int) error { return errors.New("unreachable") })
	require.NoError(t, d(t.Context()))
	assert.NoError(t, ev.Emit(t.Context(), h.Root(), 1), "every listener gone")
}

// host §1.5: a prepended listener goes first, the most recent prepend
// leading.
func TestListenerOrder(t *testing.T) {
	cases := []struct {
		name string
		regs []struct {
			name string
			opts []host.ListenOption
		}
		want []string
	}{
		{
			name: "registration order by default",
			regs: []struct {
				name string
				opts []host.ListenOption
			}{{"a", nil}, {"b", nil}, {"c", nil}},
			want: []string{"a", "b", "c"},
		},
		{
			name: "prepend puts a listener first, the most recent prepend leading",
			regs: []struct {
				name string
				opts []host.ListenOption
			}{{"a", nil}, {"b", nil}, {"p1", []host.ListenOption{host.Prepend()}}, {"c", nil}, {"p2", []host.ListenOption{host.Prepend()}}},
			want: []string{"p2", "p1", "a", "b", "c"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t)
			s, _ := listenerScope(t, h, "listeners")
			ev := host.NewNotify[int]("test/order")
			var j journal
			for _, r := range tc.regs {
				on(t, ev, s, record[int](&j, r.name), r.opts...)
			}
			require.NoError(t, ev.Emit(t.Context(), s, 0))
			assert.Equal(t, tc.want, j.list())
		})
	}
}

// host §6 item 12, §1.5: a dispatch works on a snapshot; listeners added or
// removed during it affect only later dispatches.
func TestChangesDuringADispatchDoNotAffectIt(t *testing.T) {
	h := newHost(t)
	s, _ := listenerScope(t, h, "listeners")
	ev := host.NewNotify[int]("test/snapshot")
	var j journal
	var third host.Disposer
	on(t, ev, s, func(ctx context.Context, n int) error {
		j.add("first %d", n)
		if n == 1 {
			on(t, ev, s, record[int](&j, "added"), host.Prepend())
			require.NoError(t, third(ctx))
		}
		return nil
	})
	on(t, ev, s, record[int](&j, "second"))
	third = on(t, ev, s, record[int](&j, "third"))

	require.NoError(t, ev.Emit(t.Context(), s, 1))
	assert.Equal(t, []string{"first 1", "second", "third"}, j.take(), "the removed listener still runs, the added one does not")
	require.NoError(t, ev.Emit(t.Context(), s, 2))
	assert.Equal(t, []string{"added", "first 2", "second"}, j.take())
}

// host §6 item 13, §4.2 point 4: a listener that re-entrantly emits (the
// same event and another), registers and disposes does not deadlock. The
// outer emit is a top-level one, so it goes through EventBus's Publish,
// whose mutex is held while the listener runs.
func TestReentrantEmitDoesNotDeadlock(t *testing.T) {
	h := newHost(t)
	s, _ := listenerScope(t, h, "listeners")
	outer := host.NewNotify[int]("test/outer")
	inner := host.NewNotify[string]("test/inner")
	var j journal
	innerFailure := errors.New("inner listener failed")
	on(t, inner, s, func(_ context.Context, a string) error { j.add("inner %s", a); return innerFailure })
	var self host.Disposer
	self = on(t, outer, s, func(ctx context.Context, depth int) error {
		j.add("outer %d", depth)
		if depth < 3 {
			if err := outer.Emit(ctx, s, depth+1); err != nil {
				return err
			}
		}
		err := inner.Emit(ctx, s, fmt.Sprint(depth))
		j.add("inner emit at %d returned %v", depth, err)
		if depth == 1 {
			on(t, inner, s, record[string](&j, "late inner"))
			return self(ctx)
		}
		return nil
	})
	within(t, 5*time.Second, "a re-entrant emit", func() {
		assert.NoError(t, outer.Emit(context.Background(), s, 1))
	})
	assert.Equal(t, []string{
		"outer 1", "outer 2", "outer 3",
		"inner 3", "inner emit at 3 returned inner listener failed",
		"inner 2", "inner emit at 2 returned inner listener failed",
		"inner 1", "inner emit at 1 returned inner listener failed",
	}, j.take())

	within(t, 5*time.Second, "emits after the re-entrant dispatch", func() {
		assert.NoError(t, outer.Emit(context.Background(), s, 1), "the outer listener disposed itself")
		assert.Same(t, innerFailure, inner.Emit(context.Background(), s, "x"))
	})
	assert.Equal(t, []string{"inner x", "late inner"}, j.list())
}

// host §6 item 14 (EventBus matches handlers by code pointer): disposing one
// of three closures made by the same func literal removes exactly that one;
// so does disposing one of two method values on different receivers.
func TestDisposeRemovesExactlyThatRegistration(t *testing.T) {
	t.Run("closures from one func literal", func(t *testing.T) {
		for _, victim := range []int{0, 1, 2} {
			t.Run(fmt.Sprintf("dispose closure %d", victim), func(t *testing.T) {
				h := newHost(t)
				s, _ := listenerScope(t, h, "listeners")
				ev := host.NewNotify[int]("test/closures")
				var j journal
				var disposers []host.Disposer
				for i := range 3 {
					disposers = append(disposers, on(t, ev, s, func(context.Context, int) error { j.add("closure %d", i); return nil }))
				}
				require.NoError(t, disposers[victim](t.Context()))
				require.NoError(t, ev.Emit(t.Context(), s, 0))
				var want []string
				for i := range 3 {
					if i != victim {
						want = append(want, fmt.Sprintf("closure %d", i))
					}
				}
				assert.Equal(t, want, j.list())
			})
		}
	})
	t.Run("method values on different receivers", func(t *testing.T) {
		h := newHost(t)
		s, _ := listenerScope(t, h, "listeners")
		ev := host.NewNotify[int]("test/methods")
		var j journal
		a, b := &counter{name: "a", j: &j}, &counter{name: "b", j: &j}
		on(t, ev, s, a.Handle)
		db := on(t, ev, s, b.Handle)
		require.NoError(t, db(t.Context()))
		require.NoError(t, ev.Emit(t.Context(), s, 0))
		assert.Equal(t, []string{"a"}, j.take())

		// The same method value twice: disposing the second keeps the first.
		d2 := on(t, ev, s, a.Handle)
		require.NoError(t, ev.Emit(t.Context(), s, 0))
		assert.Equal(t, []string{"a", "a"}, j.take())
		require.NoError(t, d2(t.Context()))
		require.NoError(t, ev.Emit(t.Context(), s, 0))
		assert.Equal(t, []string{"a"}, j.take())
	})
}

type counter struct {
	name string
	j    *journal
}

func (c *counter) Handle(context.Context, int) error { c.j.add("%s", c.name); return nil }

// host §6 item 16: no payload can cause a reflection panic: nil values of
// interface, pointer, func, slice, map and chan types reach the listener as
// the zero value, both through EventBus and in a re-entrant dispatch.
func TestNilPayloadsNeverPanic(t *testing.T) {
	cases := []struct {
		name string
		run  func(t *testing.T, h *host.Host, s *host.Scope) []string
	}{
		{"nil error", nilPayload[error]},
		{"nil any", nilPayload[any]},
		{"nil fmt.Stringer", nilPayload[fmt.Stringer]},
		{"nil pointer", nilPayload[*store]},
		{"nil func", nilPayload[func()]},
		{"nil slice", nilPayload[[]int]},
		{"nil map", nilPayload[map[string]int]},
		{"nil chan", nilPayload[chan int]},
		{"an interface holding a nil pointer", func(t *testing.T, h *host.Host, s *host.Scope) []string {
			ev := host.NewNotify[fmt.Stringer]("test/typed-nil")
			var got []string
			on(t, ev, s, func(_ context.Context, a fmt.Stringer) error {
				got = append(got, fmt.Sprintf("%T %t", a, a == nil))
				return nil
			})
			require.NoError(t, ev.Emit(t.Context(), s, (*nilStringer)(nil)))
			return got
		}},
	}
	want := map[string][]string{"an interface holding a nil pointer": {"*host_test.nilStringer false"}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t)
			s, _ := listenerScope(t, h, "listeners")
			var got []string
			assert.NotPanics(t, func() { got = tc.run(t, h, s) })
			if w, ok := want[tc.name]; ok {
				assert.Equal(t, w, got)
			} else {
				assert.Equal(t, []string{"top-level: zero", "re-entrant: zero"}, got)
			}
		})
	}
}

type nilStringer struct{}

func (*nilStringer) String() string { return "nil stringer" }

// nilPayload emits A's zero value at top level and from inside a listener,
// recording whether each listener call saw the zero value.
func nilPayload[A any](t *testing.T, _ *host.Host, s *host.Scope) []string {
	ev := host.NewNotify[A]("test/nil")
	trigger := host.NewNotify[int]("test/trigger")
	var got []string
	on(t, ev, s, func(ctx context.Context, a A) error {
		where := "top-level"
		if ctx.Value(triggerKey{}) != nil {
			where = "re-entrant"
		}
		if isZero(a) {
			got = append(got, where+": zero")
		} else {
			got = append(got, where+": not zero")
		}
		return nil
	})
	on(t, trigger, s, func(ctx context.Context, _ int) error {
		var zero A
		return ev.Emit(context.WithValue(ctx, triggerKey{}, true), s, zero)
	})
	var zero A
	require.NoError(t, ev.Emit(t.Context(), s, zero))
	require.NoError(t, trigger.Emit(t.Context(), s, 0))
	return got
}

type triggerKey struct{}

func isZero[A any](a A) bool { return fmt.Sprint(a) == fmt.Sprint(*new(A)) }

// host §2.2: descriptors are identities, not names; hosts are independent.
func TestDescriptorsAndHostsAreIndependent(t *testing.T) {
	h1, h2 := newHost(t), newHost(t)
	s1, _ := listenerScope(t, h1, "one")
	s2, _ := listenerScope(t, h2, "two")
	ev1, ev2 := host.NewNotify[int]("test/same-name"), host.NewNotify[int]("test/same-name")
	var j journal
	on(t, ev1, s1, record[int](&j, "ev1 on h1"))
	on(t, ev2, s1, record[int](&j, "ev2 on h1"))
	on(t, ev1, s2, record[int](&j, "ev1 on h2"))
	require.NoError(t, ev1.Emit(t.Context(), s1, 0))
	assert.Equal(t, []string{"ev1 on h1"}, j.take())
	require.NoError(t, ev2.Emit(t.Context(), h1.Root(), 0))
	assert.Equal(t, []string{"ev2 on h1"}, j.take())
	require.NoError(t, ev1.Emit(t.Context(), s2, 0))
	assert.Equal(t, []string{"ev1 on h2"}, j.take())
}

// host §1.5, §6 item 1 (Cordis #8): a listener is an effect of its
// instance: it goes when the instance unloads, and an effect registered by
// a listener belongs to the listener's instance.
func TestListenersBelongToTheirInstance(t *testing.T) {
	h := newHost(t)
	ev := host.NewNotify[int]("test/owned")
	var j journal
	inst := mount(t, h, define("owner", func(_ context.Context, s *host.Scope) error {
		_, err := ev.On(s, func(context.Context, int) error {
			j.add("listener ran")
			_, err := s.Effect("made by the listener", j.effect("made by the listener"))
			return err
		})
		return err
	}), nil)
	require.NoError(t, ev.Emit(t.Context(), h.Root(), 0))
	require.NoError(t, inst.Dispose(t.Context()))
	require.NoError(t, ev.Emit(t.Context(), h.Root(), 0))
	assert.Equal(t, []string{"listener ran", "dispose made by the listener"}, j.list())
	assert.Equal(t, host.Counts{}, h.Counts())
}

// host §6 item 16, §2.2: a wrong payload type is a compile error. The check
// builds a package that misuses typed descriptors, added to the module by a
// `go build -overlay` (nothing is written to the repository), and looks for
// the compiler's type errors.
func TestAWrongPayloadTypeDoesNotCompile(t *testing.T) {
	const src = `package wrongpayload

import (
	"context"

	"github.com/dsh-go/dsh/host"
)

var (
	observed = host.NewNotify[int]("test/observed")
	intent   = host.NewChain[int, string]("test/intent")
)

func emit(ctx context.Context, s *host.Scope) error { return observed.Emit(ctx, s, "seven") }

func listen(s *host.Scope) {
	_, _ = observed.On(s, func(context.Context, string) error { return nil })
}

func waterfall(ctx context.Context, s *host.Scope) {
	_, _ = intent.Waterfall(ctx, s, 1, func(context.Context) (int, error) { return 0, nil })
}
`
	wd, err := os.Getwd()
	require.NoError(t, err)
	tmp := t.TempDir()
	srcPath := filepath.Join(tmp, "wrongpayload.go")
	require.NoError(t, os.WriteFile(srcPath, []byte(src), 0o644))
	overlay, err := json.Marshal(map[string]map[string]string{
		"Replace": {filepath.Join(wd, "wrongpayload", "wrongpayload.go"): srcPath},
	})
	require.NoError(t, err)
	overlayPath := filepath.Join(tmp, "overlay.json")
	require.NoError(t, os.WriteFile(overlayPath, overlay, 0o644))

	cmd := exec.CommandContext(t.Context(), filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-overlay", overlayPath, "./wrongpayload")
	cmd.Dir = wd
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the misuse compiled:\n%s", out)
	for _, want := range []string{
		`cannot use "seven" (untyped string constant) as int value in argument to observed.Emit`,
		`(value of type func(context.Context, string) error) as host.NotifyFunc[int] value in argument to observed.On`,
		`(value of type func(context.Context) (int, error)) as host.Next[string] value in argument to intent.Waterfall`,
	} {
		assert.Contains(t, string(out), want)
	}
}
