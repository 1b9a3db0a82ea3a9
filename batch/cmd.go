package batch

import (
	"os"

	"github.com/alecthomas/kong"
)

// RunArgs are the arguments of `batch [run]`.
type RunArgs struct {
	Tasks string `arg:"" type:"existingfile" help:"The tasks: one JSON object a line, {\"id\", \"prompt\", \"cwd\", \"model\", \"flags\"}."`
	Flags
	RunFlags []string `arg:"" optional:"" passthrough:"all" help:"Run flags, after the batch's: the defaults of every task."`
}

// Start runs the batch in this process, its tasks in children of this binary.
func (a *RunArgs) Start(p Process) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	return Run(Config{Flags: a.Flags, Tasks: a.Tasks, Defaults: a.RunFlags, Exe: exe, Process: p})
}

// ReportCmd is `batch report`.
type ReportCmd struct {
	Dir    string `arg:"" type:"existingdir" help:"The batch's folder (its --out)."`
	Output string `short:"o" placeholder:"FILE" help:"Write the HTML index of the tasks' streams to FILE instead."`
	Title  string `help:"The index's title."`
}

func (c *ReportCmd) Run(kctx *kong.Context) error {
	return Report(c.Dir, c.Output, c.Title, kctx.Stdout)
}

// MergeCmd is `batch merge`.
type MergeCmd struct {
	Dirs  []string `arg:"" type:"existingdir" help:"The folders to join."`
	Out   string   `required:"" placeholder:"DIR" help:"The folder they are joined into."`
	Tasks string   `type:"existingfile" help:"The tasks file: list the tasks no folder finished (exit 1)."`
}

func (c *MergeCmd) Run(kctx *kong.Context) error {
	return Merge(c.Dirs, c.Out, c.Tasks, kctx.Stdout)
}
