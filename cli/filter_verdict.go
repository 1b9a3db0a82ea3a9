package cli

import (
	"errors"
	"io"

	"github.com/basecontext/base-context/filters"
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
	return Wrap(ExitUsage, (&filters.RunStderr{Path: r.Stderr}).Check())
}

// options returns the verdict options these facts give, with the --stderr it reads.
func (r *RunFacts) options(read *filters.RunStderr) stages.VerdictOptions {
	return stages.VerdictOptions{Gated: r.Gated, RunError: read.LastError}
}

// verdictStatus turns the verdict v reached after the filter ended with err into the
// command's result: an unreadable --stderr is a usage error; an error other than the report
// of invalid lines means the stream was not read; a run that did not complete exits with its
// status, saying why (after the status's name when named); else err (nil, or the report of
// invalid lines: exit 1).
func (r *RunFacts) verdictStatus(read *filters.RunStderr, err error, v func() stages.VerdictSummary, named bool) error {
	if read.Err() != nil {
		return Wrap(ExitUsage, read.Err())
	}
	var exit *ExitError
	if err != nil && !(errors.As(err, &exit) && exit.Code == ExitFailure) {
		return err
	}
	if s := v(); s.Status != stages.VerdictCompleted {
		if named {
			return Fail(verdictExit[s.Status], s.Status+": "+s.Reason)
		}
		return Fail(verdictExit[s.Status], s.Reason)
	}
	return err
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
	return c.verdictStatus(&read, err, v.Summary, true)
}
