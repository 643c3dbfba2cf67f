// Package toolfiles is the `toolfiles` plugin: the tools move, delete,
// mkdir and file_info, for agents whose clients have no shell (docs/tools.md
// "toolfiles"). It injects the `fs` and `tools` services and registers each
// tool whose provider capabilities the fs service has (fsapi.EntryResolver
// with fsapi.Mover, fsapi.Remover or fsapi.DirMaker) and whose config switch
// is on.
//
// The mutations go through the event API, never around it: move asks
// fs/remove-intent for its source and fs/write-intent for its destination,
// delete asks fs/remove-intent, mkdir runs the fs/write-intent guards for
// each directory it creates (ignoring the decider's answer, as the editor's
// create does), and each success emits fs/observed (the source or the
// deleted entry absent, the destination present). So the sandbox modes, the
// read-before-edit policy and every guard judge them as they judge writes.
// move and delete act on a symlink itself, never on its target.
package toolfiles
