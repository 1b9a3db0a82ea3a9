package sandbox

// SandboxFlags are the run's sandbox flags (kong tags; the command line embeds them).
type SandboxFlags struct {
	Sandbox        string   `enum:"off,best-effort,workspace-write,read-only" default:"off" help:"Run bash and the gates under Landlock, and check write and edit against the same rules: ${enum}."`
	AddDir         []string `placeholder:"DIR" sep:"none" help:"With --sandbox workspace-write: another folder the tools may write (repeatable)."`
	SandboxNetwork bool     `help:"With --sandbox: allow TCP connections and listening."`
}

// Open is the run's sandbox in cwd (OpenNamed); warn receives what best-effort leaves out.
func (f *SandboxFlags) Open(cwd string, warn func(string)) (*Sandbox, error) {
	return OpenNamed(f.Sandbox, cwd, f.AddDir, f.SandboxNetwork, warn)
}

// ExecFlags are `sandbox exec`'s: one command under a mode.
type ExecFlags struct {
	Mode    string   `placeholder:"MODE" help:"The sandbox mode: off, best-effort, workspace-write (the default) or read-only."`
	AddDir  []string `placeholder:"DIR" sep:"none" help:"Another folder the command may write besides the working directory (repeatable)."`
	Network bool     `help:"Allow TCP connections and listening."`
	Command []string `arg:"" passthrough:"" help:"The command and its arguments (after --)."`
}

// Run runs the command under the mode (ExecNamed).
func (f *ExecFlags) Run() error { return ExecNamed(f.Mode, f.AddDir, f.Network, f.Command) }
