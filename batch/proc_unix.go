//go:build unix

package batch

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/basecontext/base-context/internal/exitcode"
)

// setProcAttr puts the task in a process group of its own, so that a Ctrl-C at the terminal
// reaches the batch alone, which decides what the tasks get.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(cmd.SysProcAttr)
}

// lockDir holds DIR/.lock while the batch runs: two batches writing one folder would run
// tasks twice. The lock goes with the process, however it ends.
func lockDir(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, exitcode.New(exitcode.Failure, fmt.Sprintf("%s: another batch is writing this folder", dir))
	}
	return func() { f.Close() }, nil
}
