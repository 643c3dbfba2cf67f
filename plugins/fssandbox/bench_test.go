package fssandbox_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/internal/stacktest"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// BenchmarkWrite measures the cost of the sandbox per write: each iteration
// overwrites a small file once through the default stack without fssandbox
// and once with it (workspace-write over W, so the guard computes the real
// location and compares it with the root), alternating which goes first. It
// reports the mean time of each and their ratio, measured in the same run.
func BenchmarkWrite(b *testing.B) {
	without := stacktest.New(b, stacktest.Options{})
	with := stacktest.New(b, stacktest.Options{FSSandbox: map[string]any{}})
	args := json.RawMessage(`{"file_path":"sub/bench.txt","content":"one line of text\n"}`)
	run := func(s *stacktest.Stack, exec *tools.Exec) time.Duration {
		start := time.Now()
		if res := s.Registry.Execute(b.Context(), "write", args, exec); res.IsError {
			b.Fatal(res.Text())
		}
		return time.Since(start)
	}
	ea, eb := &tools.Exec{Conv: without.Conversation("bench")}, &tools.Exec{Conv: with.Conversation("bench")}
	var tWithout, tWith time.Duration
	n := 0
	for b.Loop() {
		if n%2 == 0 {
			tWithout += run(without, ea)
			tWith += run(with, eb)
		} else {
			tWith += run(with, eb)
			tWithout += run(without, ea)
		}
		n++
	}
	b.ReportMetric(float64(tWithout.Nanoseconds())/float64(n), "ns/write-without")
	b.ReportMetric(float64(tWith.Nanoseconds())/float64(n), "ns/write-with")
	b.ReportMetric(float64(tWith)/float64(tWithout), "with/without")
}

// BenchmarkIntent isolates the guard: each iteration times 100
// fs/write-intent dispatches on the default stack without fssandbox and 100
// with it (workspace-write, a target inside the root), reaching fspolicy
// either way, alternating which goes first; it reports the mean time of one
// dispatch of each and their ratio.
func BenchmarkIntent(b *testing.B) {
	type side struct {
		s   *stacktest.Stack
		req events.IntentRequest
	}
	mk := func(cfg map[string]any) side {
		s := stacktest.New(b, stacktest.Options{FSSandbox: cfg})
		fs, _ := fsapi.Key.Get(s.Host.Root())
		target, err := fs.Resolve(b.Context(), "sub/bench.txt", fsapi.ResolveOptions{})
		if err != nil {
			b.Fatal(err)
		}
		return side{s, events.IntentRequest{Target: target, Actor: &tools.Exec{Conv: s.Conversation("bench")}}}
	}
	without, with := mk(nil), mk(map[string]any{})
	inner := func(context.Context) (*fsapi.WriteIntent, error) { return nil, nil }
	const batch = 100
	run := func(x side) time.Duration {
		start := time.Now()
		for range batch {
			if _, err := events.FSWriteIntent.Waterfall(b.Context(), x.s.Host.Root(), x.req, inner); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(start)
	}
	var tWithout, tWith time.Duration
	n := 0
	for b.Loop() {
		if n%2 == 0 {
			tWithout += run(without)
			tWith += run(with)
		} else {
			tWith += run(with)
			tWithout += run(without)
		}
		n++
	}
	b.ReportMetric(float64(tWithout.Nanoseconds())/float64(n*batch), "ns/intent-without")
	b.ReportMetric(float64(tWith.Nanoseconds())/float64(n*batch), "ns/intent-with")
	b.ReportMetric(float64(tWith)/float64(tWithout), "with/without")
}
