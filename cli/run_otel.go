package cli

import (
	"time"

	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/internal/runner"
	"github.com/basecontext/base-context/telemetry"
)

// OtelFlags are --otel and its options (docs/telemetry.md).
type OtelFlags struct {
	Otel        bool          `help:"Export the run as OpenTelemetry traces over OTLP, where OTEL_EXPORTER_OTLP_ENDPOINT says (default http://localhost:4318); also BASE_CONTEXT_OTEL=1."`
	OtelContent bool          `help:"With --otel: export the messages, tool arguments and results too, redacted by the run's redaction rules."`
	OtelTimeout time.Duration `default:"5s" help:"With --otel: the longest the run waits at exit for the collector to take its last spans."`
}

// startTelemetry starts the run's --otel, nil without it.
func (c *RunCmd) startTelemetry(streams *IO, models *provider.Models) (*runner.Telemetry, error) {
	if !c.Otel && !telemetry.Enabled(streams.Getenv) {
		return nil, nil
	}
	rules := c.RedactRule.rules("redact-", models.Keys(c.APIKey))
	return runner.StartTelemetry(runner.TelemetryOptions{Getenv: streams.Getenv, Timeout: c.OtelTimeout,
		Content: c.OtelContent, Rules: &rules, Gated: len(c.Gate) > 0, Version: versionString()})
}
