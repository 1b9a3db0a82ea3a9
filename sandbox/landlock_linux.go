package sandbox

import (
	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// configs are go-landlock's configurations by ABI version: each handles every access right
// its version knows.
var configs = []landlock.Config{{}, landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5,
	landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}

// devices are the character devices every command may write (`>/dev/null`).
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}

// restrict restricts this process, and what it will run, to spec on a kernel of Landlock ABI
// abi: read and execute everywhere, write in spec.Writable and the devices above, and, unless
// spec.Network, no TCP connect or bind (nor UDP from ABI 10 on). The domain is inherited by
// every child and can never be left.
func restrict(spec Spec, abi int) error {
	if abi <= 0 {
		return nil
	}
	cfg := configs[min(abi, len(configs)-1)]
	if spec.Network {
		cfg.HandledAccessNet = 0
	}
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWFiles(devices...).WithIoctlDev().IgnoreIfMissing(),
	}
	if len(spec.Writable) > 0 {
		// Everything the kernel handles (renames between folders included), but making
		// device nodes: a block device made in the workspace would write the whole disk.
		rw := cfg.HandledAccessFS &^ landlock.AccessFSSet(ll.AccessFSMakeBlock|ll.AccessFSMakeChar|ll.AccessFSIoctlDev)
		rules = append(rules, landlock.PathAccess(rw, spec.Writable...))
	}
	// Best effort only where go-landlock knows more than we asked for (errata that lower the
	// ABI it uses for scopes): what the mode requires was checked against the kernel before.
	return cfg.BestEffort().Restrict(rules...)
}
