package cli

import (
	"github.com/basecontext/base-context/filters"
	"github.com/basecontext/base-context/internal/exitcode"
	"github.com/basecontext/base-context/stages"
)

// RedactCmd is `filter redact`.
type RedactCmd struct {
	FilterIO
	filters.RedactRuleFlags
	Report    bool `help:"At the end, print on stderr how many redactions each rule made."`
	ListRules bool `help:"List the built-in rules and exit."`
}

// Run runs the filter.
func (c *RedactCmd) Run(streams *IO) error {
	if c.ListRules {
		return filters.WriteRules(streams.Out)
	}
	r, err := c.RedactRuleFlags.Redactor("", streams.Getenv, streams.Err)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	err = c.run(streams, stages.NewRedact(r))
	if c.Report {
		filters.WriteRedactReport(streams.Err, r)
	}
	return err
}
