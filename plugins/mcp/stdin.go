package mcp

import (
	"io"
	"os"
	"strconv"
	"syscall"
)

// pollableInput returns a reader of the pipe f reads from that waits on the
// runtime's network poller instead of blocking a thread in read(2): the pipe
// reopened through /proc/self/fd with O_NONBLOCK set on the new open file
// description only, so the flags of f's description (shared with the
// process that started dshhost) stay as they were. A thread blocked in
// read(2) costs a warm stdio session a thread hand-off per request and
// keeps the runtime's monitor waking every 20 µs to take its processor
// back (issue 10: about a quarter of a warm read's CPU). f itself is
// returned when it is not a pipe (a file, a terminal, a socket) or the
// reopening fails (no /proc, not Linux).
func pollableInput(f *os.File) io.Reader {
	info, err := f.Stat()
	if err != nil || info.Mode()&os.ModeNamedPipe == 0 {
		return f
	}
	p, err := os.OpenFile("/proc/self/fd/"+strconv.Itoa(int(f.Fd())), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return f
	}
	if info2, err := p.Stat(); err != nil || !os.SameFile(info, info2) {
		_ = p.Close()
		return f
	}
	return p
}
