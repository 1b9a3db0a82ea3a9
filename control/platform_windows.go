//go:build windows

package control

import (
	"errors"
	"os"
	"syscall"
)

// ErrUnsupported is why running sessions cannot be controlled on Windows: the control
// channel is a Unix socket guarded by Unix file ownership.
var ErrUnsupported = errors.New("control: running sessions cannot be listed or controlled on Windows (they need Unix sockets)")

func ownedByUser(os.FileInfo) bool { return false }

func processExists(pid int) bool {
	p, err := os.FindProcess(pid) // opens a handle: fails when there is no such process
	if err != nil {
		return false
	}
	p.Release()
	return true
}

func socketsSupported() error { return ErrUnsupported }

func newSessionAttr() *syscall.SysProcAttr { return nil }

func closeOnExec(int) {}

func redirectFD(*os.File, int) error {
	return errors.New("redirecting a descriptor is not supported on Windows")
}

// Unsupported says why a command (or --detach) cannot run here: running sessions are
// controlled through Unix sockets, and --detach needs setsid. nil: it can.
func Unsupported(command string) error {
	switch command {
	case "list", "stop", "send", "attach", "--detach":
		return errors.New(command + " is not supported on Windows: running sessions need Unix sockets (runs in the foreground work)")
	}
	return nil
}
