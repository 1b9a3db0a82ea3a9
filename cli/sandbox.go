package cli

import "github.com/basecontext/base-context/sandbox"

// SandboxFlags run the tools under Linux Landlock (docs/sandbox.md). RunCmd embeds them.
type SandboxFlags struct {
	Sandbox        string   `enum:"off,best-effort,workspace-write,read-only" default:"off" help:"Run bash and the gates under Landlock, and check write and edit against the same rules: ${enum}."`
	AddDir         []string `placeholder:"DIR" sep:"none" help:"With --sandbox workspace-write: another folder the tools may write (repeatable)."`
	SandboxNetwork bool     `help:"With --sandbox: allow TCP connections and listening."`
}

// SandboxCmd is `base-context sandbox`.
type SandboxCmd struct {
	Check SandboxCheckCmd `cmd:"" help:"Print what this kernel enforces (Landlock ABI, filesystem and network rules); exit 1 where --sandbox workspace-write cannot hold."`
	Exec  SandboxExecCmd  `cmd:"" help:"Run one command under a sandbox mode."`
}

// SandboxCheckCmd is `sandbox check`.
type SandboxCheckCmd struct{}

func (*SandboxCheckCmd) Run(streams *IO) error { return sandbox.Check(streams.Out) }

// SandboxExecCmd is `sandbox exec`; the bash tool and the gates run their shell through it.
type SandboxExecCmd struct {
	Mode    string   `placeholder:"MODE" help:"The sandbox mode: off, best-effort, workspace-write (the default) or read-only."`
	AddDir  []string `placeholder:"DIR" sep:"none" help:"Another folder the command may write besides the working directory (repeatable)."`
	Network bool     `help:"Allow TCP connections and listening."`
	Command []string `arg:"" passthrough:"" help:"The command and its arguments (after --)."`
}

func (c *SandboxExecCmd) Run() error {
	return sandbox.ExecNamed(c.Mode, c.AddDir, c.Network, c.Command)
}
