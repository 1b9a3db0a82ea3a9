package cli

import (
	"context"
	"errors"
	"time"

	"github.com/basecontext/base-context/agent/prompt"
	"github.com/basecontext/base-context/control"
	"github.com/basecontext/base-context/internal/exitcode"
	"github.com/basecontext/base-context/internal/runner"
	"github.com/basecontext/base-context/terminal"
)

// PromptFlags shape the system prompt and where the run works. RunCmd embeds them.
type PromptFlags struct {
	Cwd                string `short:"C" name:"cwd" placeholder:"DIR" help:"Run as if started in DIR: the tools, the project instructions and the session's cwd."`
	SystemPrompt       string `placeholder:"TEXT|@FILE" help:"Replace the built-in system prompt (the project instructions are still added)."`
	AppendSystemPrompt string `placeholder:"TEXT|@FILE" help:"Add to the end of the system prompt."`
	NoContextFiles     bool   `help:"Do not read the project instructions (AGENTS.md, else CLAUDE.md, in <home> and from the repository root down to the working directory)."`
	Stdin              bool   `help:"Wait for stdin as long as it takes, even with a prompt argument (- as an argument does the same); otherwise a prompt argument waits 3s for stdin's first byte."`
}

// prompts gathers the prompts (package prompt): the arguments, their @FILEs and stdin
// when it is not a terminal. A run without one, or with images for a model that takes
// none, is a usage error.
func (c *RunCmd) prompts(ctx context.Context, streams *IO, status *terminal.Status, p *runner.Plan) (*prompt.Prompts, error) {
	in := prompt.Input{Args: c.Prompts, Cwd: p.Cwd, WaitForStdin: c.Stdin, Done: ctx.Done(), Expand: p.Skills.Expand,
		Waiting: func() { status.Show("waiting for stdin") },
		Warn:    streams.warn}
	if !streams.StdinIsTerminal && streams.In != nil {
		in.Stdin = streams.In
	}
	ps, err := prompt.Gather(in)
	if errors.Is(err, prompt.ErrStopped) {
		if stopped := signalErr(streams.signals); stopped != nil {
			return nil, stopped
		}
		return nil, exitcode.New(exitcode.Failure, err.Error())
	}
	if err != nil {
		return nil, exitcode.New(exitcode.Usage, err.Error())
	}
	if err := ps.Check(p.Model); err != nil {
		return nil, exitcode.New(exitcode.Usage, err.Error())
	}
	return ps, nil
}

// workDir is the directory the run works in: --cwd (made absolute), else the process's.
func (f *PromptFlags) workDir() (string, error) {
	dir, err := control.WorkDir(f.Cwd)
	if _, bad := errors.AsType[*control.DirError](err); bad {
		return "", exitcode.New(exitcode.Usage, "--cwd: "+err.Error())
	}
	return dir, exitcode.Wrap(exitcode.Usage, err)
}

// systemPrompt is the run's system prompt (package prompt); instructions files that cannot
// be used are warnings on stderr.
func (f *PromptFlags) systemPrompt(streams *IO, cwd string, toolNames []string, skills string) (string, error) {
	text, err := prompt.System{Cwd: cwd, Tools: toolNames, Replace: f.SystemPrompt, Append: f.AppendSystemPrompt, Skills: skills,
		InstructionsHome: string(streams.home()), NoInstructions: f.NoContextFiles, Now: time.Now(),
		Warn: streams.warn}.Build()
	if err != nil {
		return "", exitcode.New(exitcode.Usage, err.Error())
	}
	return text, nil
}
