package stages_test

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/redact"
	"github.com/basecontext/base-context/stages"
)

// A stage may pass the next delta of a block as it passed the one before it when the reader
// says that only the delta's text differs (Frame.repeatsDeltaOf). These tests feed streams
// whose lines differ from the line before in every way, through the reader (where that
// shortcut applies) and as fresh frames, one per line (where it never does), and require
// the same output, violations and results.

// repeatStream makes a delta-form stream from data: each line of data is a delta's value
// (raw JSON, so possibly not a string, or not JSON), or, after a '#', a whole line.
func repeatStream(data string) []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}` + "\n")
	b.WriteString(`{"type":"agent_start"}` + "\n" + `{"type":"turn_start"}` + "\n")
	b.WriteString(`{"type":"message_start","messageId":1,"message":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1}}` + "\n")
	b.WriteString(`{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_start","contentIndex":0}}` + "\n")
	for _, piece := range strings.Split(data, "\n") {
		if rest, ok := strings.CutPrefix(piece, "#"); ok {
			b.WriteString(rest + "\n")
			continue
		}
		b.WriteString(`{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":` + piece + "}}\n")
	}
	b.WriteString(`{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_end","contentIndex":0,"content":"x"}}` + "\n")
	return b.Bytes()
}

// runBoth runs the stage made by mk over stream through the reader and as fresh frames,
// returning both outputs. Through the reader it runs twice, the stream read at once and in
// reads of 7 bytes (which cut runs of lines, and lines, where a read ends), and requires the
// same output.
func runBoth(t *testing.T, stream []byte, mk func() stages.Stage) (read, fresh string) {
	var out bytes.Buffer
	w := codec.NewBatchWriter(&out)
	for i, r := range []io.Reader{bytes.NewReader(stream), &chunkReader{stream, 7}} {
		out.Reset()
		if _, err := stages.Run([]stages.Input{{Name: "s", Reader: r}}, w, mk(), stages.RunOptions{}); err != nil {
			t.Fatal(err)
		}
		if i > 0 && out.String() != read {
			t.Fatalf("read at once\n%s\nread in pieces\n%s", read, out.String())
		}
		read = out.String()
	}
	out.Reset()
	st := mk()
	emit := func(f *stages.Frame) error { return w.WriteLine(f.Line()) }
	for n, line := range bytes.Split(bytes.TrimSuffix(stream, []byte("\n")), []byte("\n")) {
		f := stages.LineFrame(bytes.Clone(line), n+1)
		f.Check()
		if err := st.Push(f, emit); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Flush(emit); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return read, out.String()
}

// chunkReader reads its data at most n bytes at a time.
type chunkReader struct {
	data []byte
	n    int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.data)
	c.data = c.data[k:]
	return k, nil
}

// sinkBoth is runBoth for a sink.
func sinkBoth(t *testing.T, stream []byte, mk func(w *codec.LineWriter) stages.Sink) (read, fresh string) {
	var out bytes.Buffer
	w := codec.NewBatchWriter(&out)
	for i, r := range []io.Reader{bytes.NewReader(stream), &chunkReader{stream, 7}} {
		out.Reset()
		if _, err := stages.RunSink([]stages.Input{{Name: "s", Reader: r}}, w, mk(w), stages.RunOptions{}); err != nil {
			t.Fatal(err)
		}
		if i > 0 && out.String() != read {
			t.Fatalf("read at once\n%q\nread in pieces\n%q", read, out.String())
		}
		read = out.String()
	}
	out.Reset()
	sink := mk(w)
	for n, line := range bytes.Split(bytes.TrimSuffix(stream, []byte("\n")), []byte("\n")) {
		f := stages.LineFrame(bytes.Clone(line), n+1)
		f.Check()
		if err := sink.Consume(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return read, out.String()
}

func checkRepeats(t *testing.T, data string) {
	checkStreamRepeats(t, repeatStream(data))
}

// checkStreamRepeats runs the stages that take what a repeated line repeats over stream
// through the reader and as fresh frames, and requires the same output, violations and results.
func checkStreamRepeats(t *testing.T, stream []byte) {
	var read, fresh string
	for _, opts := range []stages.SelectOptions{{Types: []string{"message_update"}}, {Types: []string{"message_*"}, Roles: []string{"assistant"}, Not: true}} {
		read, fresh = runBoth(t, stream, func() stages.Stage { return stages.NewSelect(opts) })
		if read != fresh {
			t.Fatalf("select %+v: through the reader\n%s\nas fresh frames\n%s", opts, read, fresh)
		}
	}
	for _, thinking := range []bool{false, true} {
		read, fresh := sinkBoth(t, stream, func(w *codec.LineWriter) stages.Sink {
			return stages.NewText(w, stages.TextOptions{Follow: true, Thinking: thinking})
		})
		if read != fresh {
			t.Fatalf("text --follow: through the reader\n%q\nas fresh frames\n%q", read, fresh)
		}
	}
	read, fresh = runBoth(t, stream, func() stages.Stage { return stages.NewDeltas() })
	if read != fresh {
		t.Fatalf("deltas: through the reader\n%s\nas fresh frames\n%s", read, fresh)
	}
	for _, opts := range []stages.HeaderOptions{{Stamp: true, Seq: true}, {Seq: true}, {Stamp: true}} {
		if read, fresh = runBoth(t, stream, func() stages.Stage { return stages.NewHeader(opts) }); read != fresh {
			t.Fatalf("header %+v: through the reader\n%s\nas fresh frames\n%s", opts, read, fresh)
		}
	}
	// Chains skip the next deltas as their stages say: the first that does not pass them
	// decides, and only the last may edit them.
	for name, mk := range map[string]func() stages.Stage{
		"deltas | select": func() stages.Stage {
			return stages.Chain(stages.NewDeltas(), stages.NewSelect(stages.SelectOptions{Types: []string{"message_update"}}))
		},
		"select --not | deltas | validate": func() stages.Stage {
			return stages.Chain(stages.NewSelect(stages.SelectOptions{Types: []string{"message_update"}, Not: true}),
				stages.NewDeltas(), stages.NewValidator(stages.ValidateOptions{}))
		},
		"deltas | header --seq": func() stages.Stage {
			return stages.Chain(stages.NewDeltas(), stages.NewHeader(stages.HeaderOptions{Seq: true}))
		},
		"header --seq | deltas": func() stages.Stage {
			return stages.Chain(stages.NewHeader(stages.HeaderOptions{Seq: true}), stages.NewDeltas())
		},
	} {
		if read, fresh = runBoth(t, stream, mk); read != fresh {
			t.Fatalf("%s: through the reader\n%s\nas fresh frames\n%s", name, read, fresh)
		}
	}
	for _, opts := range []redact.Options{{Literals: []redact.Literal{{ID: "literal", Value: "b\u00e9b\u00e9"}}}, {}} {
		r, err := redact.New(opts) // the built-in rules alone let quiet blocks skip their deltas
		if err != nil {
			t.Fatal(err)
		}
		read, fresh = runBoth(t, stream, func() stages.Stage { return stages.NewRedact(r) })
		if read != fresh {
			t.Fatalf("redact %+v: through the reader\n%s\nas fresh frames\n%s", opts, read, fresh)
		}
	}
	for _, strict := range []bool{false, true} {
		var violations [3][]stages.Violation // read at once, in pieces, as fresh frames
		var results [3]stages.ValidateResult
		run := 0
		read, fresh := runBoth(t, stream, func() stages.Stage {
			i := run
			run++
			v := stages.NewValidator(stages.ValidateOptions{Strict: strict, Report: func(v stages.Violation) {
				violations[i] = append(violations[i], v)
			}})
			return stages.Chain(v, resultTaker{func() { results[i] = v.Result() }})
		})
		if read != fresh || !reflect.DeepEqual(violations[0], violations[2]) || results[0] != results[2] ||
			!reflect.DeepEqual(violations[0], violations[1]) || results[0] != results[1] {
			t.Fatalf("validate (strict %v) on\n%s: through the reader %v %+v, in pieces %v %+v, as fresh frames %v %+v", strict, stream,
				violations[0], results[0], violations[1], results[1], violations[2], results[2])
		}
	}
}

// resultTaker calls take when the stream ends, after the stage before it has flushed.
type resultTaker struct{ take func() }

func (r resultTaker) Push(f *stages.Frame, emit stages.Emit) error { return emit(f) }
func (r resultTaker) Flush(stages.Emit) error                      { r.take(); return nil }

// It passes the next deltas of a block as they come, so that the stage before it may skip them.
func (r resultTaker) NextDeltas() stages.NextDeltas       { return stages.PassDeltas }
func (r resultTaker) SkippedDeltas(stages.DeltaRun) error { return nil }

// repeatCases are the runs both forms are tried with: the delta changed in every way
// (emptied, not a string, not JSON, a member more, a duplicate key, a lone surrogate) and
// another event between.
var repeatCases = []string{
	`"a"` + "\n" + `"b"` + "\n" + `"cd"` + "\n" + `""`,
	`"a"` + "\n" + `"b"` + "\n" + `5` + "\n" + `"c"`,
	`"a"` + "\n" + `"b\"` + "\n" + `"c"`,
	`"a"` + "\n" + `"b","partial":{}` + "\n" + `"c"`,
	`"a"` + "\n" + `"b","delta":"x"` + "\n" + `"c"`,
	`"a"` + "\n" + `"\ud800"` + "\n" + `"\u00e9"` + "\n" + `"c"`,
	`"a"` + "\n" + `#{"type":"turn_end"}` + "\n" + `"b"` + "\n" + `"c"`,
}

func TestRepeatedDeltas(t *testing.T) {
	for _, data := range append(slices.Clone(repeatCases), []string{
		`"a"` + "\n" + `"sk-ant-api03-"` + "\n" + `"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"` + "\n" + `" done"` + "\n" + `"x b\u00e9b\u00e9 y"` + "\n" + `"b\u00e9 "`, // secrets
		`"a"` + "\n" + `#{"type":"message_update","messageId":2,"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"b"}}` + "\n" + `"c"`,
		`"a"` + "\n" + `#{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"b"},"x":"y"}` + "\n" + `#{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"b"},"x":"yz"}`,
		`"a"` + "\n" + `#{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","contentIndex":1,"delta":"b"}}` + "\n" + `#{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","contentIndex":1,"delta":"bc"}}`,
		`"a"` + "\n" + `#{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_end","contentIndex":0,"content":"a"}}` + "\n" + `"b"` + "\n" + `"c"`,
		// A thinking block, and deltas with escapes.
		`"a"` + "\n" + `#{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"thinking_start","contentIndex":1}}` + "\n" +
			`#{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"thinking_delta","contentIndex":1,"delta":"t"}}` + "\n" +
			`#{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"thinking_delta","contentIndex":1,"delta":"u\nv"}}` + "\n" + `"b\u00e9"` + "\n" + `"c"`,
		// The last string of the update is its type: a change of type is no new text.
		`"a"` + "\n" + `#{"type":"message_update","messageId":1,"assistantMessageEvent":{"contentIndex":0,"delta":"b","type":"text_delta"}}` + "\n" +
			`#{"type":"message_update","messageId":1,"assistantMessageEvent":{"contentIndex":0,"delta":"b","type":"text_end"}}` + "\n" +
			`#{"type":"message_update","messageId":1,"assistantMessageEvent":{"contentIndex":0,"delta":"b","type":"text_deltb"}}`,
	}...) {
		checkRepeats(t, data)
	}
}

// fullRepeatStream makes a full-form stream from data: each line of data is a delta's value
// (raw JSON), which, when it is a string, is added to the texts of both snapshots; or, after
// a '|', the delta's value, the text of the partial snapshot and the text of the message
// snapshot (raw JSON), separated by '|'; or, after a '#', a whole line.
func fullRepeatStream(data string) []byte {
	var b bytes.Buffer
	msg := func(text string) string {
		return `{"role":"assistant","content":[{"type":"text","text":` + text + `}],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1}`
	}
	b.WriteString(`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}` + "\n")
	b.WriteString(`{"type":"agent_start"}` + "\n" + `{"type":"turn_start"}` + "\n")
	b.WriteString(`{"type":"message_start","message":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1}}` + "\n")
	b.WriteString(`{"type":"message_update","assistantMessageEvent":{"type":"text_start","contentIndex":0,"partial":` + msg(`""`) + `},"message":` + msg(`""`) + "}\n")
	text := ""
	for _, piece := range strings.Split(data, "\n") {
		if rest, ok := strings.CutPrefix(piece, "#"); ok {
			b.WriteString(rest + "\n")
			continue
		}
		delta, partial, message := piece, "", ""
		if rest, ok := strings.CutPrefix(piece, "|"); ok {
			parts := append(strings.SplitN(rest, "|", 3), "", "")
			delta, partial, message = parts[0], parts[1], parts[2]
		} else {
			if body, ok := strings.CutPrefix(piece, `"`); ok && strings.HasSuffix(body, `"`) {
				text += body[:len(body)-1]
			}
			partial, message = `"`+text+`"`, `"`+text+`"`
		}
		b.WriteString(`{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":` + delta + `,"partial":` + msg(partial) + `},"message":` + msg(message) + "}\n")
	}
	b.WriteString(`{"type":"message_update","assistantMessageEvent":{"type":"text_end","contentIndex":0,"content":"x","partial":` + msg(`"x"`) + `},"message":` + msg(`"x"`) + "}\n")
	b.WriteString(`{"type":"message_end","message":` + msg(`"x"`) + "}\n")
	return b.Bytes()
}

// The full form's updates repeat the line before but for their delta and the texts of their
// two snapshots (codec.Index.RepeatsStrings).
func TestRepeatedFullUpdates(t *testing.T) {
	for _, data := range append(slices.Clone(repeatCases), []string{
		`"a"` + "\n" + `"sk-ant-api03-"` + "\n" + `"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"` + "\n" + `" done"` + "\n" + `"x b\u00e9b\u00e9 y"`, // secrets
		`"a"` + "\n" + `|"b"|"ab"|"a"` + "\n" + `|"c"|"abc"|"abc"` + "\n" + `"d"`,                                                                         // snapshots that differ
		`"a"` + "\n" + `|"b"|"ab"|5` + "\n" + `|"c"|"abc"|"abc"` + "\n" + `"d"`,                                                                           // a text not a string
		`"a"` + "\n" + `|"b"|"ab","text":"x"|"ab"` + "\n" + `|"c"|"abc","text":"y"|"abc"` + "\n" + `"d"`,
		`"a"` + "\n" + `|"b"|"\ud800"|"ab"` + "\n" + `|"c"|"\u00e9"|"abc"` + "\n" + `"d"`,
		`"a\\"` + "\n" + `"b\n\u00e9"` + "\n" + `"é😀"` + "\n" + `"\""`,
	}...) {
		checkStreamRepeats(t, fullRepeatStream(data))
	}
}

func FuzzRepeatedFullUpdates(f *testing.F) {
	f.Add(`"a"` + "\n" + `"b"` + "\n" + `5` + "\n" + `"c"`)
	f.Add(`"a"` + "\n" + `|"b"|"ab"|"a"` + "\n" + `|"c"|"abc"|"abc"` + "\n" + `"d"`)
	f.Add(`"a"` + "\n" + `#{"type":"turn_end"}` + "\n" + `"b"`)
	f.Fuzz(func(t *testing.T, data string) {
		checkStreamRepeats(t, fullRepeatStream(data))
	})
}

func FuzzRepeatedDeltas(f *testing.F) {
	f.Add(`"a"` + "\n" + `"b"` + "\n" + `5` + "\n" + `"c"`)
	f.Add(`"a"` + "\n" + `#{"type":"turn_end"}` + "\n" + `"b"`)
	f.Add(fmt.Sprintf("%q\n%q\n%q", "x\ny", "\u00e9", "z"))
	f.Fuzz(func(t *testing.T, data string) {
		checkRepeats(t, data)
	})
}

// Run passes the next deltas of a block on (or drops them) without pushing each through a
// stage that says it would pass (or drop) them, and tells the stage how many went by.
func TestNextDeltasAreNotPushed(t *testing.T) {
	var data []string
	for i := range 1000 {
		data = append(data, fmt.Sprintf(`"%04d "`, i))
	}
	stream := repeatStream(strings.Join(data, "\n"))
	lines := bytes.Count(stream, []byte("\n"))
	for _, c := range []struct {
		name  string
		stage stages.DeltaSkipper
		kept  int // lines in the output
	}{
		{"deltas", stages.NewDeltas(), lines},
		{"select", stages.NewSelect(stages.SelectOptions{Types: []string{"message_update"}}), 1 + 1002}, // the header is kept
		{"select --not", stages.NewSelect(stages.SelectOptions{Types: []string{"message_update"}, Not: true}), lines - 1002},
		{"validate", stages.NewValidator(stages.ValidateOptions{}), lines},
		{"header --stamp --seq", stages.NewHeader(stages.HeaderOptions{Stamp: true, Seq: true}), lines},
	} {
		counted := &pushCounter{DeltaSkipper: c.stage}
		var st stages.Stage = counted
		if filter, ok := c.stage.(stages.DeltaFilter); ok { // given each delta of a run
			st = filterCounter{counted, filter}
		}
		var out bytes.Buffer
		stats, err := stages.Run([]stages.Input{{Name: "s", Reader: bytes.NewReader(stream)}}, codec.NewBatchWriter(&out), st, stages.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Count(out.Bytes(), []byte("\n")); got != c.kept || stats.Lines != lines {
			t.Errorf("%s: %d lines out of %d read, want %d", c.name, got, stats.Lines, c.kept)
		}
		if counted.pushed > 10 || counted.pushed+counted.skipped != lines {
			t.Errorf("%s: %d lines pushed, %d skipped, of %d", c.name, counted.pushed, counted.skipped, lines)
		}
	}
	v := stages.NewValidator(stages.ValidateOptions{})
	if _, err := stages.Run([]stages.Input{{Name: "s", Reader: bytes.NewReader(stream)}}, codec.NewBatchWriter(io.Discard), v, stages.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if v.Result().Lines != lines {
		t.Errorf("validate counted %d lines of %d", v.Result().Lines, lines)
	}
	// The sinks: text writes every delta's text, the verdict counts every line.
	var text bytes.Buffer
	for _, c := range []struct {
		name string
		sink interface {
			stages.Sink
			stages.DeltaSkipping
		}
	}{
		{"text --follow", stages.NewText(&text, stages.TextOptions{Follow: true})},
		{"verdict", stages.NewVerdict(io.Discard, stages.VerdictOptions{})},
	} {
		counted := &consumeCounter{Sink: c.sink, DeltaSkipping: c.sink}
		if _, err := stages.RunSink([]stages.Input{{Name: "s", Reader: bytes.NewReader(stream)}}, codec.NewBatchWriter(io.Discard), counted, stages.RunOptions{}); err != nil {
			t.Fatal(err)
		}
		if counted.consumed > 10 || counted.consumed+counted.skipped != lines {
			t.Errorf("%s: %d lines consumed, %d skipped, of %d", c.name, counted.consumed, counted.skipped, lines)
		}
	}
	if want := strings.ReplaceAll(strings.Join(data, ""), `"`, "") + "\n"; text.String() != want {
		t.Errorf("text --follow wrote %q", text.String())
	}
}

// consumeCounter counts the lines a sink consumed and those it was told were skipped.
type consumeCounter struct {
	stages.Sink
	stages.DeltaSkipping
	consumed, skipped int
}

func (c *consumeCounter) Consume(f *stages.Frame) error {
	c.consumed++
	return c.Sink.Consume(f)
}

func (c *consumeCounter) SkippedDeltas(run stages.DeltaRun) error {
	c.skipped += run.Lines
	return c.DeltaSkipping.SkippedDeltas(run)
}

// pushCounter counts the lines pushed to a stage and those it was told were skipped.
type pushCounter struct {
	stages.DeltaSkipper
	pushed, skipped int
}

func (p *pushCounter) Push(f *stages.Frame, emit stages.Emit) error {
	p.pushed++
	return p.DeltaSkipper.Push(f, emit)
}

func (p *pushCounter) SkippedDeltas(run stages.DeltaRun) error {
	p.skipped += run.Lines
	return p.DeltaSkipper.SkippedDeltas(run)
}
