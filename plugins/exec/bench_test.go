package exec_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// secretShapes is what the in-process guard looks for in the arguments:
// the shapes no_secrets.py looks for.
var secretShapes = regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b|\bgh[pousr]_[A-Za-z0-9]{36,}|\bgithub_pat_\w{22,}|\bxox[abprs]-[A-Za-z0-9-]{10,}|\bsk-[A-Za-z0-9_-]{20,}|\bsk_live_[A-Za-z0-9]{24,}|\bAIza[0-9A-Za-z_-]{35}`)

// goGuard is the in-process Go guard of the comparison: the same checks as
// the exec guards (the target's real base name, the arguments' strings),
// prepended on fs/edit-intent.
var goGuard = host.Define("goguard", func(_ context.Context, s *host.Scope, _ struct{}) error {
	fs := fsapi.Key.Must(s)
	_, err := events.FSEditIntent.On(s, func(ctx context.Context, req events.IntentRequest, next host.Next[*fsapi.EditGuard]) (*fsapi.EditGuard, error) {
		real, _ := fsapi.RealPath(fs, req.Target)
		if base := path.Base(real); strings.HasPrefix(base, ".env") || strings.HasSuffix(base, ".pem") || strings.HasPrefix(base, "id_rsa") {
			return nil, &fsapi.Error{Code: "SECRET_FILE", Message: "protected"}
		}
		for _, v := range req.Arguments {
			if s, ok := v.(string); ok && secretShapes.MatchString(s) {
				return nil, &fsapi.Error{Code: "SECRET_CONTENT", Message: "a secret"}
			}
		}
		return next(ctx)
	}, host.Prepend())
	return err
}, host.Inject(fsapi.Key))

// pythonGuard returns what mounts the Python example guard
// (examples/exec/no_secrets.py) on a stack, or nil without python3.
func pythonGuard(b *testing.B) func(*stacktest.Stack) {
	py, err := exec.LookPath("python3")
	if err != nil {
		b.Log("python3 is not on PATH: the Python guard is left out")
		return nil
	}
	script, _ := filepath.Abs("../../examples/exec/no_secrets.py")
	return func(s *stacktest.Stack) {
		cfg := config(b, s, "")
		cfg.Command, cfg.Env = []string{py, script}, nil
		if inst := mount(b, s, "p", cfg); inst.State() != host.StateActive {
			b.Fatal(inst.Err())
		}
	}
}

// BenchmarkGuardRoundTrip is plugin-protocol.md §5.4: the same edit of a
// small file through the registry (the default stack, read-before-edit
// on) with an in-process Go guard, with an exec guard in Go (this test
// binary as the child: the protocol's own cost) and, when python3 is
// there, with the Python example guard (examples/exec/no_secrets.py);
// each iteration edits once on each stack, alternating which goes first.
// It reports the mean time of each edit and the ratios to the in-process
// guard, measured in the same run.
func BenchmarkGuardRoundTrip(b *testing.B) {
	type side struct {
		name string
		s    *stacktest.Stack
		conv *tools.Conversation
		from string
		t    time.Duration
	}
	mk := func(name string, mount func(*stacktest.Stack)) *side {
		s := stacktest.New(b, stacktest.Options{})
		mount(s)
		conv := s.Conversation("bench")
		if err := os.WriteFile(filepath.Join(s.W, "a.txt"), []byte("alpha beta gamma\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		if res := s.Call(context.Background(), conv, "read", `{"file_path":"a.txt"}`); res.IsError {
			b.Fatal(res.Text())
		}
		return &side{name: name, s: s, conv: conv, from: "beta"}
	}
	sides := []*side{
		mk("inprocess", func(s *stacktest.Stack) {
			if _, err := s.Host.Plugin(context.Background(), goGuard, nil); err != nil {
				b.Fatal(err)
			}
		}),
		mk("exec-go", func(s *stacktest.Stack) {
			cfg := config(b, s, "guard", "DSH_EXEC_EVENTS", "fs/edit-intent")
			if inst := mount(b, s, "g", cfg); inst.State() != host.StateActive {
				b.Fatal(inst.Err())
			}
		}),
	}
	if py := pythonGuard(b); py != nil {
		sides = append(sides, mk("exec-python", py))
	}
	edit := func(sd *side) {
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
	n := 0
	for b.Loop() {
		for i := range sides {
			edit(sides[(i+n)%len(sides)])
		}
		n++
	}
	base := sides[0].t
	for _, sd := range sides {
		b.ReportMetric(float64(sd.t.Nanoseconds())/float64(n), "ns/edit-"+sd.name)
		if sd != sides[0] {
			b.ReportMetric(float64(sd.t)/float64(base), sd.name+"/inprocess")
		}
	}
}

// BenchmarkIntentRoundTrip isolates the guard: one fs/edit-intent
// dispatch with an edit's arguments, the default continuation in place of
// fspolicy, on the same three stacks as BenchmarkGuardRoundTrip; each
// iteration dispatches once on each, alternating which goes first. The
// difference to the in-process guard is the round trip to the child: the
// encoding, two pipe writes and reads, and the child's decoding and
// answer.
func BenchmarkIntentRoundTrip(b *testing.B) {
	type side struct {
		name string
		s    *stacktest.Stack
		req  events.IntentRequest
		t    time.Duration
	}
	mk := func(name string, mount func(*stacktest.Stack)) *side {
		s := stacktest.New(b, stacktest.Options{NoPolicy: true})
		mount(s)
		t, err := fsapi.Key.Must(s.Host.Root()).Resolve(context.Background(), "src/main.go", fsapi.ResolveOptions{})
		if err != nil {
			b.Fatal(err)
		}
		exec := &tools.Exec{CallID: "0b5e4b6c-5f62-4d9a-9a47-3f1d2c8e7a10", Tool: "edit", Conv: s.Conversation("stdio/c/bench")}
		return &side{name: name, s: s, req: events.IntentRequest{Target: t, Actor: exec, Arguments: map[string]any{
			"file_path": "src/main.go", "old_string": "return nil", "new_string": "return fmt.Errorf(\"bad input: %w\", err)"}}}
	}
	sides := []*side{mk("inprocess", func(s *stacktest.Stack) {
		if _, err := s.Host.Plugin(context.Background(), goGuard, nil); err != nil {
			b.Fatal(err)
		}
	}), mk("exec-go", func(s *stacktest.Stack) {
		if inst := mount(b, s, "g", config(b, s, "guard", "DSH_EXEC_EVENTS", "fs/edit-intent")); inst.State() != host.StateActive {
			b.Fatal(inst.Err())
		}
	})}
	if py := pythonGuard(b); py != nil {
		sides = append(sides, mk("exec-python", py))
	}
	inner := func(context.Context) (*fsapi.EditGuard, error) { return nil, nil }
	n := 0
	for b.Loop() {
		for i := range sides {
			sd := sides[(i+n)%len(sides)]
			start := time.Now()
			if _, err := events.FSEditIntent.Waterfall(context.Background(), sd.s.Host.Root(), sd.req, inner); err != nil {
				b.Fatal(sd.name, ": ", err)
			}
			sd.t += time.Since(start)
		}
		n++
	}
	for _, sd := range sides {
		b.ReportMetric(float64(sd.t.Nanoseconds())/float64(n), "ns/intent-"+sd.name)
		if sd != sides[0] {
			b.ReportMetric(float64(sd.t)/float64(sides[0].t), sd.name+"/inprocess")
		}
	}
}
