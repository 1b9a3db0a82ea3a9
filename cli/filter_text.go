package cli

import (
	"io"

	"github.com/basecontext/base-context/stages"
)

// TextCmd is `filter text`.
type TextCmd struct {
	FilterIO
	Follow   bool `short:"f" help:"Print the text of every assistant message as it streams, not only the final answer."`
	Thinking bool `help:"Include thinking, separated from the text by a blank line."`
	RunFacts
}

// Help is the long help of `filter text --help`.
func (c *TextCmd) Help() string {
	return `Without --follow: what text mode (base-context -p) would have printed for the recorded run,
the final assistant message's text and a line break, printed once the stream has ended, and
only when the run completed. Whether it did is what filter verdict decides: a run that failed
(stopReason error or aborted, not recovered by a retry), was cut short (no agent_end), or
stopped at a limit or a gate prints nothing, says why on stderr and exits as text mode would
have (1, 3 or 4). Limits and signals show only in the run's stderr, and a run with --gate
whose gates never ran looks complete: give --stderr and --gated as to filter verdict.

With --follow: the text of every assistant message as its deltas arrive, a line break after
each message; the exit status is the same. Both the full and the delta form work.

Examples:

  base-context filter text run.jsonl
  base-context --mode json --json-deltas "Explain this repo" | tee run.jsonl | base-context filter text --follow
  base-context --mode json --max-turns 5 "Fix it" 2>run.err >run.jsonl; base-context filter text --stderr run.err run.jsonl`
}

// Run runs the filter. It exits as the recorded run would have (the verdict's status, as
// `filter verdict` gives it), or 1 for lines that were not JSON objects.
func (c *TextCmd) Run(streams *IO) error {
	if err := c.check(); err != nil {
		return err
	}
	var text *stages.Text
	var read stderrRead
	err := c.runInto(streams, func(out io.Writer) stages.Sink {
		text = stages.NewText(out, stages.TextOptions{Follow: c.Follow, Thinking: c.Thinking, Verdict: c.options(&read)})
		return text
	})
	return c.verdictStatus(&read, err, text.Verdict, false)
}
