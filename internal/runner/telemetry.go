package runner

import (
	"io"
	"sync"
	"time"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/filters"
	"github.com/basecontext/base-context/internal/exitcode"
	"github.com/basecontext/base-context/internal/runredact"
	"github.com/basecontext/base-context/stages"
	"github.com/basecontext/base-context/telemetry"
)

// Telemetry is a run's --otel: its events mapped to spans (stages.Otel, as `filter otel`
// maps a recording, but with the clock's times) and exported as they come. A nil
// *Telemetry exports nothing.
type Telemetry struct {
	exp    *telemetry.Exporter
	mapper *telemetry.Mapper
	stage  *stages.Otel
	redact stages.Stage // with --otel-content: the run's redaction of what is exported
	mu     sync.Mutex   // the agent emits from the goroutines of its tools too
	runErr string       // why the run did not complete, as its `error:` line says
}

// OtelFlags are a run's --otel flags (kong tags; the command line embeds them).
type OtelFlags struct {
	Otel        bool          `help:"Export the run as OpenTelemetry traces over OTLP, where OTEL_EXPORTER_OTLP_ENDPOINT says (default http://localhost:4318); also BASE_CONTEXT_OTEL=1."`
	OtelContent bool          `help:"With --otel: export the messages, tool arguments and results too, redacted by the run's redaction rules."`
	OtelTimeout time.Duration `default:"5s" help:"With --otel: the longest the run waits at exit for the collector to take its last spans."`
}

// Start starts the run's telemetry, nil without --otel (or BASE_CONTEXT_OTEL): rules are the
// run's redaction rules, which redact the contents exported; gated says the run has gates.
func (f *OtelFlags) Start(getenv func(string) string, rules filters.Redaction, gated bool, version string) (*Telemetry, error) {
	if !f.Otel && !telemetry.Enabled(getenv) {
		return nil, nil
	}
	exp, err := telemetry.Start(getenv, f.OtelTimeout, version, false)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, err)
	}
	t := &Telemetry{exp: exp}
	if f.OtelContent {
		set, err := runredact.New(rules, getenv, io.Discard, false, false)
		if err != nil {
			return nil, exitcode.Wrap(exitcode.Usage, err)
		}
		t.redact = set.Stage()
	}
	t.mapper = telemetry.NewMapper(exp.Tracer(), telemetry.Options{Content: f.OtelContent, Parent: getenv("TRACEPARENT")})
	t.stage = stages.NewOtel(t.mapper, stages.VerdictOptions{Gated: gated, RunError: func() string { return t.runErr }})
	return t, nil
}

// Event maps one event of the run.
func (t *Telemetry) Event(e codec.Event) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	f := stages.EventFrame(e)
	if t.redact != nil && telemetry.Wants(e.EventType()) {
		// The stage edits the frame it redacts: a copy, since the stream has its own.
		t.redact.Push(f.Hold(), func(r *stages.Frame) error { t.stage.Observe(r); return nil })
		return
	}
	t.stage.Observe(f)
}

// CallEnv is the environment of the commands of tool call id: TRACEPARENT of its span.
func (t *Telemetry) CallEnv(id string) []string {
	if t == nil {
		return nil
	}
	return t.mapper.CallEnv(id)
}

// End ends the run's spans, the run having ended with err (nil: completed, else its exit
// status and message), and flushes them within the timeout, warning on w of what was lost.
func (t *Telemetry) End(err error, w io.Writer) {
	if t == nil {
		return
	}
	t.mu.Lock()
	if err != nil {
		_, t.runErr = exitcode.Of(err)
	}
	t.stage.Flush(nil)
	t.mu.Unlock()
	t.exp.Shutdown(w)
}

// OtelFilter is the stage of `filter otel` and its exporter, which the caller shuts down
// when the stream has ended.
func OtelFilter(getenv func(string) string, timeout time.Duration, content bool, version string) (*stages.Otel, *telemetry.Exporter, error) {
	exp, err := telemetry.Start(getenv, timeout, version, true)
	if err != nil {
		return nil, nil, exitcode.Wrap(exitcode.Usage, err)
	}
	m := telemetry.NewMapper(exp.Tracer(), telemetry.Options{Recorded: true, Content: content, Parent: getenv("TRACEPARENT")})
	return stages.NewOtel(m, stages.VerdictOptions{}), exp, nil
}
