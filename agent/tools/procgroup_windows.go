//go:build windows

package tools

import (
	"os"
	"syscall"
)

// ownProcessGroup: Windows has no process groups to kill at once.
func ownProcessGroup() *syscall.SysProcAttr { return nil }

// killProcessGroup kills the shell only: on Windows what it started may outlive it.
func killProcessGroup(p *os.Process) { _ = p.Kill() }
