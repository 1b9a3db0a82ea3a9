//go:build unix && !linux

package batch

import "syscall"

// setDeathSignal: only Linux can tie a child's life to its parent's; elsewhere a task whose
// batch was killed ends on its next write to the closed pipe.
func setDeathSignal(*syscall.SysProcAttr) {}
