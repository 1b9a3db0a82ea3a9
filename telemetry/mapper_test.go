package telemetry_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/basecontext/base-context/telemetry"
	"github.com/tidwall/gjson"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// mapStream maps the stream in file, as `filter otel` does (Recorded), and returns the spans
// made, in the order they ended.
func mapStream(t *testing.T, file string, opts telemetry.Options) tracetest.SpanStubs {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	opts.Recorded = true
	m := telemetry.NewMapper(tp.Tracer("test"), opts)
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if typ := gjson.GetBytes(sc.Bytes(), "type").String(); telemetry.Wants(typ) {
			m.Line(typ, sc.Bytes())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	m.EndRun(telemetry.RunEnd{Status: "completed"})
	return exp.GetSpans()
}

func attr(s tracetest.SpanStub, key string) attribute.Value {
	for _, kv := range s.Attributes {
		if string(kv.Key) == key {
			return kv.Value
		}
	}
	return attribute.Value{}
}

func named(spans tracetest.SpanStubs, prefix string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range spans {
		if strings.HasPrefix(s.Name, prefix) {
			out = append(out, s)
		}
	}
	return out
}

// lines counts the lines of file matching every one of the substrings.
func lines(t *testing.T, file string, subs ...string) int {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
next:
	for _, l := range strings.Split(string(data), "\n") {
		for _, s := range subs {
			if !strings.Contains(l, s) {
				continue next
			}
		}
		n++
	}
	return n
}

// The shape every stream maps to: one root per run, every other span its child in its
// trace; a chat span per assistant message, a tool span per tool execution, with their
// facts; spans that start no later than they end, within the times recorded.
func TestEveryStreamMapsToOneTreePerRun(t *testing.T) {
	files, _ := filepath.Glob("../testdata/reference/*.jsonl")
	more, _ := filepath.Glob("testdata/*.jsonl")
	files = append(files, more...)
	for _, file := range files {
		if strings.HasSuffix(file, ".session.jsonl") {
			continue
		}
		t.Run(filepath.Base(file), func(t *testing.T) {
			spans := mapStream(t, file, telemetry.Options{})
			roots := named(spans, telemetry.SpanRoot)
			if headers := lines(t, file, `{"type":"session"`); len(roots) != headers && !(headers == 0 && len(spans) == 0) {
				t.Fatalf("%d roots for %d session headers", len(roots), headers)
			}
			if len(roots) == 0 {
				return
			}
			root := roots[0]
			if got, want := attr(root, telemetry.AttrConversationID).AsString(), gjson.Get(firstLine(t, file), "id").String(); got != want {
				t.Errorf("conversation id %q, want the header's %q", got, want)
			}
			for _, s := range spans {
				if s.SpanContext.TraceID() != root.SpanContext.TraceID() {
					t.Errorf("%s: in another trace", s.Name)
				}
				if s.Name != telemetry.SpanRoot && s.Parent.SpanID() != root.SpanContext.SpanID() {
					t.Errorf("%s: not a child of the root", s.Name)
				}
				if s.EndTime.Before(s.StartTime) || s.StartTime.Before(root.StartTime) || s.EndTime.After(root.EndTime) {
					t.Errorf("%s: [%v, %v] out of order or outside the root's [%v, %v]", s.Name, s.StartTime, s.EndTime, root.StartTime, root.EndTime)
				}
			}
			chats := named(spans, "chat ")
			if want := lines(t, file, `{"type":"message_end","message":{"role":"assistant"`); len(chats) != want {
				t.Errorf("%d chat spans for %d assistant messages", len(chats), want)
			}
			var in, out int64
			for _, c := range chats {
				in += attr(c, telemetry.AttrInputTokens).AsInt64()
				out += attr(c, telemetry.AttrOutputTokens).AsInt64()
				if attr(c, telemetry.AttrOperationName).AsString() != "chat" || attr(c, telemetry.AttrRequestModel).AsString() == "" ||
					len(attr(c, telemetry.AttrFinishReasons).AsStringSlice()) != 1 {
					t.Errorf("chat span without its conventions' attributes: %v", c.Attributes)
				}
				if reason := attr(c, telemetry.AttrFinishReasons).AsStringSlice()[0]; (reason == "error" || reason == "aborted") != (c.Status.Code == codes.Error) {
					t.Errorf("chat span finished %s with status %v", reason, c.Status)
				}
			}
			if attr(root, telemetry.AttrInputTokens).AsInt64() != in || attr(root, telemetry.AttrOutputTokens).AsInt64() != out {
				t.Errorf("root totals %v/%v, the chats' %d/%d", attr(root, telemetry.AttrInputTokens), attr(root, telemetry.AttrOutputTokens), in, out)
			}
			tools := named(spans, "execute_tool ")
			gates := named(spans, telemetry.SpanGate)
			if want := lines(t, file, `{"type":"tool_execution_start"`); len(tools)+len(gates) != want {
				t.Errorf("%d tool and %d gate spans for %d tool executions", len(tools), len(gates), want)
			}
			if want := lines(t, file, `{"type":"tool_execution_end"`, `"isError":true}`); countErrors(tools)+countErrors(gates) != want {
				t.Errorf("%d tool spans in error for %d failed executions", countErrors(tools)+countErrors(gates), want)
			}
			retries := 0
			for _, e := range root.Events {
				if e.Name == telemetry.EventRetry {
					retries++
				}
			}
			if want := lines(t, file, `{"type":"auto_retry_start"`); retries != want {
				t.Errorf("%d retry events for %d retries", retries, want)
			}
			if want := lines(t, file, `{"type":"compaction_start"`); len(named(spans, telemetry.SpanCompaction)) != want {
				t.Errorf("%d compaction spans for %d compactions", len(named(spans, telemetry.SpanCompaction)), want)
			}
		})
	}
}

func countErrors(spans []tracetest.SpanStub) int {
	n := 0
	for _, s := range spans {
		if s.Status.Code == codes.Error {
			n++
		}
	}
	return n
}

func firstLine(t *testing.T, file string) string {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	return line
}

// b_tool_bash, fact by fact: the chat spans' usage and ids, the tool span, the times.
func TestToolRunFacts(t *testing.T) {
	spans := mapStream(t, "../testdata/reference/b_tool_bash.jsonl", telemetry.Options{})
	chats := named(spans, "chat mock-gpt")
	if len(chats) != 2 {
		t.Fatalf("%d chat spans", len(chats))
	}
	first := chats[0]
	for key, want := range map[string]any{
		telemetry.AttrProviderName: "mock-openai", telemetry.AttrRequestModel: "mock-gpt", telemetry.AttrResponseModel: "mock-gpt",
		telemetry.AttrInputTokens: int64(200), telemetry.AttrOutputTokens: int64(15), telemetry.AttrCacheReadTokens: int64(0),
		telemetry.AttrAPI: "openai-completions",
	} {
		if got := attr(first, key).AsInterface(); got != want {
			t.Errorf("%s = %v, want %v", key, got, want)
		}
	}
	if got := attr(first, telemetry.AttrFinishReasons).AsStringSlice(); len(got) != 1 || got[0] != "toolUse" {
		t.Errorf("finish reasons %v", got)
	}
	if !first.StartTime.Equal(time.UnixMilli(1796220163085)) || !first.EndTime.Equal(time.UnixMilli(1796220163332)) {
		t.Errorf("first chat span [%v, %v]: from its request to the next time recorded (its tool's result)", first.StartTime, first.EndTime)
	}
	tool := named(spans, "execute_tool bash")
	if len(tool) != 1 || attr(tool[0], telemetry.AttrToolCallID).AsString() != "call_ls_1" || attr(tool[0], telemetry.AttrToolName).AsString() != "bash" {
		t.Fatalf("tool spans %v", tool)
	}
	if attr(tool[0], telemetry.AttrToolArguments).Type() != attribute.EMPTY {
		t.Error("the tool's arguments exported without Content")
	}
	root := named(spans, telemetry.SpanRoot)[0]
	if attr(root, telemetry.AttrInputTokens).AsInt64() != 460 || attr(root, telemetry.AttrModelCalls).AsInt64() != 2 || attr(root, telemetry.AttrToolCalls).AsInt64() != 1 {
		t.Errorf("root totals %v", root.Attributes)
	}
	if !root.StartTime.Equal(time.UnixMilli(1796220163009)) {
		t.Errorf("root starts %v, not at the prompt", root.StartTime)
	}
}

// Contents only with Content: the prompt, the answer, the tool's arguments and result.
func TestContentOnlyWhenAsked(t *testing.T) {
	spans := mapStream(t, "../testdata/reference/b_tool_bash.jsonl", telemetry.Options{Content: true})
	tool := named(spans, "execute_tool bash")[0]
	if got := attr(tool, telemetry.AttrToolArguments).AsString(); got != `{"command":"ls"}` {
		t.Errorf("arguments %q", got)
	}
	if got := attr(tool, telemetry.AttrToolResult).AsString(); !strings.Contains(got, "hello.txt") {
		t.Errorf("result %q", got)
	}
	if got := attr(named(spans, "chat ")[1], telemetry.AttrOutputMessages).AsString(); !strings.Contains(got, "The directory contains one file") {
		t.Errorf("output messages %q", got)
	}
	root := named(spans, telemetry.SpanRoot)[0]
	if len(root.Events) != 1 || !strings.Contains(root.Events[0].Attributes[0].Value.AsString(), "List the files here") {
		t.Errorf("prompt event %v", root.Events)
	}
}

// Retries: the failed calls in error, an event per retry with its delay, then its end.
func TestRetriesAreEventsOfTheRoot(t *testing.T) {
	spans := mapStream(t, "../testdata/reference/d1_retry_then_success.jsonl", telemetry.Options{})
	chats := named(spans, "chat ")
	if len(chats) != 3 || chats[0].Status.Description != "500 mock internal error" || chats[1].Status.Code != codes.Error || chats[2].Status.Code == codes.Error {
		t.Fatalf("chat statuses: %v %v %v", chats[0].Status, chats[1].Status, chats[2].Status)
	}
	root := named(spans, telemetry.SpanRoot)[0]
	var delays []int64
	ended := false
	for _, e := range root.Events {
		for _, kv := range e.Attributes {
			switch {
			case e.Name == telemetry.EventRetry && kv.Key == telemetry.AttrRetryDelayMs:
				delays = append(delays, kv.Value.AsInt64())
			case e.Name == telemetry.EventRetryEnd && kv.Key == telemetry.AttrRetrySuccess:
				ended = kv.Value.AsBool()
			}
		}
	}
	if len(delays) != 2 || delays[0] != 2000 || delays[1] != 4000 || !ended {
		t.Errorf("retry events: delays %v, success %v", delays, ended)
	}
}

// A TRACEPARENT makes the root its child; a tool call's environment carries its span.
func TestTraceParentAndCallEnv(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	const parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	m := telemetry.NewMapper(tp.Tracer("test"), telemetry.Options{Parent: parent})
	m.Line("session", []byte(`{"type":"session","version":3,"id":"s1","timestamp":"2026-12-02T14:02:42.971Z","cwd":"/w"}`))
	m.Line("tool_execution_start", []byte(`{"type":"tool_execution_start","toolCallId":"c1","toolName":"bash","args":{}}`))
	env := m.CallEnv("c1")
	m.Line("tool_execution_end", []byte(`{"type":"tool_execution_end","toolCallId":"c1","toolName":"bash","result":{"content":[]},"isError":false}`))
	if m.CallEnv("c1") != nil {
		t.Error("an ended call still has an environment")
	}
	m.EndRun(telemetry.RunEnd{Status: "failed", ExitCode: 1, Reason: "boom"})
	spans := exp.GetSpans()
	tool, root := named(spans, "execute_tool")[0], named(spans, telemetry.SpanRoot)[0]
	if root.SpanContext.TraceID().String() != "0af7651916cd43dd8448eb211c80319c" || root.Parent.SpanID().String() != "b7ad6b7169203331" {
		t.Errorf("root %v, parent %v", root.SpanContext, root.Parent)
	}
	if want := "TRACEPARENT=00-" + tool.SpanContext.TraceID().String() + "-" + tool.SpanContext.SpanID().String() + "-01"; len(env) != 1 || env[0] != want {
		t.Errorf("call env %v, want %s", env, want)
	}
	if root.Status.Code != codes.Error || root.Status.Description != "boom" || attr(root, telemetry.AttrExitStatus).AsInt64() != 1 {
		t.Errorf("root of a failed run: %v %v", root.Status, root.Attributes)
	}
}

// A refused call, gates, compactions (one failed): their spans and statuses.
func TestGatesRefusalsAndCompactions(t *testing.T) {
	spans := mapStream(t, "testdata/gates.jsonl", telemetry.Options{})
	for _, s := range named(spans, "execute_tool bash") {
		id, kind := attr(s, telemetry.AttrToolCallID).AsString(), attr(s, telemetry.AttrErrorType).AsString()
		if (id == "call_rm") != (kind == telemetry.ErrorToolRefused) || (id == "call_rm") != (s.Status.Code == codes.Error) {
			t.Errorf("tool %s: error.type %q, status %v", id, kind, s.Status)
		}
	}
	gates := named(spans, telemetry.SpanGate)
	if len(gates) != 2 || attr(gates[0], telemetry.AttrGateCommand).AsString() != "grep -q 00- traceparent.txt" ||
		gates[0].Status.Code != codes.Error || attr(gates[0], telemetry.AttrErrorType).AsString() != telemetry.ErrorToolFailed {
		t.Errorf("gate spans %v", gates)
	}
	compaction := named(mapStream(t, "testdata/compaction.jsonl", telemetry.Options{}), telemetry.SpanCompaction)
	if len(compaction) != 1 || attr(compaction[0], telemetry.AttrCompactionReason).AsString() != "threshold" ||
		attr(compaction[0], telemetry.AttrCompactionTokensBefore).AsInt64() < 100000 || compaction[0].Status.Code == codes.Error {
		t.Errorf("compaction spans %v", compaction)
	}
	failed := named(mapStream(t, "testdata/compaction_fails.jsonl", telemetry.Options{}), telemetry.SpanCompaction)
	if len(failed) != 1 || failed[0].Status.Code != codes.Error || !strings.Contains(failed[0].Status.Description, "503 summariser unavailable") {
		t.Errorf("failed compaction spans %v", failed)
	}
}
