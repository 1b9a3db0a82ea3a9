package stages_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/redact"
	"github.com/basecontext/base-context/stages"
	"github.com/basecontext/base-context/telemetry"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// The frames a stage is handed are lent (see Stage): a reader pushes every line in the same
// frame and buffer, and the agent goes on changing what its events point at. These tests run
// every stage and sink behind, and every stage before, a stage that holds the frames it is
// handed (with Frame.Hold, as a stage must) and passes them on later, and require the very
// bytes the same stage or sink gives unbuffered: from lines, through the reader, and from the
// typed events the lines decode to, each changed by its producer once Push returns.

// holdAll keeps every frame it is handed and passes them all on at the end of the stream.
type holdAll struct{ held []*stages.Frame }

func (h *holdAll) Push(f *stages.Frame, _ stages.Emit) error {
	h.held = append(h.held, f.Hold())
	return nil
}

func (h *holdAll) Flush(emit stages.Emit) error { return emitAll(h.held, emit) }

func emitAll(frames []*stages.Frame, emit stages.Emit) error {
	for _, f := range frames {
		if err := emit(f); err != nil {
			return err
		}
	}
	return nil
}

// holdOne passes each frame on when it is handed the next, the last one at the end.
type holdOne struct{ held *stages.Frame }

func (h *holdOne) Push(f *stages.Frame, emit stages.Emit) error {
	prev := h.held
	h.held = f.Hold()
	if prev == nil {
		return nil
	}
	return emit(prev)
}

func (h *holdOne) Flush(emit stages.Emit) error {
	if h.held == nil {
		return nil
	}
	return emit(h.held)
}

// holder is one of the holding stages, and whether it comes after the subject (a stage)
// rather than before it.
type holder struct {
	name  string
	new   func() stages.Stage
	after bool
}

var holders = []holder{
	{"hold all, before", func() stages.Stage { return &holdAll{} }, false},
	{"hold one, before", func() stages.Stage { return &holdOne{} }, false},
	{"hold all, after", func() stages.Stage { return &holdAll{} }, true},
	{"hold one, after", func() stages.Stage { return &holdOne{} }, true},
}

// subject is a stage or a sink under test. A stage may report besides its output (to
// report); a sink writes to w.
type subject struct {
	name  string
	stage func(t testing.TB, report io.Writer) stages.Stage
	sink  func(t testing.TB, w io.Writer) stages.Sink
}

func stageSubject(name string, newStage func(t testing.TB) stages.Stage) subject {
	return subject{name: name, stage: func(t testing.TB, _ io.Writer) stages.Stage { return newStage(t) }}
}

func sinkSubject(name string, newSink func(w io.Writer) stages.Sink) subject {
	return subject{name: name, sink: func(_ testing.TB, w io.Writer) stages.Sink { return newSink(w) }}
}

// subjects are every stage and sink of the package, the output chain among them.
var subjects = []subject{
	stageSubject("deltas", func(testing.TB) stages.Stage { return stages.NewDeltas() }),
	stageSubject("expand", func(testing.TB) stages.Stage { return stages.NewExpand() }),
	stageSubject("header", func(testing.TB) stages.Stage {
		return stages.NewHeader(stages.HeaderOptions{Header: codec.Header{Version: 3, ID: "held"}, Stamp: true, Seq: true})
	}),
	stageSubject("header-replace", func(testing.TB) stages.Stage {
		return stages.NewHeader(stages.HeaderOptions{Header: codec.Header{Version: 3, ID: "held", Cwd: "/h"}, Replace: []string{"id", "cwd"}})
	}),
	stageSubject("select", func(testing.TB) stages.Stage {
		return stages.NewSelect(stages.SelectOptions{Types: []string{"message_end", "tool_execution_end"}, Roles: []string{"assistant", "toolResult"}})
	}),
	stageSubject("select-exclude", func(testing.TB) stages.Stage {
		return stages.NewSelect(stages.SelectOptions{Types: []string{"message_update"}, Not: true, Tools: []string{"bash"}})
	}),
	stageSubject("redact", func(t testing.TB) stages.Stage {
		return newRedact(t, redact.Options{Patterns: []string{`\b[Tt]he\b`}})
	}),
	{name: "validate", stage: func(_ testing.TB, report io.Writer) stages.Stage {
		return stages.NewValidator(stages.ValidateOptions{Strict: true, Report: func(v stages.Violation) { fmt.Fprintln(report, v) }})
	}},
	stageSubject("output", func(t testing.TB) stages.Stage {
		return stages.NewOutput(stages.OutputOptions{Header: codec.Header{Version: 3, ID: "held"},
			Redact: newRedact(t, redact.Options{Patterns: []string{`\b[Tt]he\b`}}).(*stages.Redact), Deltas: true})
	}),
	sinkSubject("text", func(w io.Writer) stages.Sink {
		return stages.NewText(w, stages.TextOptions{Thinking: true})
	}),
	sinkSubject("text-follow", func(w io.Writer) stages.Sink {
		return stages.NewText(w, stages.TextOptions{Follow: true, Thinking: true})
	}),
	sinkSubject("verdict", func(w io.Writer) stages.Sink { return stages.NewVerdict(w, stages.VerdictOptions{}) }),
	{name: "otel", stage: func(_ testing.TB, report io.Writer) stages.Stage {
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spanReport{report}))
		return stages.NewOtel(telemetry.NewMapper(tp.Tracer("held"), telemetry.Options{Recorded: true, Content: true}), stages.VerdictOptions{})
	}},
}

// spanReport writes each span it exports as a line of text: its name, times, attributes,
// events and status.
type spanReport struct{ w io.Writer }

func (r spanReport) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	for _, s := range spans {
		fmt.Fprintln(r.w, s.Name(), s.StartTime().UnixMilli(), s.EndTime().UnixMilli(), s.Attributes(), s.Events(), s.Status())
	}
	return nil
}

func (spanReport) Shutdown(context.Context) error { return nil }

// The subjects are every stage and sink the package exports: a type with a Push or Consume
// method.
func TestSubjectsAreEveryStageAndSink(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	want := map[string]bool{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || (fn.Name.Name != "Push" && fn.Name.Name != "Consume") {
				continue
			}
			recv := fn.Recv.List[0].Type
			if star, ok := recv.(*ast.StarExpr); ok {
				recv = star.X
			}
			if name := recv.(*ast.Ident).Name; ast.IsExported(name) {
				want[name] = true
			}
		}
	}
	for _, s := range subjects {
		var made any
		if s.sink != nil {
			made = s.sink(t, io.Discard)
		} else {
			made = s.stage(t, io.Discard)
		}
		delete(want, reflect.TypeOf(made).Elem().Name())
	}
	if len(want) > 0 {
		t.Errorf("stages or sinks missing from the subjects: %v", slices.Sorted(maps.Keys(want)))
	}
}

// heldRun is one way to run a subject: its stage or sink, wrapped or not.
type heldRun struct {
	stage stages.Stage
	sink  stages.Sink
}

// made makes the subject, writing to out and reporting to report, behind (or before) h.
func made(t testing.TB, s subject, h *holder, out, report io.Writer) heldRun {
	if s.sink != nil {
		sink := s.sink(t, out)
		if h != nil {
			sink = &behind{h.new(), sink}
		}
		return heldRun{sink: sink}
	}
	st := s.stage(t, report)
	switch {
	case h == nil:
	case h.after:
		st = stages.Chain(st, h.new())
	default:
		st = stages.Chain(h.new(), st)
	}
	return heldRun{stage: st}
}

// behind is a stage ending in a sink: a sink too.
type behind struct {
	stage stages.Stage
	sink  stages.Sink
}

func (b *behind) Consume(f *stages.Frame) error { return b.stage.Push(f, b.sink.Consume) }

func (b *behind) Close() error {
	if err := b.stage.Flush(b.sink.Consume); err != nil {
		return err
	}
	return b.sink.Close()
}

// fromLines runs r over data as the filters do, through the reader.
func (r heldRun) fromLines(data []byte, out *codec.LineWriter) error {
	in := []stages.Input{{Name: "test", Reader: bytes.NewReader(data)}}
	var err error
	if r.sink != nil {
		_, err = stages.RunSink(in, out, r.sink, stages.RunOptions{})
	} else {
		_, err = stages.Run(in, out, r.stage, stages.RunOptions{})
	}
	return err
}

// fromEvents runs r over the frames of typed, as the agent's output chain does, and has each
// frame's producer change it once Push has returned.
func (r heldRun) fromEvents(typed []typedLine, out *codec.LineWriter) error {
	write := func(f *stages.Frame) error { return f.WriteLine(out) }
	var buf []byte
	for i, l := range typed {
		var f *stages.Frame
		var e codec.Event
		if l.event {
			e, _ = decodeEvent(l.line) // an event of this run's own, to change
			f = stages.EventFrame(e)
		} else {
			buf = append(buf[:0], l.line...)
			f = stages.LineFrame(buf, i+1)
		}
		var err error
		if r.sink != nil {
			err = r.sink.Consume(f)
		} else {
			err = r.stage.Push(f, write)
		}
		if err != nil {
			return err
		}
		if e != nil {
			reflect.ValueOf(e).Elem().SetZero() // the producer moves on
		}
		for i := range buf {
			buf[i] = 'X' // the producer's buffer holds the next line
		}
	}
	if r.sink != nil {
		return r.sink.Close()
	}
	return r.stage.Flush(write)
}

// typedLine is a line as the agent hands it over: as a typed event when the line decodes to
// one that encodes to it byte for byte, else as the line.
type typedLine struct {
	line  []byte
	event bool
}

// outputs runs s over data with holding stage h (nil: none), from lines and from typed
// events (unless there are none), and returns, for each, what it wrote and what it
// reported, or how it failed.
func outputs(t testing.TB, s subject, h *holder, data []byte, typed []typedLine) (got [2]string) {
	for i := range got {
		if i == 1 && typed == nil {
			break
		}
		got[i] = output(t, s, h, func(r heldRun, out *codec.LineWriter) error {
			if i == 0 {
				return r.fromLines(data, out)
			}
			return r.fromEvents(typed, out)
		})
	}
	return got
}

func output(t testing.TB, s subject, h *holder, feed func(heldRun, *codec.LineWriter) error) (got string) {
	defer func() {
		if p := recover(); p != nil {
			got = fmt.Sprintf("panic: %v", p)
		}
	}()
	var out, report bytes.Buffer
	lw := codec.NewLineWriter(&out)
	if err := feed(made(t, s, h, lw, &report), lw); err != nil {
		return "error: " + err.Error()
	}
	return out.String() + "\n-- reported --\n" + report.String()
}

// heldDiffers returns, for each holding stage that changes what s gives on data, how.
func heldDiffers(t testing.TB, s subject, data []byte, typed []typedLine) []string {
	want := outputs(t, s, nil, data, typed)
	var diffs []string
	for _, h := range holders {
		if h.after && s.sink != nil {
			continue // nothing comes after a sink
		}
		got := outputs(t, s, &h, data, typed)
		for i, path := range []string{"from lines", "from typed events"} {
			if got[i] != want[i] {
				diffs = append(diffs, fmt.Sprintf("%s, %s: %s", h.name, path, firstDifference(got[i], want[i])))
			}
		}
	}
	return diffs
}

func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d is %.300q, want %.300q", i+1, gl, wl)
		}
	}
	return "same lines"
}

// testdataStreams returns every *.jsonl file of testdata, by path, and all of them twice over
// as one stream, too long for a reader's buffer: the reader reuses its buffer as well as its
// frame.
func testdataStreams(t testing.TB) map[string][]byte {
	streams := map[string][]byte{}
	err := filepath.WalkDir("../testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		data, err := os.ReadFile(path)
		streams[path] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(streams) < 50 {
		t.Fatalf("found only %d streams in testdata", len(streams))
	}
	paths := slices.Sorted(maps.Keys(streams))
	var all []byte
	for range 2 {
		for _, p := range paths {
			all = append(all, streams[p]...)
		}
	}
	if len(all) < 2*readerBuffer {
		t.Fatalf("all of testdata twice over is %d bytes, less than two reader buffers", len(all))
	}
	streams[allTestdata] = all
	return streams
}

const (
	allTestdata  = "all of testdata, twice over"
	readerBuffer = 256 << 10 // codec's readSize
)

// typedLines decodes each line of data to its event where it can, and counts the events of
// each type. A stream that is not valid has none: the agent's events make valid streams, and
// a stage may treat typed events in ways they cannot come (a redacted block the agent left
// open, say) otherwise than lines.
func typedLines(t testing.TB, data []byte, types map[string]int) (typed []typedLine) {
	violations := 0
	run(t, stages.NewValidator(stages.ValidateOptions{Report: func(stages.Violation) { violations++ }}), data)
	if violations > 0 {
		return nil
	}
	for _, l := range lines(data) {
		e, ok := decodeEvent(l)
		if ok {
			types[e.EventType()]++
		}
		typed = append(typed, typedLine{line: l, event: ok})
	}
	return typed
}

// Every stage and sink gives the same bytes whether the frames it is handed, or those it
// hands on, are held for a while or not, on every stream of testdata.
func TestStagesSafeToHold(t *testing.T) {
	streams := testdataStreams(t)
	types := map[string]int{}
	for path, data := range streams {
		typed := typedLines(t, data, types)
		for _, s := range subjects {
			for _, d := range heldDiffers(t, s, data, typed) {
				t.Errorf("%s on %s: %s", s.name, path, d)
			}
		}
	}
	t.Logf("typed events by type: %v", types)
	// The event path must be exercised: most event types decode from testdata, line for line.
	for _, typ := range []string{codec.TypeSession, codec.TypeAgentStart, codec.TypeAgentEnd, codec.TypeTurnStart,
		codec.TypeTurnEnd, codec.TypeMessageStart, codec.TypeMessageUpdate, codec.TypeMessageEnd,
		codec.TypeToolExecutionStart, codec.TypeToolExecutionUpdate, codec.TypeToolExecutionEnd,
		codec.TypeAutoRetryStart, codec.TypeAutoRetryEnd} {
		if types[typ] == 0 {
			t.Errorf("no %s line of testdata decoded to a typed event", typ)
		}
	}
}

// keepsFrame keeps the frames it is handed without Hold, and passes them on at the end: what
// the test must catch.
type keepsFrame struct{ kept []*stages.Frame }

func (k *keepsFrame) Push(f *stages.Frame, _ stages.Emit) error {
	k.kept = append(k.kept, f)
	return nil
}

func (k *keepsFrame) Flush(emit stages.Emit) error { return emitAll(k.kept, emit) }

// keepsEvent keeps the typed events it is handed and passes them on at the end; lines it
// passes on at once.
type keepsEvent struct{ kept []codec.Event }

func (k *keepsEvent) Push(f *stages.Frame, emit stages.Emit) error {
	if f.Event == nil {
		return emit(f)
	}
	k.kept = append(k.kept, f.Event)
	return nil
}

func (k *keepsEvent) Flush(emit stages.Emit) error {
	for _, e := range k.kept {
		if err := emit(stages.EventFrame(e)); err != nil {
			return err
		}
	}
	return nil
}

// keepsLine keeps the line of each frame without copying it, and writes the lines when the
// stream ends: a sink that holds what it was lent.
type keepsLine struct {
	w    io.Writer
	kept [][]byte
}

func (k *keepsLine) Consume(f *stages.Frame) error {
	k.kept = append(k.kept, f.Line())
	return nil
}

func (k *keepsLine) Close() error {
	for _, l := range k.kept {
		if _, err := fmt.Fprintf(k.w, "%s\n", l); err != nil {
			return err
		}
	}
	return nil
}

// The test of the test: a stage or sink that keeps what it was lent is caught, from lines
// or from typed events.
func TestHeldDiffersCatchesKeptFrames(t *testing.T) {
	streams := testdataStreams(t)
	typed := typedLines(t, streams["../testdata/reference/b_tool_bash.jsonl"], map[string]int{})
	data := streams[allTestdata] // lines kept from the reader's buffer change only in a long stream
	for _, c := range []struct {
		subject subject
		path    string // where the keeping shows
	}{
		{stageSubject("keeps frames", func(testing.TB) stages.Stage { return &keepsFrame{} }), "from lines"},
		{stageSubject("keeps events", func(testing.TB) stages.Stage { return &keepsEvent{} }), "from typed events"},
		{sinkSubject("keeps lines", func(w io.Writer) stages.Sink { return &keepsLine{w: w} }), "from lines"},
	} {
		diffs := heldDiffers(t, c.subject, data, typed)
		if !strings.Contains(strings.Join(diffs, "\n"), c.path) {
			t.Errorf("%s: not caught %s; found %q", c.subject.name, c.path, diffs)
		}
	}
	// And a stage that holds what it keeps passes.
	if diffs := heldDiffers(t, stageSubject("holds", func(testing.TB) stages.Stage { return &holdAll{} }), data, typed); len(diffs) > 0 {
		t.Errorf("holdAll: %q", diffs)
	}
}

// decodeEvent decodes a line to the typed event it encodes, ok only when the event encodes
// back to the line byte for byte.
func decodeEvent(line []byte) (e codec.Event, ok bool) {
	e, ok = decodeEventRaw(line)
	return e, ok && bytes.Equal(e.AppendJSON(nil), line)
}

func decodeEventRaw(line []byte) (e codec.Event, ok bool) {
	var v struct {
		Type          string
		MessageID     int64
		Message       json.RawMessage
		Messages      []json.RawMessage
		ToolResults   []json.RawMessage
		Update        *updateFields `json:"assistantMessageEvent"`
		ToolCallID    string
		ToolName      string
		Args          json.RawMessage
		PartialResult toolResultFields
		Result        json.RawMessage
		IsError       bool
		Actions       *codec.SessionActions
		Reason        string
		Aborted       bool
		WillRetry     bool
		ErrorMessage  string
		Attempt       int64
		MaxAttempts   int64
		DelayMs       int64
		Success       bool
		FinalError    string
	}
	if json.Unmarshal(line, &v) != nil {
		return nil, false
	}
	d := eventDecoder{}
	switch v.Type {
	case codec.TypeSession:
		h, err := codec.ParseHeader(line)
		d.check(err)
		e = h
	case codec.TypeAgentStart:
		e = &codec.AgentStart{}
	case codec.TypeAgentEnd:
		ms := []codec.Message{}
		for _, m := range v.Messages {
			ms = append(ms, d.message(m))
		}
		e = &codec.AgentEnd{Messages: ms}
	case codec.TypeTurnStart:
		e = &codec.TurnStart{}
	case codec.TypeTurnEnd:
		results := []*codec.ToolResultMessage{}
		for _, m := range v.ToolResults {
			r, ok := d.message(m).(*codec.ToolResultMessage)
			if !ok {
				return nil, false
			}
			results = append(results, r)
		}
		e = &codec.TurnEnd{Message: d.message(v.Message), ToolResults: results}
	case codec.TypeMessageStart:
		e = &codec.MessageStart{MessageID: v.MessageID, Message: d.message(v.Message)}
	case codec.TypeMessageEnd:
		e = &codec.MessageEnd{MessageID: v.MessageID, Message: d.message(v.Message)}
	case codec.TypeMessageUpdate:
		if v.Update == nil {
			return nil, false
		}
		u := &codec.MessageUpdate{MessageID: v.MessageID, Update: d.update(v.Update)}
		if v.Message != nil {
			u.Message = d.assistant(v.Message)
		}
		e = u
	case codec.TypeToolExecutionStart:
		e = &codec.ToolExecutionStart{ToolCallID: v.ToolCallID, ToolName: v.ToolName, Args: v.Args}
	case codec.TypeToolExecutionUpdate:
		e = &codec.ToolExecutionUpdate{ToolCallID: v.ToolCallID, ToolName: v.ToolName, Args: v.Args,
			PartialResult: d.toolResult(v.PartialResult)}
	case codec.TypeToolExecutionEnd:
		var r toolResultFields
		d.check(json.Unmarshal(v.Result, &r))
		e = &codec.ToolExecutionEnd{ToolCallID: v.ToolCallID, ToolName: v.ToolName, Result: d.toolResult(r), IsError: v.IsError}
	case codec.TypeSessionActionUpdate:
		if v.Actions == nil {
			return nil, false
		}
		e = &codec.SessionActionUpdate{Actions: *v.Actions}
	case codec.TypeCompactionStart:
		e = &codec.CompactionStart{Reason: v.Reason}
	case codec.TypeCompactionEnd:
		c := &codec.CompactionEnd{Reason: v.Reason, Aborted: v.Aborted, WillRetry: v.WillRetry, ErrorMessage: v.ErrorMessage}
		if v.Result != nil {
			c.Result = &codec.CompactionResult{}
			d.check(json.Unmarshal(v.Result, c.Result))
		}
		e = c
	case codec.TypeAutoRetryStart:
		e = &codec.AutoRetryStart{Attempt: v.Attempt, MaxAttempts: v.MaxAttempts, DelayMs: v.DelayMs, ErrorMessage: v.ErrorMessage}
	case codec.TypeAutoRetryEnd:
		e = &codec.AutoRetryEnd{Success: v.Success, Attempt: v.Attempt, FinalError: v.FinalError}
	default:
		return nil, false
	}
	if d.failed {
		return nil, false
	}
	return e, true
}

type updateFields struct {
	Type         string
	ContentIndex int64
	Delta        string
	Content      string
	ToolCall     json.RawMessage
	Partial      json.RawMessage
}

type toolResultFields struct {
	Content json.RawMessage
	Details json.RawMessage
}

// eventDecoder decodes the parts of an event, remembering whether any failed.
type eventDecoder struct{ failed bool }

func (d *eventDecoder) check(err error) {
	if err != nil {
		d.failed = true
	}
}

func (d *eventDecoder) message(raw json.RawMessage) codec.Message {
	m, err := codec.ParseMessage(raw)
	d.check(err)
	return m
}

func (d *eventDecoder) assistant(raw json.RawMessage) *codec.AssistantMessage {
	m, _ := d.message(raw).(*codec.AssistantMessage)
	if m == nil {
		d.failed = true
	}
	return m
}

func (d *eventDecoder) update(u *updateFields) *codec.AssistantMessageEvent {
	ev := &codec.AssistantMessageEvent{Type: u.Type, ContentIndex: u.ContentIndex, Delta: u.Delta, Content: u.Content}
	if u.ToolCall != nil {
		if c, err := codec.ParseContent(u.ToolCall); err == nil {
			ev.ToolCall, _ = c.(*codec.ToolCall)
		} else { // the delta form's {id, name}
			var ref struct{ ID, Name string }
			d.check(json.Unmarshal(u.ToolCall, &ref))
			ev.ToolCall = &codec.ToolCall{ID: ref.ID, Name: ref.Name}
		}
	}
	if u.Partial != nil {
		ev.Partial = d.assistant(u.Partial)
	}
	return ev
}

func (d *eventDecoder) toolResult(r toolResultFields) codec.ToolResult {
	cs, err := codec.ParseContents(r.Content)
	d.check(err)
	return codec.ToolResult{Content: cs, Details: r.Details}
}
