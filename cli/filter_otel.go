package cli

import (
	"time"

	"github.com/basecontext/base-context/stages"
	"github.com/basecontext/base-context/telemetry"
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
	exp, err := telemetry.Start(streams.Getenv, c.Timeout, versionString(), true)
	if err != nil {
		return Wrap(ExitUsage, err)
	}
	m := telemetry.NewMapper(exp.Tracer(), telemetry.Options{Recorded: true, Content: c.Content, Parent: streams.Getenv("TRACEPARENT")})
	err = c.run(streams, stages.NewOtel(m, stages.VerdictOptions{}))
	exp.Shutdown(streams.Err)
	return err
}
