// Package checkpoint is the `checkpoint` plugin: every change the tools
// make to a file can be rewound (docs/checkpoints.md).
//
// It is built on the event API alone. A guard on each intent chain
// (fs/write-intent, fs/edit-intent, fs/remove-intent) calls next and, when
// the chain allowed the mutation, copies the target's current bytes (or
// notes its absence); the fs/observed listener records the version the
// mutation left, without I/O. The copies of one call form one step of its
// conversation's timeline, which a worker writes, through a bounded queue,
// to a content-addressed store outside the workspace, numbered per
// workspace under a lock that other processes share. The tools
// `checkpoints` and `rewind` list and rewind a conversation's steps; the
// CLI's `dshhost checkpoints` and `dshhost rewind` do the same for every
// conversation, through the [Key] service.
//
// What it does not capture: changes made outside the tools, directories
// (mkdir, a moved directory), symlinks and special files.
package checkpoint
