// Package docs holds no code: it is the user documentation of dshhost
// (architecture.md, events.md, writing-a-plugin.md, configuration.md,
// sandbox-modes.md). Its tests check the pages against the code, so they
// cannot drift apart: every
// config key of every registered plugin (the built-in ones and the
// examples) is listed in its section of configuration.md with its default,
// README.md links every page, relative links resolve, the Go excerpts of the
// guide are still verbatim in the example files, the import table of
// architecture.md matches the imports, the example plugins use only the
// public API, and every package has a package doc comment.
package docs
