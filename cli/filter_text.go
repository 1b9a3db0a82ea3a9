package cli

import (
	"io"

	"github.com/basecontext/base-context/filters"
	"github.com/basecontext/base-context/stages"
)

// TextCmd is `filter text`.
type TextCmd struct {
	FilterIO
	Follow   bool `short:"f" help:"Print the text of every assistant message as it streams, not only the final answer."`
	Thinking bool `help:"Include thinking, separated from the text by a blank line."`
	RunFacts
}

// Run runs the filter. It exits as the recorded run would have (the verdict's status, as
// `filter verdict` gives it), or 1 for lines that were not JSON objects.
func (c *TextCmd) Run(streams *IO) error {
	if err := c.check(); err != nil {
		return err
	}
	var text *stages.Text
	read := filters.RunStderr{Path: c.Stderr}
	err := c.runInto(streams, func(out io.Writer) stages.Sink {
		text = stages.NewText(out, stages.TextOptions{Follow: c.Follow, Thinking: c.Thinking, Verdict: c.options(&read)})
		return text
	})
	return read.Outcome(err, text.Verdict, false)
}
