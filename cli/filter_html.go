package cli

import (
	"github.com/basecontext/base-context/filters"
	"github.com/basecontext/base-context/report"
)

// HTMLCmd is `filter html`.
type HTMLCmd struct {
	FilterIO
	RunFacts
	report.Flags
	Index bool `help:"Write an index of the runs in the files instead (status, exit, cost, duration, turns, model; sortable), linking to NAME.html beside each NAME.jsonl."`
}

func (c *HTMLCmd) Run(streams *IO) error {
	if err := c.check(); err != nil {
		return err
	}
	read := filters.RunStderr{Path: c.Stderr}
	s := c.Flags.Settings(streams.Getenv, streams.Err, c.RunFacts.options(&read))
	if c.Index {
		return s.Index(c.Files, c.Output, streams.Out)
	}
	return s.Write(c.job(streams, false))
}
