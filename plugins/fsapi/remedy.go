package fsapi

import (
	"errors"
	"strings"
)

// The remedy suffixes of contract §6.5 ([D5]).
const (
	// remedyStale follows an FS_STALE_VERSION message.
	remedyStale = " — re-read the file, then retry"
	// remedyNotObserved follows an FS_NOT_OBSERVED message.
	remedyNotObserved = " — read the file, then retry"
	// remedyNotViewed follows an FS_NOT_OBSERVED message of the editor,
	// whose model reads files by `view`.
	remedyNotViewed = " — view the file, then retry"
)

// WithRemedy shapes the error of an intent waterfall or a provider
// mutation for the model (contract §6.5, [D5]): a coded FS_STALE_VERSION or
// FS_NOT_OBSERVED error whose text is its own message is re-raised with the
// same code, the original as its cause and the one action that recovers
// from it as a suffix, once; everything else (another code, an error
// wrapped in more text, an uncoded error, nil) passes through unchanged.
// The write and edit tools apply it.
func WithRemedy(err error) error { return withRemedy(err, remedyNotObserved) }

// WithViewRemedy is WithRemedy for str_replace_editor, whose model reads a
// file with `view`: FS_NOT_OBSERVED is followed by ` — view the file, then
// retry` in every deployment (a deviation from the reference, which says
// "read" even where the model has no read tool).
func WithViewRemedy(err error) error { return withRemedy(err, remedyNotViewed) }

// withRemedy is WithRemedy with notObserved as FS_NOT_OBSERVED's suffix.
func withRemedy(err error, notObserved string) error {
	var fe *Error
	if !errors.As(err, &fe) || err.Error() != fe.Message {
		return err
	}
	suffix := ""
	switch fe.Code {
	case CodeStaleVersion:
		suffix = remedyStale
	case CodeNotObserved:
		suffix = notObserved
	default:
		return err
	}
	if strings.HasSuffix(fe.Message, suffix) {
		return err
	}
	return &Error{Code: fe.Code, Op: fe.Op, Path: fe.Path, Message: fe.Message + suffix, Err: fe}
}
