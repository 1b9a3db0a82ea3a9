//go:build unix && !linux

package tools

import "syscall"

// processGroupAttr starts a command as the leader of a new process group, so that the
// group can be killed whole.
func processGroupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
