// Package toolsearch is the `toolsearch` plugin: the model-facing search
// tools glob (find files by path pattern) and grep (search file contents)
// of search.md, with their prompt sections. It injects the fs service
// (fsapi.Key) and the tool registry (tools.Key) and waits for both, as
// toolfs does; it needs the fs service's optional Walker and Opener
// capabilities (search.md §2) and fails every call with SEARCH_FAILED
// without them. It imports no other plugin and emits no fs event.
//
// Everything the model sees is built here byte for byte: the argument
// checks (§5.2, §6.2), the result texts and footers (§5.5, §6.7), and the
// search errors (§4.9). The pattern language is in globsyntax.go; the
// ignore files are read and matched by internal/gitignore, and stacked
// along a walk in ignorestack.go.
package toolsearch
