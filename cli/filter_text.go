package cli

import (
	"errors"
	"io"

	"github.com/basecontext/base-context/stages"
)

// TextCmd is `filter text`.
type TextCmd struct {
	FilterIO
	Follow   bool `short:"f" help:"Print the text of every assistant message as it streams, not only the final answer."`
	Thinking bool `help:"Include thinking, separated from the text by a blank line."`
}

// Help is the long help of `filter text --help`.
func (c *TextCmd) Help() string {
	return `Without --follow: what text mode (base-context -p) would have printed for the recorded run,
the final assistant message's text and a line break, printed once the stream has ended, and
only when the run completed. Whether it did is what filter verdict decides: a run that failed
(stopReason error or aborted, not recovered by a retry), was cut short (no agent_end), or
stopped at a limit or a gate prints nothing, says why on stderr and exits as text mode would
have (1, 3 or 4).

With --follow: the text of every assistant message as its deltas arrive, a line break after
each message; the exit status is the same. Both the full and the delta form work.

Examples:

  base-context filter text run.jsonl
  base-context --mode json --json-deltas "Explain this repo" | tee run.jsonl | base-context filter text --follow`
}

// Run runs the filter. It exits as the recorded run would have (the verdict's status, as
// `filter verdict` gives it), or 1 for lines that were not JSON objects.
func (c *TextCmd) Run(streams *IO) error {
	var st *stages.Text
	err := c.runTo(streams, func(out io.Writer) stages.Stage {
		st = stages.NewText(out, stages.TextOptions{Follow: c.Follow, Thinking: c.Thinking})
		return st
	})
	var exit *ExitError
	if err != nil && !(errors.As(err, &exit) && exit.Code == ExitFailure) {
		return err // not the report of invalid lines: the stream was not read
	}
	if v := st.Verdict(); v.Status != stages.VerdictCompleted {
		return Fail(verdictExit[v.Status], v.Reason)
	}
	return err
}
