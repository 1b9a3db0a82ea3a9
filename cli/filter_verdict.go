package cli

import (
	"errors"
	"io"
	"os"

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

// stderrRead is what reading --stderr came to, once the stream had ended.
type stderrRead struct{ err error }

// check fails with a usage error, before any input is read, when --stderr cannot be opened
// (it is read only once the stream has ended, as the run may still be writing it).
func (r *RunFacts) check() error {
	if r.Stderr == "" {
		return nil
	}
	f, err := os.Open(r.Stderr)
	if err != nil {
		return Fail(ExitUsage, err.Error())
	}
	return f.Close()
}

// options returns the verdict options these facts give; read gets how reading --stderr went.
func (r *RunFacts) options(read *stderrRead) stages.VerdictOptions {
	return stages.VerdictOptions{Gated: r.Gated, RunError: func() string {
		reason, err := filters.LastErrorLine(r.Stderr)
		read.err = err
		return reason
	}}
}

// verdictStatus turns the verdict v reached after the filter ended with err into the
// command's result: an unreadable --stderr is a usage error; an error other than the report
// of invalid lines means the stream was not read; a run that did not complete exits with its
// status, saying why (after the status's name when named); else err (nil, or the report of
// invalid lines: exit 1).
func (r *RunFacts) verdictStatus(read *stderrRead, err error, v func() stages.VerdictSummary, named bool) error {
	if read.err != nil {
		return Fail(ExitUsage, read.err.Error())
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

// verdictExit maps a verdict status to the exit status of the run.
var verdictExit = map[string]int{
	stages.VerdictCompleted:   ExitOK,
	stages.VerdictFailed:      ExitFailure,
	stages.VerdictLimit:       ExitLimit,
	stages.VerdictGate:        ExitGate,
	stages.VerdictHangup:      ExitHangup,
	stages.VerdictInterrupted: ExitInterrupted,
	stages.VerdictTerminated:  ExitTerminated,
}

// Run runs the filter.
func (c *VerdictCmd) Run(streams *IO) error {
	if err := c.check(); err != nil {
		return err
	}
	var v *stages.Verdict
	var read stderrRead
	err := c.runInto(streams, func(out io.Writer) stages.Sink {
		v = stages.NewVerdict(out, c.options(&read))
		return v
	})
	return c.verdictStatus(&read, err, v.Summary, true)
}
