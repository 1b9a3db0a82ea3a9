package control

import (
	"os"
	"syscall"
)

// redirectFD makes descriptor fd refer to f's file.
func redirectFD(f *os.File, fd int) error { return syscall.Dup3(int(f.Fd()), fd, 0) }
