package codec

import (
	"errors"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// SpliceFrom writes n bytes of f from offset off, after what the writer holds, without
// copying them through memory when the writer's destination is a pipe: splice(2) hands the
// pipe the file's cached pages. ok is false when it cannot (not a pipe, a file system that
// does not splice): nothing is written then, and the writer does not try again, so the
// caller writes the bytes it has. A file shorter than it was when read (cut since) is an
// error: the bytes it sends must be the bytes that were read.
func (lw *LineWriter) SpliceFrom(f *os.File, off int64, n int) (ok bool, err error) {
	out, isFile := lw.w.(*os.File)
	if lw.noSplice || !isFile || lw.err != nil {
		return false, lw.err
	}
	if err := lw.Flush(); err != nil {
		return true, err
	}
	conn, err := out.SyscallConn()
	if err != nil {
		lw.noSplice = true
		return false, nil
	}
	in := int(f.Fd())
	sent := 0
	for sent < n {
		var moved int64
		var serr error
		werr := conn.Write(func(fd uintptr) bool {
			moved, serr = unix.Splice(in, &off, int(fd), nil, n-sent, unix.SPLICE_F_MOVE)
			return serr != unix.EAGAIN
		})
		if werr != nil && serr == nil {
			serr = werr
		}
		switch {
		case serr == unix.EINTR:
			continue
		case serr != nil && sent == 0 && (errors.Is(serr, unix.EINVAL) || errors.Is(serr, unix.ENOSYS) || errors.Is(serr, unix.EBADF)):
			lw.noSplice = true // this pair cannot splice: the caller writes
			return false, nil
		case serr != nil:
			lw.err = &os.PathError{Op: "write", Path: out.Name(), Err: serr}
			return true, lw.err
		case moved == 0:
			lw.err = io.ErrUnexpectedEOF // the file was cut after it was read
			return true, lw.err
		}
		sent += int(moved)
	}
	return true, nil
}
