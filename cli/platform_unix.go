//go:build unix

package cli

import "syscall"

// newSessionAttr starts the background process of a --detach run in a session of its own,
// so that it outlives the terminal.
func newSessionAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

func closeOnExec(fd int) { syscall.CloseOnExec(fd) }

// unsupported says why a command cannot run on this system; nil: it can.
func unsupported(string) error { return nil }
