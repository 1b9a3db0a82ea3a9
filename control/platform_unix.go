//go:build unix

package control

import (
	"errors"
	"os"
	"syscall"
)

// ownedByUser reports whether the file st describes belongs to the user running us.
func ownedByUser(st os.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(sys.Uid) == os.Getuid()
}

// processExists reports whether a process pid exists (it may belong to another user).
func processExists(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

func socketsSupported() error { return nil }

// newSessionAttr starts the background process of a detached run in a session of its own,
// so that it outlives the terminal.
func newSessionAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

func closeOnExec(fd int) { syscall.CloseOnExec(fd) }

// Unsupported says why a command cannot run here; nil: it can.
func Unsupported(string) error { return nil }
