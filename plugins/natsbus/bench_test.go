//go:build natsbus

package natsbus_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/events/wire"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// protectedPatterns is the central list of the comparison, as the
// example guard is given it.
var protectedPatterns = []string{"protected/**", "**/*.pem"}

// goGuardConfig is the in-process guard's config: the workspace its rel
// is taken against.
type goGuardConfig struct{ Workspace string }

// goGuard is the in-process Go guard of the comparison: the example
// guard's check (the target's rel against the list), prepended on the
// intents.
var goGuard = host.Define("goguard", func(_ context.Context, s *host.Scope, cfg goGuardConfig) error {
	fs := fsapi.Key.Must(s)
	codec := wire.Codec{Workspace: cfg.Workspace, RealPath: func(t fsapi.Target) (string, bool) { return fsapi.RealPath(fs, t) }}
	_, err := events.FSEditIntent.On(s, func(ctx context.Context, req events.IntentRequest, next host.Next[*fsapi.EditGuard]) (*fsapi.EditGuard, error) {
		if rel := codec.Target(req.Target).Rel; rel != nil {
			for _, p := range protectedPatterns {
				if doublestar.MatchUnvalidated(p, *rel) {
					return nil, &fsapi.Error{Code: "CENTRAL_POLICY", Message: "protected"}
				}
			}
		}
		return next(ctx)
	}, host.Prepend())
	return err
}, host.Inject(fsapi.Key))

// localGuard answers the intents from this process, on a connection of
// its own: the NATS round trip without a second process.
func localGuard(b *testing.B, url string) {
	nc := client(b, url)
	_, err := nc.QueueSubscribe("dsh.intent.>", "dsh-guards", func(m *nats.Msg) {
		var in wire.Intent
		_ = json.Unmarshal(m.Data, &in)
		d := wire.Decision{Decision: wire.Next}
		if in.Target.Rel != nil {
			for _, p := range protectedPatterns {
				if doublestar.MatchUnvalidated(p, *in.Target.Rel) {
					d = wire.Decision{Decision: wire.Deny, Message: "protected", Code: "CENTRAL_POLICY"}
				}
			}
		}
		raw, _ := json.Marshal(d)
		_ = m.Respond(raw)
	})
	if err != nil {
		b.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		b.Fatal(err)
	}
}

type benchSide struct {
	name string
	s    *stacktest.Stack
	conv *tools.Conversation
	from string
	t    time.Duration
}

// guardSides are the three stacks of the guard comparisons: the
// in-process Go guard; natsbus asking a guard in this process over
// loopback TCP; natsbus asking the example guard, another process.
func guardSides(b *testing.B, policy bool) []*benchSide {
	srv := natsServer(b, b.TempDir(), -1)
	url := srv.ClientURL()
	localURL := natsServer(b, b.TempDir(), -1).ClientURL()
	localGuard(b, localURL)
	startGuard(b, "-server", url, "-protect", protectedPatterns[0], "-protect", protectedPatterns[1])
	mk := func(name string, mount func(*stacktest.Stack)) *benchSide {
		return newSide(b, name, stacktest.Options{NoPolicy: !policy}, mount)
	}
	bus := func(url string) func(*stacktest.Stack) {
		return func(s *stacktest.Stack) {
			if inst := mountBus(b, s, map[string]any{"url": url, "guards": []any{"fs/edit-intent"}}); inst.State() != host.StateActive {
				b.Fatal(inst.Err())
			}
		}
	}
	return []*benchSide{
		mk("inprocess", func(s *stacktest.Stack) {
			if _, err := s.Host.Plugin(context.Background(), goGuard, goGuardConfig{Workspace: s.W}); err != nil {
				b.Fatal(err)
			}
		}),
		mk("natsbus-local", bus(localURL)),
		mk("natsbus-process", bus(url)),
	}
}

// newSide is a stack with mount applied and a.txt read in the
// conversation "bench", ready for editOnce.
func newSide(b *testing.B, name string, opts stacktest.Options, mount func(*stacktest.Stack)) *benchSide {
	s := stacktest.New(b, opts)
	mount(s)
	if err := os.WriteFile(filepath.Join(s.W, "a.txt"), []byte("alpha beta gamma\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	conv := s.Conversation("bench")
	if res := read(s, conv, "a.txt"); res.IsError {
		b.Fatal(res.Text())
	}
	return &benchSide{name: name, s: s, conv: conv, from: "beta"}
}

// report reports each side's mean per op and its ratio to the first.
func report(b *testing.B, sides []*benchSide, n int, unit string) {
	for _, sd := range sides {
		b.ReportMetric(float64(sd.t.Nanoseconds())/float64(n), "ns/"+unit+"-"+sd.name)
		if sd != sides[0] {
			b.ReportMetric(float64(sd.t)/float64(sides[0].t), sd.name+"/"+sides[0].name)
		}
	}
}

// BenchmarkIntentRoundTrip is plugin-protocol.md §5.4 for natsbus: one
// fs/edit-intent dispatch with an edit's arguments (the default
// continuation in place of fspolicy) with the in-process Go guard, with
// natsbus asking a responder in this process over loopback TCP, and with
// natsbus asking the example guard in its own process; each iteration
// dispatches once on each, alternating which goes first.
func BenchmarkIntentRoundTrip(b *testing.B) {
	sides := guardSides(b, false)
	reqs := make([]events.IntentRequest, len(sides))
	for i, sd := range sides {
		t, err := fsapi.Key.Must(sd.s.Host.Root()).Resolve(context.Background(), "src/main.go", fsapi.ResolveOptions{})
		if err != nil {
			b.Fatal(err)
		}
		exec := &tools.Exec{CallID: "0b5e4b6c-5f62-4d9a-9a47-3f1d2c8e7a10", Tool: "edit", Conv: sd.conv}
		reqs[i] = events.IntentRequest{Target: t, Actor: exec, Arguments: map[string]any{
			"file_path": "src/main.go", "old_string": "return nil", "new_string": "return fmt.Errorf(\"bad input: %w\", err)"}}
	}
	inner := func(context.Context) (*fsapi.EditGuard, error) { return nil, nil }
	n := 0
	for b.Loop() {
		for i := range sides {
			j := (i + n) % len(sides)
			sd := sides[j]
			start := time.Now()
			if _, err := events.FSEditIntent.Waterfall(context.Background(), sd.s.Host.Root(), reqs[j], inner); err != nil {
				b.Fatal(sd.name, ": ", err)
			}
			sd.t += time.Since(start)
		}
		n++
	}
	report(b, sides, n, "intent")
}

// BenchmarkGuardRoundTrip: the same edit of a small file through the
// registry (the default stack, read-before-edit on; the edit fsyncs) on
// the three stacks of BenchmarkIntentRoundTrip.
func BenchmarkGuardRoundTrip(b *testing.B) {
	sides := guardSides(b, true)
	n := 0
	for b.Loop() {
		for i := range sides {
			editOnce(b, sides[(i+n)%len(sides)])
		}
		n++
	}
	report(b, sides, n, "edit")
}

// editOnce swaps beta and delta in a.txt on sd, timing the call.
func editOnce(b *testing.B, sd *benchSide) {
	to := map[string]string{"beta": "delta", "delta": "beta"}[sd.from]
	args, _ := json.Marshal(map[string]string{"file_path": "a.txt", "old_string": sd.from, "new_string": to})
	start := time.Now()
	res := sd.s.Registry.Execute(context.Background(), "edit", args, &tools.Exec{Conv: sd.conv})
	sd.t += time.Since(start)
	if res.IsError {
		b.Fatal(sd.name, ": ", res.Text())
	}
	sd.from = to
}

// BenchmarkAuditPerCall is the cost of audit publishing per call (§5.4):
// the same edit (the default stack; each edit emits one fs/observed) with
// no natsbus, with natsbus publishing to a nats-server in this process
// over loopback TCP, and with natsbus on its embedded server (the one
// machine default: JetStream in the same process); each iteration edits
// once on each, alternating which goes first. A side's time is its calls'
// plus, at the end, the wait until its stream holds every event, so the
// figure is the whole cost of publishing, not only the queue push; the
// calls alone are reported as ns/call-*.
func BenchmarkAuditPerCall(b *testing.B) {
	url := natsServer(b, b.TempDir(), -1).ClientURL()
	nc := client(b, url)
	mk := func(name string, raw map[string]any) *benchSide {
		return newSide(b, name, stacktest.Options{}, func(s *stacktest.Stack) {
			if raw == nil {
				return
			}
			if inst := mountBus(b, s, raw); inst.State() != host.StateActive {
				b.Fatal(inst.Err())
			}
		})
	}
	dir := filepath.Join(b.TempDir(), "nats")
	sides := []*benchSide{
		mk("none", nil),
		mk("natsbus-tcp", map[string]any{"url": url, "audit": map[string]any{}, "queue": 1 << 20}),
		mk("natsbus-embedded", map[string]any{"embedded": true, "dataDir": dir, "listen": "127.0.0.1:0", "audit": map[string]any{}, "queue": 1 << 20}),
	}
	tok, err := os.ReadFile(filepath.Join(dir, "token"))
	if err != nil {
		b.Fatal(err)
	}
	addr := regexp.MustCompile(`listening on ([^)]+)\)`).FindStringSubmatch(stateOf(sides[2].s).Process)[1]
	enc, err := nats.Connect("nats://"+addr, nats.Token(strings.TrimSpace(string(tok))))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(enc.Close)
	streams := map[string]*nats.Conn{"natsbus-tcp": nc, "natsbus-embedded": enc}
	msgs := func(c *nats.Conn) uint64 {
		js, _ := jetstream.New(c)
		st, err := js.Stream(context.Background(), "DSH_AUDIT")
		if err != nil {
			return 0
		}
		info, err := st.Info(context.Background())
		if err != nil {
			return 0
		}
		return info.State.Msgs
	}
	base := map[string]uint64{}
	for name, c := range streams {
		base[name] = msgs(c)
	}
	calls := make([]time.Duration, len(sides))
	n := 0
	for b.Loop() {
		for i := range sides {
			j := (i + n) % len(sides)
			editOnce(b, sides[j])
		}
		n++
	}
	for i, sd := range sides {
		calls[i] = sd.t
		c, ok := streams[sd.name]
		if !ok {
			continue
		}
		start := time.Now()
		for msgs(c) < base[sd.name]+uint64(n) {
			time.Sleep(time.Millisecond)
		}
		sd.t += time.Since(start)
	}
	report(b, sides, n, "edit")
	for i, sd := range sides {
		b.ReportMetric(float64(calls[i].Nanoseconds())/float64(n), "ns/call-"+sd.name)
	}
}
