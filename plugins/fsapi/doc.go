// Package fsapi is the contract of the fs service (contract §2): the
// [FileSystem] interface and its optional capabilities ([Streamer],
// [ByteStreamer], [TextScanner], [Lstater], [RealPather], and the search
// tools' [Walker] and [Opener] of search.md §2), the vocabulary they speak
// ([Target], [Version], [Info], [DirEntry], intents, guards and outcomes)
// and the coded [Error] with every message template the stack raises.
//
// Providers such as fslocal implement FileSystem and provide it under [Key];
// consumers such as toolfs reach it through Key; neither imports the other.
// The package imports only the host runtime (for the key).
//
// # Errors
//
// Every model-visible message of contract §2.3 is built by a constructor in
// errors.go and nowhere else. Errors that carry no code pass through the
// stack as plain Go errors.
package fsapi
