package cli

import (
	"time"

	"github.com/basecontext/base-context/internal/runner"
)

// OtelCmd is `filter otel`.
type OtelCmd struct {
	FilterIO
	Content bool          `help:"Export the messages, tool arguments and results too (as recorded: redact them first with 'filter redact')."`
	Timeout time.Duration `help:"The longest wait at the end for the collector to take the last spans (default 5s)."`
}

// Run passes the stream through unchanged, exporting its runs as traces with their recorded
// times; the collector's failure is a warning, not the filter's.
func (c *OtelCmd) Run(streams *IO) error {
	st, exp, err := runner.OtelFilter(streams.Getenv, c.Timeout, c.Content, versionString())
	if err != nil {
		return err
	}
	defer exp.Shutdown(streams.Err)
	return c.run(streams, st)
}
