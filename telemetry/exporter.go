package telemetry

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// DefaultTimeout bounds the flush at exit (--otel-timeout).
const DefaultTimeout = 5 * time.Second

// Exporter sends spans to an OTLP collector, batched, in the background: the run never waits
// for the collector but at Shutdown, and then at most its timeout.
type Exporter struct {
	provider *sdktrace.TracerProvider
	timeout  time.Duration
	endpoint string

	ended, exported atomic.Int64
	mu              sync.Mutex
	lastErr         error // the last failure to export, for the warning
}

// Start returns an exporter configured by the standard OpenTelemetry variables of getenv
// (the OTLP exporters read OTEL_EXPORTER_OTLP_* themselves): OTEL_EXPORTER_OTLP_PROTOCOL
// (or _TRACES_PROTOCOL) http/protobuf, the default, or grpc; OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES over service.name=base-context. The collector is not contacted
// until spans are sent; timeout (0: DefaultTimeout) bounds the flush at exit. A recording (filter otel) makes spans much faster than a live run:
// its queue holds more of them, so that a collector that is slow to take them loses none.
func Start(getenv func(string) string, timeout time.Duration, version string, recorded bool) (*Exporter, error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	e := &Exporter{timeout: timeout}
	// The SDK's own reports (one per failed batch) would repeat on stderr: Shutdown says
	// once what was lost and why.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(e.failed))
	otel.SetLogger(logr.Discard())

	protocol := firstSet(getenv, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")
	var exp sdktrace.SpanExporter
	var err error
	ctx := context.Background()
	switch protocol {
	case "", "http/protobuf":
		e.endpoint = endpoint(getenv, "http://localhost:4318")
		exp, err = otlptracehttp.New(ctx)
	case "grpc":
		e.endpoint = endpoint(getenv, "http://localhost:4317")
		exp, err = otlptracegrpc.New(ctx)
	default:
		return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL=%s: --otel exports over http/protobuf or grpc", protocol)
	}
	if err != nil {
		return nil, fmt.Errorf("--otel: %w", err)
	}
	res, err := resource.New(ctx, resource.WithTelemetrySDK(),
		resource.WithAttributes(attribute.String("service.name", AgentName), attribute.String("service.version", version)),
		resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("--otel: OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	e.provider = sdktrace.NewTracerProvider(sdktrace.WithResource(res),
		sdktrace.WithSpanProcessor(endCounter{&e.ended}),
		sdktrace.WithBatcher(countingExporter{exp, e}, batching(recorded)...))
	return e, nil
}

// Tracer returns the tracer of base-context's spans.
func (e *Exporter) Tracer() trace.Tracer {
	return e.provider.Tracer("github.com/basecontext/base-context/telemetry")
}

// Shutdown sends the spans still queued, waiting at most the timeout, and writes one warning
// to w when spans were lost: how many, where to, why.
func (e *Exporter) Shutdown(w io.Writer) {
	ctx, cancel := context.WithTimeout(context.Background(), e.timeout)
	defer cancel()
	err := e.provider.Shutdown(ctx)
	ended, lost := e.ended.Load(), e.ended.Load()-e.exported.Load()
	if err == nil && lost == 0 {
		return
	}
	e.mu.Lock()
	if e.lastErr != nil && (err == nil || err == context.DeadlineExceeded) {
		err = e.lastErr
	}
	e.mu.Unlock()
	if err == nil {
		err = fmt.Errorf("the exporter's queue was full")
	}
	fmt.Fprintf(w, "warning: telemetry: %d of %d spans were not exported to %s (within --otel-timeout %s): %v\n",
		lost, ended, e.endpoint, e.timeout, err)
}

func (e *Exporter) failed(err error) {
	e.mu.Lock()
	e.lastErr = err
	e.mu.Unlock()
}

// batching is the batch processor's queue: the SDK's default for a live run (2,048 spans),
// 64 Ki spans (some 64 MB at most) for a recording.
func batching(recorded bool) []sdktrace.BatchSpanProcessorOption {
	if !recorded {
		return nil
	}
	return []sdktrace.BatchSpanProcessorOption{sdktrace.WithMaxQueueSize(1 << 16), sdktrace.WithMaxExportBatchSize(2048)}
}

// countingExporter counts the spans its exporter took.
type countingExporter struct {
	sdktrace.SpanExporter
	e *Exporter
}

func (c countingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := c.SpanExporter.ExportSpans(ctx, spans)
	if err != nil {
		c.e.failed(err)
		return err
	}
	c.e.exported.Add(int64(len(spans)))
	return nil
}

// endCounter counts the spans ended: the exported ones, those lost, and the ones dropped
// from a full queue, which the batcher does not report.
type endCounter struct{ n *atomic.Int64 }

func (c endCounter) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (c endCounter) OnEnd(sdktrace.ReadOnlySpan)                     { c.n.Add(1) }
func (c endCounter) Shutdown(context.Context) error                  { return nil }
func (c endCounter) ForceFlush(context.Context) error                { return nil }

func firstSet(getenv func(string) string, names ...string) string {
	for _, n := range names {
		if v := strings.TrimSpace(getenv(n)); v != "" {
			return v
		}
	}
	return ""
}

// endpoint is where spans go, for the warning.
func endpoint(getenv func(string) string, def string) string {
	if v := getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); v != "" {
		return v
	}
	if v := getenv("OTEL_EXPORTER_OTLP_ENDPOINT"); v != "" {
		return v
	}
	return def
}

// Enabled reports whether getenv asks for telemetry (BASE_CONTEXT_OTEL=1 or true).
func Enabled(getenv func(string) string) bool {
	switch strings.ToLower(getenv("BASE_CONTEXT_OTEL")) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// ProcessEnv is getenv for the process: the OTLP exporters read the process's variables.
var ProcessEnv = os.Getenv
