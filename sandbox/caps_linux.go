package sandbox

import (
	"errors"
	"runtime"

	"golang.org/x/sys/unix"
)

// escapeCapabilities are the capabilities with which a command run as root could step
// around Landlock: load kernel code (modules, BPF), reach raw disks and memory, make a device
// node in a writable root and write the disk through it, remount or change namespaces, trace
// or signal processes outside the sandbox, or change the machine's time, network or audit.
// The file capabilities an ordinary root command uses in the workspace (DAC_OVERRIDE, FOWNER,
// CHOWN, SETUID…) are kept.
var escapeCapabilities = []uintptr{
	unix.CAP_SYS_MODULE, unix.CAP_SYS_RAWIO, unix.CAP_SYS_ADMIN, unix.CAP_SYS_PTRACE,
	unix.CAP_SYS_BOOT, unix.CAP_SYS_TIME, unix.CAP_MKNOD, unix.CAP_NET_ADMIN, unix.CAP_BPF,
	unix.CAP_PERFMON, unix.CAP_MAC_ADMIN, unix.CAP_MAC_OVERRIDE, unix.CAP_AUDIT_CONTROL,
	unix.CAP_SYSLOG, unix.CAP_LINUX_IMMUTABLE, unix.CAP_CHECKPOINT_RESTORE, unix.CAP_SYS_RESOURCE,
}

// dropCapabilities removes escapeCapabilities (and, when the network is refused, NET_RAW,
// whose raw sockets the TCP rules do not see) from the bounding set of this thread, which
// then executes the command: under no_new_privs the command, root or not, cannot gain them.
// The thread stays locked to the goroutine, so that the exec happens on it. A process that
// may not change its bounding set (no CAP_SETPCAP: not root, where it has none of them to
// lose) keeps it.
func dropCapabilities(network bool) error {
	runtime.LockOSThread()
	caps := escapeCapabilities
	if !network {
		caps = append(caps[:len(caps):len(caps)], unix.CAP_NET_RAW)
	}
	for _, c := range caps {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0)
		switch {
		case errors.Is(err, unix.EPERM):
			return nil
		case err != nil && !errors.Is(err, unix.EINVAL): // EINVAL: a capability this kernel lacks
			return err
		}
	}
	return nil
}
