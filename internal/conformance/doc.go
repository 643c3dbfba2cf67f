// Package conformance reads the conformance cases of the filesystem tools
// (the format of testdata/cases.json's README: a workspace set-up, a
// sequence of tool calls in one conversation, their exact results and the files
// afterwards) and prepares and checks them on a real directory. Two tests use
// it: the in-process run against the real plugins and the run through
// `dshhost run`.
package conformance
