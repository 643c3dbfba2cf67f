// Package wire is the event API on the wire (plugin-protocol.md §1–§2),
// shared by every carrier that takes events out of the process: exec (a
// child process on stdio) and a NATS carrier.
//
//   - The codec: the JSON shapes of a [Target] (display path, real path,
//     path relative to the workspace), an [Actor], the intents ([Intent],
//     with the call's arguments up to a bound), [Observed],
//     [Closed] and [ToolCall], built from the in-process payloads of
//     package events by a [Codec].
//   - The answers: [ParseDecision] reads an intent's `next` or `deny`,
//     [ParseToolResult] a tool's result; an answer of the wrong shape is a
//     *[BrokenAnswer].
//   - The failures (§2): a deny is a *[Denied], a plugin that cannot
//     answer is a *[Unavailable]; [OnFailure] says whether such a failure
//     blocks the call or lets it go on.
//   - The ordered guard list: [Join] puts a carrier entry in its host's
//     list, at the entry's place in deployment (mount) order. One listener,
//     prepended once on each intent chain while the list is not empty, runs
//     the entries' guards in that order, so a restarted entry keeps its
//     place and every wire guard runs before the in-process decider.
//     [States] reports each entry's state for `dshhost plugins`.
//   - The queue: [Queue] holds a carrier's notifications (§1), bounded,
//     dropping the oldest and counting the drops, which a carrier logs at
//     most once a minute ([Queue.DropsToReport]).
//
// It imports events, plugins/fsapi and host; carriers import it and never
// each other.
package wire
