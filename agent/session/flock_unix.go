//go:build unix

package session

import (
	"os"
	"syscall"
)

// flock takes the exclusive advisory lock of f without waiting.
func flock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) }
