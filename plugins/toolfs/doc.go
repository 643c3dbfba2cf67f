// Package toolfs is the `toolfs` plugin: the model-facing tools list, read,
// write and edit (contract §6) and their prompt sections. It injects the fs
// service (fsapi.Key) and the tool registry (tools.Key) and waits for both;
// it dispatches the intent waterfalls and emits fs/observed (package events)
// and never imports a provider or a policy.
//
// Everything the model sees is built here byte for byte: argument checks,
// the list and read envelopes with their footers, name quoting, line
// truncation and byte caps, the write and edit texts, the remedy suffixes
// of §6.5, and the diff metadata of §6.10.
package toolfs
