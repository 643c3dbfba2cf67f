// Package fslocal is the local-disk provider of the fs service (contract
// §3): the plugin `fslocal`, which provides [fsapi.Key] with a [Provider]
// that resolves paths to real-path targets, reads text (whole or streamed),
// lists directories, and writes and edits files atomically and durably under
// per-target locks. It imports the fs contract (fsapi) and the host, never
// another plugin.
//
// # Targets and versions
//
// A target's Key is the file's real path (symlinks resolved; for a file not
// yet created, the real path of its nearest existing ancestor plus the rest),
// so every spelling of one file shares one key, one lock and one policy
// entry (contract §3.2). A version is `dev:ino:size:mtimeNs:ctimeNs` from a
// followed stat, so a same-size rewrite is always seen (contract §3.3).
//
// # Writes
//
// Every write and edit runs under the FIFO lock of its key, then under an
// flock on the target's parent directory that other processes running this
// provider honour (two servers on one workspace lose no update; see
// oslock.go; on file systems without flock, such as some network mounts,
// only the in-process lock remains), and commits
// either in place (a file with several hard links, under "preserve") or by a
// staged replace: a staging file in the target's directory, fsynced, given
// the old mode and owner, renamed over the real path, and the directory
// fsynced. A crash at any point leaves the old or the new content, never a
// mix; a staging file left by a killed process is swept by the next write of
// that file (see staging.go for why a sweep rather than O_TMPFILE).
//
// # Confinement
//
// With Config.Root set, every key and every Lstat location must be the root
// or lie under it, judged on real locations: after `..`, symlinks in any
// component (including the last) and the chains of dangling links. Outside
// is FS_SANDBOX_DENIED, checked before any other failure so no error tells
// what lies outside. After Resolve, every operation goes through an os.Root
// handle, so a symlink swapped in between Resolve and the operation cannot
// lead outside.
//
// Limits, as for os.Root: confinement is by path, not by device or inode. A
// hard link inside the root to a file outside it, a bind mount, or a
// /proc/self/... path that reaches elsewhere is inside. Resolve itself reads
// links outside the root (lstat and readlink only, never content) to judge
// where they lead. The cross-process lock binds only processes that take
// it; any other program may still write the same file, which the versions
// then reveal, and a CreateIfAbsent write never clobbers a file it made.
//
// # Platform
//
// fslocal targets Unix (Linux first): it relies on POSIX rename, fsync of
// directories, flock and the Unix stat fields.
package fslocal
