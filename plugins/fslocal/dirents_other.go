//go:build !linux

package fslocal

import (
	"io/fs"
	"os"
)

// readTyped returns the entries of the open directory f with their types,
// through os.File.ReadDir (which, for a directory opened through an
// os.Root, lstats each entry; the getdents64 reader is Linux only).
func readTyped(f *os.File) ([]typedName, error) {
	des, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	out := make([]typedName, len(des))
	for i, de := range des {
		out[i] = typedName{name: de.Name(), typ: de.Type()}
	}
	return out, nil
}

// readTypedFD is Linux-only: elsewhere openRawDir never gives a descriptor,
// so it is never called.
func readTypedFD(int) ([]typedName, error) { return nil, errNoRawOpen }

// lstatTypeAt is Linux-only too, for the same reason.
func lstatTypeAt(int, string) fs.FileMode { return fs.ModeIrregular }
