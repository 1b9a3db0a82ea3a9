// Package telemetry turns the event stream of a run into OpenTelemetry traces in the GenAI
// semantic conventions (docs/telemetry.md): a Mapper makes the spans of the events it is
// given, an Exporter sends them to an OTLP collector and flushes them, bounded, at exit. The
// stage `filter otel` and the --otel of a run (stages.Otel) feed a Mapper the same lines.
package telemetry

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/basecontext/base-context/codec"
	"github.com/tidwall/gjson"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Options configure a Mapper.
type Options struct {
	// Recorded says the lines come from a recording: a span takes its times from the
	// timestamps recorded in the stream (see Mapper), not from the clock.
	Recorded bool
	// Content exports the contents of messages, tool arguments and results (--otel-content).
	Content bool
	// Parent is the W3C traceparent (TRACEPARENT) the roots become children of; "" for none.
	Parent string
	// Now is the clock of a live run (time.Now when nil).
	Now func() time.Time
}

// Wants reports whether the Mapper reads lines of event type typ: the others (streaming
// updates above all) need not be given to it, nor encoded for it.
func Wants(typ string) bool {
	switch typ {
	case codec.TypeSession, codec.TypeMessageStart, codec.TypeMessageEnd,
		codec.TypeToolExecutionStart, codec.TypeToolExecutionEnd,
		codec.TypeCompactionStart, codec.TypeCompactionEnd,
		codec.TypeAutoRetryStart, codec.TypeAutoRetryEnd:
		return true
	}
	return false
}

// RunEnd is how a run ended, as its verdict says (stages.VerdictSummary).
type RunEnd struct {
	Status     string // completed, failed, limit, gate, interrupted, …
	Reason     string // why not completed
	ExitCode   int
	StopReason string // of the terminal assistant message
}

// Mapper makes the spans of one stream: a root span `invoke_agent base-context` per run
// (per session header), a `chat {model}` span per assistant message, an `execute_tool {name}`
// span per tool execution, a `gate` span per gate, a `compaction` span per compaction;
// retries are events of the root. Lines are given in stream order from one goroutine;
// CallEnv may be called from others.
//
// In a recording, a span starts at the last time recorded at or before its first event (the
// header's, a message's timestamp) and ends at the first time recorded at or after its last
// event (the last one recorded when the stream ends): the span covers the real one.
type Mapper struct {
	tracer trace.Tracer
	opts   Options
	parent context.Context

	run *run

	mu    sync.Mutex // guards tools, which CallEnv reads
	tools map[string]trace.Span

	last    time.Time    // the latest time recorded so far (Recorded)
	pending []trace.Span // spans whose end waits for the next time recorded (Recorded)
}

// run is the state of one run: from its session header to the next, or the end.
type run struct {
	conversation, cwd, parentSession string
	root                             trace.Span
	rootCtx                          context.Context
	chat                             trace.Span
	compaction                       trace.Span
	calls, toolCalls, retries        int
	input, output, cacheRead, cacheW int64
	cost                             float64
	provider, model                  string
}

// NewMapper returns a Mapper making spans with tracer.
func NewMapper(tracer trace.Tracer, opts Options) *Mapper {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	parent := context.Background()
	if opts.Parent != "" {
		carrier := propagation.MapCarrier{"traceparent": opts.Parent}
		parent = propagation.TraceContext{}.Extract(parent, carrier)
	}
	return &Mapper{tracer: tracer, opts: opts, parent: parent, tools: map[string]trace.Span{}}
}

// Line maps one line of event type typ (one Wants).
func (m *Mapper) Line(typ string, line []byte) {
	if m.opts.Recorded {
		m.recordedTime(typ, line)
	}
	switch typ {
	case codec.TypeSession:
		m.endRun(RunEnd{})
		h := gjson.GetManyBytes(line, "id", "cwd", "parentSession")
		m.run = &run{conversation: h[0].String(), cwd: h[1].String(), parentSession: h[2].String()}
	case codec.TypeMessageStart:
		msg := gjson.GetBytes(line, "message")
		switch msg.Get("role").String() {
		case "user":
			m.prompt(msg)
		case "assistant":
			m.chatStart(msg)
		}
	case codec.TypeMessageEnd:
		if msg := gjson.GetBytes(line, "message"); msg.Get("role").String() == "assistant" {
			m.chatEnd(msg)
		}
	case codec.TypeToolExecutionStart:
		m.toolStart(line)
	case codec.TypeToolExecutionEnd:
		m.toolEnd(line)
	case codec.TypeCompactionStart:
		r := m.current()
		m.end(r.compaction)
		_, r.compaction = m.tracer.Start(r.rootCtx, SpanCompaction, trace.WithTimestamp(m.now()),
			trace.WithAttributes(attribute.String(AttrCompactionReason, gjson.GetBytes(line, "reason").String())))
	case codec.TypeCompactionEnd:
		m.compactionEnd(line)
	case codec.TypeAutoRetryStart:
		r := m.current()
		r.retries++
		e := gjson.GetManyBytes(line, "attempt", "maxAttempts", "delayMs", "errorMessage")
		r.root.AddEvent(EventRetry, trace.WithTimestamp(m.now()), trace.WithAttributes(
			attribute.Int64(AttrRetryAttempt, e[0].Int()), attribute.Int64(AttrRetryMaxAttempts, e[1].Int()),
			attribute.Int64(AttrRetryDelayMs, e[2].Int()), attribute.String(AttrErrorMessage, e[3].String())))
	case codec.TypeAutoRetryEnd:
		e := gjson.GetManyBytes(line, "success", "attempt", "finalError")
		attrs := []attribute.KeyValue{attribute.Bool(AttrRetrySuccess, e[0].Bool()), attribute.Int64(AttrRetryAttempt, e[1].Int())}
		if e[2].Exists() {
			attrs = append(attrs, attribute.String(AttrErrorMessage, e[2].String()))
		}
		m.current().root.AddEvent(EventRetryEnd, trace.WithTimestamp(m.now()), trace.WithAttributes(attrs...))
	}
}

// recordedTime advances the recorded clock with the timestamp line carries, if any, ending
// the spans that waited for it.
func (m *Mapper) recordedTime(typ string, line []byte) {
	var t time.Time
	switch typ {
	case codec.TypeSession:
		if m.run == nil || m.last.IsZero() { // a resumed session's header holds its creation
			t, _ = time.Parse(time.RFC3339Nano, gjson.GetBytes(line, "timestamp").String())
		}
	case codec.TypeMessageStart, codec.TypeMessageEnd:
		if ms := gjson.GetBytes(line, "message.timestamp"); ms.Exists() {
			t = time.UnixMilli(ms.Int())
		}
	}
	if t.IsZero() {
		return
	}
	if t.After(m.last) {
		m.last = t
	}
	m.flushPending()
}

func (m *Mapper) flushPending() {
	for _, s := range m.pending {
		s.End(trace.WithTimestamp(m.last))
	}
	m.pending = m.pending[:0]
}

// now is the time of the event being mapped.
func (m *Mapper) now() time.Time {
	if m.opts.Recorded {
		return m.last
	}
	return m.opts.Now()
}

// end ends span s (nil: none) now, or, in a recording, at the next time recorded.
func (m *Mapper) end(s trace.Span) {
	switch {
	case s == nil:
	case m.opts.Recorded:
		m.pending = append(m.pending, s)
	default:
		s.End(trace.WithTimestamp(m.opts.Now()))
	}
}

// current returns the run under way, its root span started.
func (m *Mapper) current() *run {
	if m.run == nil {
		m.run = &run{}
	}
	r := m.run
	if r.root == nil {
		attrs := []attribute.KeyValue{
			attribute.String(AttrOperationName, OpInvokeAgent), attribute.String(AttrAgentName, AgentName),
		}
		if r.conversation != "" {
			attrs = append(attrs, attribute.String(AttrConversationID, r.conversation))
		}
		if r.cwd != "" {
			attrs = append(attrs, attribute.String(AttrCwd, r.cwd))
		}
		if r.parentSession != "" {
			attrs = append(attrs, attribute.String(AttrParentSession, r.parentSession))
		}
		r.rootCtx, r.root = m.tracer.Start(m.parent, SpanRoot, trace.WithTimestamp(m.now()),
			trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	}
	return r
}

// prompt records a user message: with Content, as an event of the root.
func (m *Mapper) prompt(msg gjson.Result) {
	r := m.current()
	if m.opts.Content {
		r.root.AddEvent(EventPrompt, trace.WithTimestamp(m.now()),
			trace.WithAttributes(attribute.String(AttrInputMessages, "["+msg.Raw+"]")))
	}
}

func (m *Mapper) chatStart(msg gjson.Result) {
	r := m.current()
	m.end(r.chat) // a message_start without its end: the stream was cut
	f := msg.Map()
	model, provider := f["model"].String(), f["provider"].String()
	r.provider, r.model = provider, model
	at := m.now()
	if ts := f["timestamp"]; ts.Exists() {
		at = time.UnixMilli(ts.Int()) // the request's start, in both kinds of streams
	}
	_, r.chat = m.tracer.Start(r.rootCtx, OpChat+" "+model, trace.WithTimestamp(at),
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
			attribute.String(AttrOperationName, OpChat), attribute.String(AttrProviderName, provider),
			attribute.String(AttrRequestModel, model), attribute.String(AttrAPI, f["api"].String())))
}

func (m *Mapper) chatEnd(msg gjson.Result) {
	r := m.current()
	if r.chat == nil {
		m.chatStart(msg)
	}
	f := msg.Map()
	u := f["usage"].Map()
	in, out, cr, cw := u["input"].Int(), u["output"].Int(), u["cacheRead"].Int(), u["cacheWrite"].Int()
	cost := u["cost"].Get("total").Float()
	r.calls++
	r.input, r.output, r.cacheRead, r.cacheW, r.cost = r.input+in+cr+cw, r.output+out, r.cacheRead+cr, r.cacheW+cw, r.cost+cost
	stop := f["stopReason"].String()
	attrs := []attribute.KeyValue{
		attribute.String(AttrResponseModel, f["model"].String()),
		attribute.StringSlice(AttrFinishReasons, []string{stop}),
		attribute.Int64(AttrInputTokens, in+cr+cw), attribute.Int64(AttrOutputTokens, out),
		attribute.Int64(AttrCacheReadTokens, cr), attribute.Int64(AttrCacheCreationTokens, cw),
		attribute.Float64(AttrCost, cost),
	}
	if id := f["responseId"]; id.Exists() {
		attrs = append(attrs, attribute.String(AttrResponseID, id.String()))
	}
	if m.opts.Content {
		attrs = append(attrs, attribute.String(AttrOutputMessages, "["+msg.Raw+"]"))
	}
	r.chat.SetAttributes(attrs...)
	if stop == "error" || stop == "aborted" {
		r.chat.SetAttributes(attribute.String(AttrErrorType, stop))
		r.chat.SetStatus(codes.Error, f["errorMessage"].String())
	}
	m.end(r.chat)
	r.chat = nil
}

func (m *Mapper) toolStart(line []byte) {
	r := m.current()
	e := gjson.GetManyBytes(line, "toolCallId", "toolName", "args")
	id, name := e[0].String(), e[1].String()
	var span trace.Span
	if name == GateToolName {
		_, span = m.tracer.Start(r.rootCtx, SpanGate, trace.WithTimestamp(m.now()), trace.WithAttributes(
			attribute.String(AttrToolCallID, id), attribute.String(AttrGateCommand, e[2].Get("command").String())))
	} else {
		r.toolCalls++
		attrs := []attribute.KeyValue{
			attribute.String(AttrOperationName, OpExecuteTool), attribute.String(AttrToolName, name),
			attribute.String(AttrToolCallID, id), attribute.String(AttrToolType, "function"),
		}
		if m.opts.Content {
			attrs = append(attrs, attribute.String(AttrToolArguments, e[2].Raw))
		}
		_, span = m.tracer.Start(r.rootCtx, OpExecuteTool+" "+name, trace.WithTimestamp(m.now()),
			trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	}
	m.mu.Lock()
	if old := m.tools[id]; old != nil {
		m.end(old)
	}
	m.tools[id] = span
	m.mu.Unlock()
}

func (m *Mapper) toolEnd(line []byte) {
	e := gjson.GetManyBytes(line, "toolCallId", "toolName", "result", "isError")
	m.mu.Lock()
	span := m.tools[e[0].String()]
	delete(m.tools, e[0].String())
	m.mu.Unlock()
	if span == nil { // its start was not in the stream
		m.toolStart(line)
		m.mu.Lock()
		span = m.tools[e[0].String()]
		delete(m.tools, e[0].String())
		m.mu.Unlock()
	}
	if m.opts.Content {
		span.SetAttributes(attribute.String(AttrToolResult, e[2].Raw))
	}
	if e[3].Bool() {
		text := e[2].Get("content.0.text").String()
		kind, desc := ErrorToolFailed, "the tool failed"
		if strings.HasPrefix(text, codec.PermissionDeniedPrefix) {
			kind, desc = ErrorToolRefused, "refused by the permission policy"
		}
		if m.opts.Content {
			desc = text
		}
		span.SetAttributes(attribute.String(AttrErrorType, kind))
		span.SetStatus(codes.Error, desc)
	}
	m.end(span)
}

func (m *Mapper) compactionEnd(line []byte) {
	r := m.current()
	e := gjson.GetManyBytes(line, "reason", "result.tokensBefore", "aborted", "willRetry", "errorMessage", "result")
	if r.compaction == nil {
		_, r.compaction = m.tracer.Start(r.rootCtx, SpanCompaction, trace.WithTimestamp(m.now()),
			trace.WithAttributes(attribute.String(AttrCompactionReason, e[0].String())))
	}
	r.compaction.SetAttributes(attribute.Bool(AttrCompactionAborted, e[2].Bool()), attribute.Bool(AttrCompactionWillRetry, e[3].Bool()))
	if e[1].Exists() {
		r.compaction.SetAttributes(attribute.Int64(AttrCompactionTokensBefore, e[1].Int()))
	}
	if !e[5].Exists() || e[2].Bool() {
		r.compaction.SetAttributes(attribute.String(AttrErrorType, "compaction_failed"))
		r.compaction.SetStatus(codes.Error, e[4].String())
	}
	m.end(r.compaction)
	r.compaction = nil
}

// EndRun ends the run under way, saying how it ended, and every span still open.
func (m *Mapper) EndRun(end RunEnd) {
	m.endRun(end)
	if m.opts.Recorded {
		m.flushPending()
	}
}

func (m *Mapper) endRun(end RunEnd) {
	r := m.run
	if r == nil {
		return
	}
	m.run = nil
	if r.root == nil {
		return // a header and nothing else: no run
	}
	m.end(r.chat)
	m.end(r.compaction)
	m.mu.Lock()
	for _, id := range slices.Sorted(maps.Keys(m.tools)) { // in an order of their own, not the map's
		m.tools[id].SetStatus(codes.Error, "the run ended before the tool finished")
		m.end(m.tools[id])
		delete(m.tools, id)
	}
	m.mu.Unlock()
	attrs := []attribute.KeyValue{
		attribute.Int64(AttrInputTokens, r.input), attribute.Int64(AttrOutputTokens, r.output),
		attribute.Int64(AttrCacheReadTokens, r.cacheRead), attribute.Int64(AttrCacheCreationTokens, r.cacheW),
		attribute.Float64(AttrCost, r.cost), attribute.Int(AttrModelCalls, r.calls),
		attribute.Int(AttrToolCalls, r.toolCalls), attribute.Int(AttrRetries, r.retries),
	}
	if r.provider != "" {
		attrs = append(attrs, attribute.String(AttrProviderName, r.provider), attribute.String(AttrRequestModel, r.model))
	}
	if end.Status != "" {
		attrs = append(attrs, attribute.String(AttrRunStatus, end.Status), attribute.Int(AttrExitStatus, end.ExitCode))
	}
	if end.StopReason != "" {
		attrs = append(attrs, attribute.String(AttrStopReason, end.StopReason))
	}
	r.root.SetAttributes(attrs...)
	if end.Status != "" && end.ExitCode != 0 {
		r.root.SetAttributes(attribute.String(AttrErrorType, end.Status))
		r.root.SetStatus(codes.Error, end.Reason)
	}
	m.end(r.root)
}

// CallEnv returns the environment that makes the commands of tool call id (the bash tool's,
// a gate's) children of its span: TRACEPARENT, and TRACESTATE when there is one. Nil when the
// call has no span.
func (m *Mapper) CallEnv(id string) []string {
	m.mu.Lock()
	span := m.tools[id]
	m.mu.Unlock()
	if span == nil {
		return nil
	}
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(trace.ContextWithSpan(context.Background(), span), carrier)
	env := []string{"TRACEPARENT=" + carrier["traceparent"]}
	if ts := carrier["tracestate"]; ts != "" {
		env = append(env, "TRACESTATE="+ts)
	}
	return env
}
