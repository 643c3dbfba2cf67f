//go:build !linux

package fslocal

import (
	"os"

	"golang.org/x/sys/unix"
)

// readTypedFD returns the entries of the open directory fd with their
// types, in directory order, through os.File.ReadDir on a duplicate of fd
// (the getdents64 reader is Linux only).
func readTypedFD(fd int) ([]typedName, error) {
	nfd, err := unix.Dup(fd)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(nfd), "")
	defer f.Close()
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
