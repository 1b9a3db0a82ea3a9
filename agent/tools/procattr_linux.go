package tools

import "syscall"

// processGroupAttr starts a command as the leader of a new process group, so that the
// group can be killed whole, and has the kernel kill it if the agent dies first (SIGKILL
// gives the agent no chance to clean up; the command's own children are killed with the
// group on every other way out).
func processGroupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
