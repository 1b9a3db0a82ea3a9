package cli

import (
	"io"

	"github.com/basecontext/base-context/batch"
)

// BatchCmd is `batch`: many runs from a tasks file (docs/batch.md).
type BatchCmd struct {
	Run    BatchRunCmd     `cmd:"" default:"withargs" help:"Run the tasks of TASKS.jsonl, each as a run in a process of its own, into --out DIR (the default)."`
	Report batch.ReportCmd `cmd:"" help:"Print the table of a batch's folder (-o FILE.html: its HTML index)."`
	Merge  batch.MergeCmd  `cmd:"" help:"Join the folders of a batch's shards into --out DIR; a task in two folders is refused."`
}

type BatchRunCmd struct{ batch.RunArgs }

func (c *BatchRunCmd) Run(streams *IO) error {
	return c.Start(batch.Process{Validate: validateRunFlags, Ctx: streams.signals.Context(), Signal: streams.signals.Received,
		Stdout: streams.Out, Stderr: streams.Err, Live: streams.StderrIsTerminal, Width: streams.TerminalWidth})
}

// validateRunFlags parses args as the run command's flags, without running anything.
func validateRunFlags(args []string) error {
	p, err := NewParser(&CLI{}, IO{Out: io.Discard, Err: io.Discard, Getenv: func(string) string { return "" }})
	if err == nil {
		_, err = p.Parse(append([]string{"run"}, args...))
	}
	return err
}
