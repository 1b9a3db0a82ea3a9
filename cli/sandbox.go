package cli

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/basecontext/base-context/sandbox"
)

// SandboxFlags run the tools under Linux Landlock (docs/sandbox.md). RunCmd embeds them.
type SandboxFlags struct {
	Sandbox        string   `enum:"off,best-effort,workspace-write,read-only" default:"off" help:"Run bash and the gates under Landlock, and check write and edit against the same rules: ${enum}."`
	AddDir         []string `placeholder:"DIR" sep:"none" help:"With --sandbox workspace-write: another folder the tools may write (repeatable)."`
	SandboxNetwork bool     `help:"With --sandbox: allow TCP connections and listening."`
}

// open makes the run's sandbox: a mode this kernel cannot enforce exits 2 before the first
// model call; best-effort says on stderr what it lacks.
func (f *SandboxFlags) open(streams *IO, cwd string) (*sandbox.Sandbox, error) {
	mode, _ := sandbox.ParseMode(f.Sandbox) // one of kong's enum (or checked in the settings)
	sb, err := sandbox.Open(mode, cwd, f.AddDir, f.SandboxNetwork, sandbox.Probe())
	if err != nil {
		return nil, err
	}
	if missing := sb.NotEnforced(); len(missing) > 0 {
		streams.warn("--sandbox best-effort: this kernel does not enforce " + strings.Join(missing, "; "))
	}
	return sb, nil
}

// SandboxCmd is `base-context sandbox`.
type SandboxCmd struct {
	Check SandboxCheckCmd `cmd:"" help:"Print what this kernel enforces (Landlock ABI, filesystem and network rules); exit 1 where --sandbox workspace-write cannot hold."`
	Exec  SandboxExecCmd  `cmd:"" help:"Run one command under a sandbox mode."`
}

// SandboxCheckCmd is `sandbox check`.
type SandboxCheckCmd struct{}

func (*SandboxCheckCmd) Run(streams *IO) error {
	text, ok := sandbox.Probe().Report()
	if _, err := fmt.Fprint(streams.Out, text); err != nil {
		return err
	}
	if !ok {
		return Fail(ExitFailure, "")
	}
	return nil
}

// SandboxExecCmd is `sandbox exec`; the bash tool and the gates run their shell through it.
type SandboxExecCmd struct {
	Mode    string   `placeholder:"MODE" help:"The sandbox mode: off, best-effort, workspace-write (the default) or read-only."`
	AddDir  []string `placeholder:"DIR" sep:"none" help:"Another folder the command may write besides the working directory (repeatable)."`
	Network bool     `help:"Allow TCP connections and listening."`
	Command []string `arg:"" passthrough:"" help:"The command and its arguments (after --)."`
}

func (c *SandboxExecCmd) Run() error {
	mode, err := sandbox.ParseMode(cmp.Or(c.Mode, "workspace-write")) // no kong default: see grammar_test.go
	if err != nil {
		return Wrap(ExitUsage, err)
	}
	return sandbox.Exec(sandbox.Spec{Mode: mode, Writable: c.AddDir, Network: c.Network}, c.Command)
}
