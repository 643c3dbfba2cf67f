//go:build !linux

package fslocal

// dirSnapshots remembers nothing here: openRawDir never gives a descriptor
// off Linux, so readDir is never called.
type dirSnapshots struct{}

func (*dirSnapshots) readDir(fd int) ([]typedName, error) { return readTypedFD(fd) }
