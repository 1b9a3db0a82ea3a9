package cli

import (
	"io"

	"github.com/basecontext/base-context/filters"
	"github.com/basecontext/base-context/internal/exitcode"
	"github.com/basecontext/base-context/stages"
)

// VerdictCmd is `filter verdict`.
type VerdictCmd struct {
	FilterIO
	RunFacts
}

// RunFacts are the flags that tell the verdict what the stream cannot: shared by `filter
// verdict` and `filter text`, which decide alike whether the run completed.
type RunFacts struct {
	Gated  bool   `help:"The run was started with --gate: unless its gates ran after the agent's last message and passed, the verdict is a gate failure (exit 4). Gate runs in the stream imply it."`
	Stderr string `placeholder:"FILE" help:"The run's stderr (as kept with 2>FILE), read once the stream has ended: its last 'error:' line says what the stream cannot (a limit: exit 3; SIGHUP, SIGINT, SIGTERM: 129, 130, 143)."`
}

// check fails with a usage error, before any input is read, when --stderr cannot be opened.
func (r *RunFacts) check() error {
	return exitcode.Wrap(exitcode.Usage, (&filters.RunStderr{Path: r.Stderr}).Check())
}

// options returns the verdict options these facts give, with the --stderr it reads.
func (r *RunFacts) options(read *filters.RunStderr) stages.VerdictOptions {
	return stages.VerdictOptions{Gated: r.Gated, RunError: read.LastError}
}

// Run runs the filter.
func (c *VerdictCmd) Run(streams *IO) error {
	if err := c.check(); err != nil {
		return err
	}
	var v *stages.Verdict
	read := filters.RunStderr{Path: c.Stderr}
	err := c.runInto(streams, func(out io.Writer) stages.Sink {
		v = stages.NewVerdict(out, c.options(&read))
		return v
	})
	return read.Outcome(err, v.Summary, true)
}
