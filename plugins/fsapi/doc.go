// Package fsapi is the contract of the fs service (contract §2): the
// [FileSystem] interface and its optional capabilities ([Streamer],
// [ByteStreamer], [Lstater], [RealPather], and the search
// tools' [Walker] and [Opener] of search.md §2), the vocabulary they speak
// ([Target], [Version], [Info], [DirEntry], intents, guards and outcomes)
// and the coded [Error] with every message template the stack raises.
//
// Providers such as fslocal implement FileSystem and provide it under [Key];
// consumers such as toolfs reach it through Key; neither imports the other.
// The package imports the host runtime (for the key) and internal/quote
// (the [D11] replacement of invalid UTF-8 that [Display] applies).
//
// # Errors
//
// Every model-visible message of contract §2.3 is built by a constructor in
// errors.go and nowhere else. Errors that carry no code pass through the
// stack as plain Go errors.
package fsapi
