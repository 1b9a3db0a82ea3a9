package cli

import "github.com/basecontext/base-context/sandbox"

// SandboxCmd is `base-context sandbox` (docs/sandbox.md); the run's flags are sandbox.SandboxFlags.
type SandboxCmd struct {
	Check SandboxCheckCmd   `cmd:"" help:"Print what this kernel enforces (Landlock ABI, filesystem and network rules); exit 1 where --sandbox workspace-write cannot hold."`
	Exec  sandbox.ExecFlags `cmd:"" help:"Run one command under a sandbox mode (the bash tool and the gates run their shell through it)."`
}

// SandboxCheckCmd is `sandbox check`.
type SandboxCheckCmd struct{}

func (*SandboxCheckCmd) Run(streams *IO) error { return sandbox.Check(streams.Out) }
