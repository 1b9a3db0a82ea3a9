package batch

import (
	"cmp"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kong"
	"github.com/basecontext/base-context/internal/exitcode"
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
	flags, defaults, err := a.Flags.takeFrom(a.RunFlags)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	return Run(Config{Flags: flags, Tasks: a.Tasks, Defaults: defaults, Exe: exe, Process: p})
}

// takeFrom takes the batch's own flags out of the run flags: kong hands over every argument
// from the first run flag on, and a batch flag may come after it.
func (f Flags) takeFrom(args []string) (Flags, []string, error) {
	var rest []string
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(strings.TrimPrefix(args[i], "--"), "=")
		if !strings.HasPrefix(args[i], "--") || !ownFlags[name] {
			rest = append(rest, args[i])
			continue
		}
		if name == "retry-failed" {
			b, err := strconv.ParseBool(cmp.Or(value, "true"))
			f.RetryFailed = b
			if err != nil {
				return f, nil, fmt.Errorf("--retry-failed: %v", err)
			}
			continue
		}
		if !hasValue {
			if i+1 == len(args) {
				return f, nil, fmt.Errorf("--%s: missing value", name)
			}
			i++
			value = args[i]
		}
		var err error
		switch name {
		case "out":
			f.Out = value
		case "shard":
			f.Shard = value
		case "mode":
			f.Mode = value
		case "workers":
			f.Workers, err = strconv.Atoi(value)
		case "max-cost":
			f.MaxCost, err = strconv.ParseFloat(value, 64)
		case "task-timeout":
			f.TaskTimeout, err = time.ParseDuration(value)
		}
		if err != nil {
			return f, nil, fmt.Errorf("--%s: %v", name, err)
		}
	}
	return f, rest, nil
}

var ownFlags = map[string]bool{"out": true, "workers": true, "max-cost": true, "task-timeout": true, "shard": true, "retry-failed": true, "mode": true}

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
