//go:build unix

package cli

import (
	"os"
	"os/signal"
	"syscall"
)

// newSessionAttr starts the background process of a --detach run in a session of its own,
// so that it outlives the terminal.
func newSessionAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

func closeOnExec(fd int) { syscall.CloseOnExec(fd) }

// unsupported says why a command cannot run on this system; nil: it can.
func unsupported(string) error { return nil }

// catchFileSizeLimit makes a write past a file size limit (ulimit -f) fail with EFBIG instead
// of killing the process, so the run can end properly and say why it could not save. (Caught,
// not ignored: the commands the tools run keep the default action.)
func catchFileSizeLimit() { signal.Notify(make(chan os.Signal, 1), syscall.SIGXFSZ) }
