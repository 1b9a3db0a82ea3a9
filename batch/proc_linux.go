package batch

import "syscall"

// setDeathSignal kills the task when the batch dies (kill -9 included): a task nobody waits
// for would go on spending.
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
