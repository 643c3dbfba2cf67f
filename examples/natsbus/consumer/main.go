// Command consumer prints the audit trail of a fleet of dshhost servers
// (docs/fleet.md) as JSON lines: every CloudEvent natsbus stored in the
// audit stream, oldest first, exactly as stored, one a line. It stops at
// the end of the stream, or with -follow waits for more (across NATS
// restarts) until interrupted.
//
//	consumer -server nats://nats.example:4222 -creds audit.creds -follow
//	consumer -subject 'dsh.audit.build-7.>' -since 1h | jq 'select(.data.actor.tool == "edit")'
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "consumer:", err)
		os.Exit(2)
	}
}

// run prints the trail to out until the end of the stream (or, with
// -follow, until ctx ends).
func run(ctx context.Context, args []string, out io.Writer) error {
	fl := flag.NewFlagSet("consumer", flag.ContinueOnError)
	server := fl.String("server", nats.DefaultURL, "the NATS server(s), comma-separated")
	creds := fl.String("creds", "", "a NATS credentials file")
	tokenFile := fl.String("token-file", "", "a file holding a token (an embedded server's `token`)")
	stream := fl.String("stream", "DSH_AUDIT", "the audit stream (natsbus `audit.stream`)")
	subject := fl.String("subject", "", "only events on this subject filter, e.g. dsh.audit.build-7.>")
	since := fl.Duration("since", 0, "only events stored in this last span, e.g. 1h")
	follow := fl.Bool("follow", false, "wait for new events after the last")
	if err := fl.Parse(args); err != nil {
		return err
	}
	opts := []nats.Option{nats.Name("dsh audit consumer"), nats.MaxReconnects(-1)}
	if *creds != "" {
		opts = append(opts, nats.UserCredentials(*creds))
	}
	if *tokenFile != "" {
		tok, err := os.ReadFile(*tokenFile)
		if err != nil {
			return err
		}
		opts = append(opts, nats.Token(strings.TrimSpace(string(tok))))
	}
	nc, err := nats.Connect(*server, opts...)
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	cfg := jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy}
	if *subject != "" {
		cfg.FilterSubjects = []string{*subject}
	}
	if *since > 0 {
		t := time.Now().Add(-*since)
		cfg.DeliverPolicy, cfg.OptStartTime = jetstream.DeliverByStartTimePolicy, &t
	}
	// An ordered consumer delivers each stored event once, in order, and
	// recreates itself from where it was after a reconnect.
	cons, err := js.OrderedConsumer(ctx, *stream, cfg)
	if err != nil {
		return err
	}
	if !*follow {
		info, err := cons.Info(ctx)
		if err != nil {
			return err
		}
		if info.NumPending == 0 {
			return nil // an empty trail
		}
	}
	w := bufio.NewWriter(out)
	defer w.Flush()
	for {
		msg, err := cons.Next(jetstream.FetchContext(ctx))
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return nil
		case *follow:
			continue // a reconnect, a consumer recreated: go on
		default:
			return err
		}
		w.Write(msg.Data())
		w.WriteByte('\n')
		meta, err := msg.Metadata()
		if err != nil {
			return err
		}
		if meta.NumPending == 0 {
			if err := w.Flush(); err != nil || !*follow {
				return err // the end of the stream
			}
		}
	}
}
