//go:build unix

package tools

import (
	"os"
	"syscall"
)

// ownProcessGroup starts a command in a process group of its own, so that killing the group
// ends everything the command started.
func ownProcessGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killProcessGroup kills the process group that p leads.
func killProcessGroup(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }
