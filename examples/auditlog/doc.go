// Package auditlog is an example third-party plugin, built only on the
// public API: the plugin `auditlog` appends one JSON line per fs/observed
// event (a successful read, write or edit, or a read that found no file) to
// a file, as a [Record].
//
// # Why a queue
//
// fs/observed listeners must be synchronous recorders: no I/O, no blocking,
// no emitting of fs events (contract §1.1). So the listener only builds the
// record and offers it to a bounded queue, without waiting; one goroutine
// owned by the plugin's scope (host.Scope.Go) drains the queue and appends
// to the file. A full queue drops the record and counts it. A file that
// cannot be opened or written never slows or fails a tool call: the first
// failure is reported once through the scope's logger, the writer keeps
// trying on later records, and the records in between are counted as lost.
// When the plugin is disposed, the listener goes first, then the writer
// appends everything still queued, closes the file and logs how many records
// were dropped or lost, if any.
//
// It imports host, events and plugins/fsapi, never another plugin.
package auditlog
