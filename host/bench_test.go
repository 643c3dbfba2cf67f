package host_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/host/hosttest"
)

// benchScope mounts a plugin on a fresh host whose apply runs register and
// returns its scope.
func benchScope(b *testing.B, register func(s *host.Scope) error) *host.Scope {
	b.Helper()
	h := hosttest.New(b, host.WithLogger(slog.New(slog.DiscardHandler)))
	var scope *host.Scope
	inst, err := h.Plugin(context.Background(), host.Define("bench", func(_ context.Context, s *host.Scope, _ struct{}) error {
		scope = s
		return register(s)
	}), nil)
	if err != nil || inst.Err() != nil {
		b.Fatalf("mount: %v %v", err, inst.Err())
	}
	return scope
}

// BenchmarkEmit measures a top-level Emit, carried by EventBus (host §4.3
// expects about 1–2 µs per event). Target: at most 1.5 µs/op with one
// listener.
func BenchmarkEmit(b *testing.B) {
	for _, n := range []int{1, 10} {
		b.Run(fmt.Sprintf("listeners=%d", n), func(b *testing.B) {
			ev := host.NewNotify[int]("bench/emit")
			calls := 0
			s := benchScope(b, func(s *host.Scope) error {
				for range n {
					if _, err := ev.On(s, func(context.Context, int) error { calls++; return nil }); err != nil {
						return err
					}
				}
				return nil
			})
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if err := ev.Emit(ctx, s, 1); err != nil {
					b.Fatal(err)
				}
			}
			if calls == 0 {
				b.Fatal("no listener ran")
			}
		})
	}
}

var benchInner host.Next[int] = func(context.Context) (int, error) { return 1, nil }

// BenchmarkWaterfall measures a waterfall whose listeners all pass through
// to next. Target: at most 300 ns/op and 1 alloc/op with one listener.
func BenchmarkWaterfall(b *testing.B) {
	for _, n := range []int{0, 1, 3} {
		b.Run(fmt.Sprintf("listeners=%d", n), func(b *testing.B) {
			c := host.NewChain[int, int]("bench/waterfall")
			s := benchScope(b, func(s *host.Scope) error {
				for range n {
					if _, err := c.On(s, func(ctx context.Context, _ int, next host.Next[int]) (int, error) {
						return next(ctx)
					}); err != nil {
						return err
					}
				}
				return nil
			})
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if r, err := c.Waterfall(ctx, s, 1, benchInner); err != nil || r != 1 {
					b.Fatal(r, err)
				}
			}
		})
	}
}
