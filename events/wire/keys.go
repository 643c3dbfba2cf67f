package wire

import (
	"fmt"
	"time"
)

// CheckKeys checks the keys every carrier entry has (§1–§2): timeout (a
// positive duration), onFailure (block or allow), queue and
// maxArgumentBytes (positive integers). It reports each problem to add
// with its key path, for the entry's Validate.
func CheckKeys(timeout time.Duration, onFailure OnFailure, queue, maxArgumentBytes int, add func(path, problem string)) {
	if timeout <= 0 {
		add("timeout", "must be a positive duration, e.g. 2s")
	}
	if !onFailure.Valid() {
		add("onFailure", fmt.Sprintf("must be block or allow, not %q", onFailure))
	}
	if queue < 1 {
		add("queue", "must be a positive integer")
	}
	if maxArgumentBytes < 1 {
		add("maxArgumentBytes", "must be a positive integer")
	}
}
