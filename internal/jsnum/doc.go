// Package jsnum prints numbers as JavaScript's Number.prototype.toString
// does (contract §6.7.1), the form offsets take in the tools' messages and
// footers. The read and list tools (toolfs) and the search tools
// (toolsearch, search.md §4.6) share it.
package jsnum
