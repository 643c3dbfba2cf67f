package fsapi

// CodeWriteFailed is FS_WRITE_FAILED: an in-place rewrite of a hard-linked
// file failed (contract §2.3, §3.7 [D9+]).
const CodeWriteFailed Code = "FS_WRITE_FAILED"

// ErrWriteNotChanged is FS_WRITE_FAILED `cannot <op> "<p>": <reason>; the
// file was not changed`, op "write" or "edit": an in-place rewrite failed
// before the original was touched (staging, reservation). reason is the
// cause's text, for example "no space left on device" (contract §3.7
// [D9+]).
func ErrWriteNotChanged(op, p, reason string, cause error) *Error {
	return cannot(CodeWriteFailed, op, p, reason+"; the file was not changed", cause)
}

// ErrWriteRestored is FS_WRITE_FAILED `cannot <op> "<p>": <reason>; the file
// was restored`: an in-place rewrite failed after touching the original,
// whose bytes were copied back from a durable copy (contract §3.7 [D9+]).
func ErrWriteRestored(op, p, reason string, cause error) *Error {
	return cannot(CodeWriteFailed, op, p, reason+"; the file was restored", cause)
}

// ErrInterruptedRewrite is FS_WRITE_FAILED `cannot <op> "<p>": an
// interrupted rewrite left a copy of its new content in "<copy>"; the file
// was not changed`: a killed in-place rewrite left a marked copy that cannot
// be applied, because the target changed since (contract §3.7 [D9+]). copy
// is the copy's display path.
func ErrInterruptedRewrite(op, p, copy string) *Error {
	return cannot(CodeWriteFailed, op, p, `an interrupted rewrite left a copy of its new content in "`+Display(copy)+`"; the file was not changed`, nil)
}
