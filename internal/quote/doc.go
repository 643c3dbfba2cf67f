// Package quote renders names and paths for model-visible text the way
// contract §6.6.5 (`renderName`) prescribes: verbatim when harmless, else in
// a quoted JSON-string form that cannot forge extra lines or tags. The list
// tool (toolfs) and the search tools (toolsearch, search.md §4.3) share it.
package quote
