// Command guard is a remote guard for a fleet of dshhost servers on NATS
// (docs/fleet.md): it answers the intents natsbus asks about on
// <subject>.intent.> and refuses any write or edit of a path that matches
// a central list of patterns, whichever server asks. Run as many as you
// like: they share the work as a queue group.
//
//	guard -server nats://nats.example:4222 -creds guard.creds -list protected.txt
//
// The list has one pattern per line (doublestar: `**` spans directories;
// blank lines and lines starting with # are skipped), matched against the
// target's rel, the real path relative to the server's workspace, never
// its display path (a symlink or `..` reaches the same file under another
// name). A target outside the workspace (rel null) is left to the server's
// own confinement. An intent it cannot read is refused.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/nats-io/nats.go"

	"github.com/dsh-go/dsh/events/wire"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "guard:", err)
		os.Exit(2)
	}
}

// run serves until ctx ends; it logs each refusal to log.
func run(ctx context.Context, args []string, log io.Writer) error {
	fl := flag.NewFlagSet("guard", flag.ContinueOnError)
	server := fl.String("server", nats.DefaultURL, "the NATS server(s), comma-separated")
	creds := fl.String("creds", "", "a NATS credentials file")
	subject := fl.String("subject", "dsh", "the subject prefix of the servers (natsbus `subject`)")
	queue := fl.String("queue", "dsh-guards", "the queue group the guards share")
	list := fl.String("list", "", "the file of protected patterns, one per line")
	var extra patterns
	fl.Var(&extra, "protect", "a protected pattern (repeatable), besides the list")
	if err := fl.Parse(args); err != nil {
		return err
	}
	protected := []string(extra)
	if *list != "" {
		ps, err := readList(*list)
		if err != nil {
			return err
		}
		protected = append(protected, ps...)
	}
	for _, p := range protected {
		if !doublestar.ValidatePattern(p) {
			return fmt.Errorf("not a valid pattern: %q", p)
		}
	}
	opts := []nats.Option{nats.Name("dsh guard"), nats.MaxReconnects(-1), nats.RetryOnFailedConnect(true)}
	if *creds != "" {
		opts = append(opts, nats.UserCredentials(*creds))
	}
	nc, err := nats.Connect(*server, opts...)
	if err != nil {
		return err
	}
	defer nc.Close()
	sub, err := nc.QueueSubscribe(*subject+".intent.>", *queue, func(m *nats.Msg) {
		d := decide(protected, m.Subject, m.Data)
		if d.Decision == wire.Deny {
			fmt.Fprintf(log, "guard: %s from %s: %s\n", m.Subject, m.Header.Get("Dsh-Host"), d.Message)
		}
		answer, _ := json.Marshal(d)
		_ = m.Respond(answer)
	})
	if err != nil {
		return err
	}
	defer sub.Unsubscribe()
	if err := nc.Flush(); err != nil { // once flushed, the server has the subscription
		fmt.Fprintf(log, "guard: NATS is not reachable yet (%v); answering once it is\n", err)
	}
	fmt.Fprintf(log, "guard: answering %s.intent.> (queue %s) with %d protected patterns\n", *subject, *queue, len(protected))
	<-ctx.Done()
	return nil
}

// decide answers one intent: deny when its rel matches a pattern.
func decide(protected []string, subject string, data []byte) wire.Decision {
	var in wire.Intent
	if err := json.Unmarshal(data, &in); err != nil {
		return wire.Decision{Decision: wire.Deny, Message: "the guard cannot read this intent", Code: "CENTRAL_POLICY"}
	}
	if in.Target.Rel == nil {
		return wire.Decision{Decision: wire.Next}
	}
	verb := "change"
	switch {
	case strings.HasSuffix(subject, ".write-intent"):
		verb = "write"
	case strings.HasSuffix(subject, ".edit-intent"):
		verb = "edit"
	}
	for _, p := range protected {
		if doublestar.MatchUnvalidated(p, *in.Target.Rel) {
			return wire.Decision{Decision: wire.Deny, Code: "CENTRAL_POLICY",
				Message: fmt.Sprintf("cannot %s %q: %s is protected by the central policy (%s)", verb, in.Target.Path, *in.Target.Rel, p)}
		}
	}
	return wire.Decision{Decision: wire.Next}
}

// readList reads a list file: one pattern a line, # comments.
func readList(file string) ([]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out, sc.Err()
}

// patterns is a repeatable flag.
type patterns []string

func (p *patterns) String() string     { return strings.Join(*p, ",") }
func (p *patterns) Set(v string) error { *p = append(*p, v); return nil }
