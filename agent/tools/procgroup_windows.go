//go:build windows

package tools

import (
	"io/fs"
	"os"
	"syscall"
)

// processGroupAttr: Windows has no process groups to kill at once.
func processGroupAttr() *syscall.SysProcAttr { return nil }

// lifelineSupported: Windows passes no extra descriptors to a child, so no lifeline.
const lifelineSupported = false

// killProcessGroup kills the shell only: on Windows what it started may outlive it.
func killProcessGroup(p *os.Process) { _ = p.Kill() }

// openDirFlags: Windows has no FIFOs to take a folder's place.
const openDirFlags = 0

// statOwner: Windows files have no uid and gid to keep.
func statOwner(fs.FileInfo) (owner, bool) { return owner{}, false }
