// Package eol holds the byte-order-mark and line-ending views the fs stack
// shares: stripping one leading UTF-8 BOM, the LF view of CRLF text, the
// dominant-ending rule, and the position map from an LF view back to the raw
// text it was made from (contract §2.1, §3.7 step 6, §3.8 steps 6–8).
//
// It is pure text processing: no I/O, no fs types. fslocal builds its writes
// and edits with it; toolfs may use the same views for rendering.
//
// # Terms
//
// A CRLF pair is the two bytes CR LF. A bare LF is an LF not preceded by CR.
// A lone CR is a CR not followed by LF; it is never rewritten. The LF view of
// a text replaces every CRLF pair by one LF and keeps everything else.
package eol
