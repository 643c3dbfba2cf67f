// Package fsapitest is a conformance suite for providers of the fs service
// (contract §2, §3), in the manner of testing/fstest: any provider, the
// local one (fslocal) or an in-memory fake, runs [Run] from its own tests.
//
// The suite speaks only the seam: it builds every fixture through the
// provider itself (a create writes its content verbatim, contract §3.7 step
// 6), so it needs nothing but a fresh provider over an empty workspace. It
// checks the behaviour every provider shares: resolution of display paths,
// stat, read and stream, listings, the intents and guards, the check order
// of writes and edits, BOM and line-ending preservation, cancellation, and
// the serialisation of guarded writes. Platform matters (symlinks,
// permissions, confinement, durability) stay in the provider's own tests.
package fsapitest
