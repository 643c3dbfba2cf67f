//go:build natsbus

// Package natsbus is the plugin `natsbus`: the event bus across machines
// on NATS (plugin-protocol.md §4, docs/fleet.md). It is compiled in only
// with the build tag `natsbus`; the default dshhost does not link NATS.
//
// An entry connects to a NATS system (`url`, with `credentials`) or runs
// an in-process single-node nats-server (`embedded: true`: no TCP port
// unless `listen:`, JetStream on a data directory outside the workspace),
// and then:
//
//   - publishes every fs/observed and conversation/closed to JetStream
//     (`audit`) as a CloudEvents 1.0 structured JSON event on
//     `<subject>.audit.<host>.<event>`, with Nats-Msg-Id set to the event's
//     id so that a retry is never stored twice. The tool call only pushes
//     onto a bounded queue (the oldest dropped and counted when full); a
//     publisher retries across NATS outages for at most 9 minutes, under
//     the stream's 10-minute duplicate window, then drops and counts. The
//     stream is created when absent.
//   - asks remote guards about the intents in `guards`: a NATS request on
//     `<subject>.intent.<event>` with the event's §1 params, answered by
//     a §1 decision from any responder (responders scale as a queue
//     group). It runs through the host's ordered wire-guard list
//     (events/wire), ahead of the in-process decider; no responders, a
//     timeout, a lost connection or a broken answer is a §2 failure that
//     `onFailure` decides.
//
// It imports host, events, events/wire and plugins/fsapi, and the NATS
// project's own modules (nats.go, nats-server/v2), never another plugin.
package natsbus
