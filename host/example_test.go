package host_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/dsh-go/dsh/host"
)

// quietHost returns a host that logs nothing, so examples print only their
// own output.
func quietHost() *host.Host {
	return host.New(host.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
}

// GreeterConfig is the config of the greeter plugin in ExampleDefine.
type GreeterConfig struct {
	// Greeting is what the greeter says. Default "hello".
	Greeting string `json:"greeting"`
	// Times is how often it says it. Default 1; at least 1.
	Times int `json:"times"`
}

// Validate is called after decoding, before apply.
func (c GreeterConfig) Validate() error {
	if c.Times < 1 {
		return &host.ConfigError{Issues: []host.ConfigIssue{{Path: "times", Problem: "must be at least 1"}}}
	}
	return nil
}

// A plugin is defined once, with its config type; each mount is an
// instance whose typed config is validated before apply (the config package
// decodes deployment files into it).
func ExampleDefine() {
	greeter := host.Define("greeter", func(ctx context.Context, s *host.Scope, cfg GreeterConfig) error {
		fmt.Println(s.Instance().ID()+":", strings.TrimSpace(strings.Repeat(cfg.Greeting+" ", cfg.Times)))
		_, err := s.Effect("goodbye", func(context.Context) error {
			fmt.Println(s.Instance().ID()+":", "goodbye")
			return nil
		})
		return err
	}, host.Defaults(func() GreeterConfig { return GreeterConfig{Greeting: "hello", Times: 1} }))

	h := quietHost()
	ctx := context.Background()
	_, _ = h.Plugin(ctx, greeter, nil)
	_, _ = h.Plugin(ctx, greeter, GreeterConfig{Greeting: "hello", Times: 2})
	bad, _ := h.Plugin(ctx, greeter, GreeterConfig{Greeting: "hello", Times: 0})
	fmt.Println(bad.State(), bad.Err())
	_ = h.Shutdown(ctx)
	// Output:
	// greeter: hello
	// greeter#2: hello hello
	// FAILED plugin "greeter": invalid config: times: must be at least 1
	// greeter#2: goodbye
	// greeter: goodbye
}

// Clock is the service of ExampleKey_Provide.
type Clock interface{ Now() string }

type fixedClock string

func (c fixedClock) Now() string { return string(c) }

// A consumer injects a service and waits, PENDING, until a provider is
// ACTIVE; when the provider goes away the consumer unloads first and waits
// again.
func ExampleKey_Provide() {
	clockKey := host.NewKey[Clock]("clock")
	clock := host.Define("clock", func(_ context.Context, s *host.Scope, _ struct{}) error {
		_, err := clockKey.Provide(s, fixedClock("12:00"))
		return err
	}, host.Provides(clockKey))
	reporter := host.Define("reporter", func(_ context.Context, s *host.Scope, _ struct{}) error {
		fmt.Println("reporter: it is", clockKey.Must(s).Now())
		_, err := s.Effect("stop", func(context.Context) error { fmt.Println("reporter: stopped"); return nil })
		return err
	}, host.Inject(clockKey))

	h := quietHost()
	ctx := context.Background()
	r, _ := h.Plugin(ctx, reporter, nil)
	fmt.Println(r.State(), r.Missing())
	c, _ := h.Plugin(ctx, clock, nil)
	fmt.Println(r.State())
	_ = c.Dispose(ctx)
	fmt.Println(r.State(), r.Missing())
	_ = h.Shutdown(ctx)
	// Output:
	// PENDING [clock]
	// reporter: it is 12:00
	// ACTIVE
	// reporter: stopped
	// PENDING [clock]
}

// Emit runs every listener in order, even after one fails, and returns the
// failures joined.
func ExampleNotify_Emit() {
	saved := host.NewNotify[string]("doc/saved")
	h := quietHost()
	ctx := context.Background()
	_, _ = h.Plugin(ctx, host.Define("listeners", func(_ context.Context, s *host.Scope, _ struct{}) error {
		_, _ = saved.On(s, func(_ context.Context, name string) error {
			fmt.Println("indexer saw", name)
			return errors.New("index is full")
		})
		_, _ = saved.On(s, func(_ context.Context, name string) error {
			fmt.Println("audit saw", name)
			return nil
		})
		_, err := saved.On(s, func(_ context.Context, name string) error {
			fmt.Println("first saw", name)
			return nil
		}, host.Prepend())
		return err
	}), nil)
	err := saved.Emit(ctx, h.Root(), "notes.txt")
	fmt.Println("emit:", err)
	_ = h.Shutdown(ctx)
	// Output:
	// first saw notes.txt
	// indexer saw notes.txt
	// audit saw notes.txt
	// emit: index is full
}

// A waterfall is nested middleware around a default: the first listener is
// the outermost; a listener transforms next's result, decides by not calling
// next, or rejects with an error.
func ExampleChain_Waterfall() {
	lookup := host.NewChain[string, string]("doc/lookup")
	h := quietHost()
	ctx := context.Background()
	_, _ = h.Plugin(ctx, host.Define("middleware", func(_ context.Context, s *host.Scope, _ struct{}) error {
		_, _ = lookup.On(s, func(ctx context.Context, key string, next host.Next[string]) (string, error) {
			out, err := next(ctx)
			return strings.ToUpper(out), err // transforms
		})
		_, _ = lookup.On(s, func(ctx context.Context, key string, next host.Next[string]) (string, error) {
			if key == "secret" {
				return "", errors.New("access denied") // rejects
			}
			if key == "cached" {
				return "from cache", nil // decides
			}
			return next(ctx)
		})
		return nil
	}), nil)
	fromDisk := func(context.Context) (string, error) { return "from disk", nil }
	for _, key := range []string{"plain", "cached", "secret"} {
		out, err := lookup.Waterfall(ctx, h.Root(), key, fromDisk)
		fmt.Printf("%s: %q %v\n", key, out, err)
	}
	_ = h.Shutdown(ctx)
	// Output:
	// plain: "FROM DISK" <nil>
	// cached: "FROM CACHE" <nil>
	// secret: "" access denied
}
