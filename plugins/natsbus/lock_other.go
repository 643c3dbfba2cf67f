//go:build natsbus && !unix

package natsbus

import "os"

// lockDir takes no lock where flock is missing: one embedded server per
// data directory is then the operator's to keep.
func lockDir(string) (*os.File, error) { return nil, nil }

func unlockDir(*os.File) error { return nil }
