// Package fspolicy enforces read-before-edit by listening to the fs
// events (contract §4): it records what each session observed of each
// target (fs/observed) and decides the intent of every write
// (fs/write-intent), the guard of every edit (fs/edit-intent) and of every
// removal of a file (fs/remove-intent: a delete, a move's source; a
// directory or a symlink needs no read) from it. It
// provides no service and imports no other plugin; without it the tools call
// the bare provider, unconditionally.
//
// It must be the first decider on the intent events: mount it before any
// other plugin that decides them. Guards (vetoes that otherwise call next)
// may be prepended before it.
package fspolicy
