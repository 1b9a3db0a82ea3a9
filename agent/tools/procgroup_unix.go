//go:build unix

package tools

import (
	"io/fs"
	"os"
	"syscall"
)

// lifelineSupported: a command's process group has a watcher that kills it when the agent dies
// (bash.go's lifelineScript).
const lifelineSupported = true

// killProcessGroup kills the process group that p leads.
func killProcessGroup(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }

// openDirFlags open a folder without waiting, should a FIFO have taken its place.
const openDirFlags = syscall.O_DIRECTORY | syscall.O_NONBLOCK

// statOwner is the owner of an existing file, when the platform reports one.
func statOwner(fi fs.FileInfo) (owner, bool) {
	if fi == nil {
		return owner{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return owner{}, false
	}
	return owner{int(st.Uid), int(st.Gid)}, true
}
