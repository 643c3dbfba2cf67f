// Package protectedpaths is an example third-party plugin, built only on the
// public API: the plugin `protectedpaths` refuses every write, edit and
// removal (a delete, or a move's source or destination) whose target matches one of the configured glob patterns, with the coded error
// PATH_PROTECTED (see [Error]). Reads and lists are not affected.
//
// It is a guard, not a decider (contract §1.1): its listeners on
// fs/write-intent, fs/edit-intent and fs/remove-intent (package events) are
// prepended, so they
// run before fspolicy whatever the mount order, and either fail or call next
// and return its result unchanged. The read-before-edit policy therefore
// still decides every write and edit the guard lets through.
//
// # Patterns
//
// A pattern is a slash-separated path whose segments use [path.Match]
// syntax (`*`, `?`, `[a-z]`, `\` escapes); a segment that is exactly `**`
// matches any number of segments, none included. Patterns are cleaned like
// paths (`a/./b` is `a/b`). A pattern that matches a directory protects
// everything beneath it: `secrets` protects `secrets/key.pem`. A relative
// pattern is taken against the fs provider's own cwd (for dshhost, the
// workspace).
//
// # Symlinks
//
// The plugin injects the fs service (plugins/fsapi.Key). At apply it
// resolves the literal leading segments of every pattern through the
// service, so each pattern has a display form and, when the provider
// implements [fsapi.RealPather], a real form. A target is protected when its
// display path or its real location ([fsapi.RealPath]) matches either form,
// so neither a symlink to a protected file nor a workspace reached through a
// symlink bypasses a rule. Like fslocal's confinement, matching is by path:
// a hard link to a protected file under another name is not protected.
//
// It imports host, events and plugins/fsapi, never another plugin.
package protectedpaths
