//go:build !linux

package fslocal

import (
	"context"
	"os"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// mapMinSize is the file size from which a Linux stream maps the file; the
// other systems always read it.
const mapMinSize = 1 << 62

// scanMapped maps nothing outside Linux: ok is false and the caller reads
// the file with decodeText.
func scanMapped(context.Context, *os.File, int64, string, bool, func([]byte) bool) (fsapi.TextRest, bool, error) {
	return fsapi.TextRest{}, false, nil
}
