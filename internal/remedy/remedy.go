// Package remedy shapes the errors of an intent waterfall or a provider
// mutation for the model (contract §6.5, [D5]): the two failures a model
// causes most often carry the one action that recovers from them.
package remedy

import (
	"errors"
	"strings"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// The remedy suffixes of contract §6.5 ([D5]).
const (
	// Stale follows an FS_STALE_VERSION message.
	Stale = " — re-read the file, then retry"
	// NotObserved follows an FS_NOT_OBSERVED message.
	NotObserved = " — read the file, then retry"
)

// Shape re-raises a coded FS_STALE_VERSION or FS_NOT_OBSERVED error whose
// text is its own message with the same code, the original as its cause and
// the remedy suffix, once; everything else (another code, an error wrapped
// in more text, an uncoded error, nil) passes through unchanged. Contract
// §6.5.
func Shape(err error) error {
	var fe *fsapi.Error
	if !errors.As(err, &fe) || err.Error() != fe.Message {
		return err
	}
	suffix := ""
	switch fe.Code {
	case fsapi.CodeStaleVersion:
		suffix = Stale
	case fsapi.CodeNotObserved:
		suffix = NotObserved
	default:
		return err
	}
	if strings.HasSuffix(fe.Message, suffix) {
		return err
	}
	return &fsapi.Error{Code: fe.Code, Op: fe.Op, Path: fe.Path, Message: fe.Message + suffix, Err: fe}
}
