package stages_test

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/redact"
	"github.com/basecontext/base-context/stages"
)

// holdBack is a stage that keeps every line until the end, then emits them tagged: it
// shows that a chain flushes each stage in order, feeding the output of one to the next.
type holdBack struct {
	tag  string
	held [][]byte
}

func (h *holdBack) Push(f *stages.Frame, _ stages.Emit) error {
	h.held = append(h.held, append([]byte(nil), f.Line()...))
	return nil
}

func (h *holdBack) Flush(emit stages.Emit) error {
	for _, l := range h.held {
		l = append(l[:len(l)-1:len(l)-1], []byte(`,"`+h.tag+`":1}`)...)
		if err := emit(stages.LineFrame(l, 0)); err != nil {
			return err
		}
	}
	return nil
}

func TestChainComposesInOrder(t *testing.T) {
	in := "{\"type\":\"a\"}\n{\"type\":\"b\"}\n"
	got := run(t, stages.Chain(&holdBack{tag: "x"}, &holdBack{tag: "y"}, stages.Chain()), []byte(in))
	want := "{\"type\":\"a\",\"x\":1,\"y\":1}\n{\"type\":\"b\",\"x\":1,\"y\":1}\n"
	if string(got) != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestChainOfDeltasAndExpand(t *testing.T) {
	for name, in := range referenceStreams(t) {
		d := deltas(t, in)
		// expand then deltas, as one in-process chain, is the identity on a delta stream.
		if got := run(t, stages.Chain(stages.NewExpand(), stages.NewDeltas()), d); !bytes.Equal(got, d) {
			t.Errorf("%s: deltas∘expand changed the delta stream", name)
		}
	}
}

func TestReaderAndWriterAdapters(t *testing.T) {
	in := referenceStreams(t)["b_tool_bash.jsonl"]
	want := deltas(t, in)

	// Reader: read the stage's output, in small pieces.
	got, err := io.ReadAll(iotest.OneByteReader(stages.NewReader(bytes.NewReader(in), stages.NewDeltas())))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Reader: %v\n%s", err, got)
	}

	// Writer: write the input in odd-sized chunks, CRLF endings and no final LF. Like Run,
	// it keeps each CR where it was.
	var out bytes.Buffer
	w := stages.NewWriter(stages.NewDeltas(), &out)
	crlf := bytes.TrimSuffix(bytes.ReplaceAll(in, []byte("\n"), []byte("\r\n")), []byte("\r\n"))
	want = deltas(t, crlf)
	if bytes.Count(want, []byte("\r\n")) != bytes.Count(want, []byte("\n"))-1 {
		t.Fatalf("Run dropped CRs:\n%s", want)
	}
	for len(crlf) > 0 {
		n := min(7, len(crlf))
		if _, err := w.Write(crlf[:n]); err != nil {
			t.Fatal(err)
		}
		crlf = crlf[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("Writer output differs:\n%s", out.Bytes())
	}
}

func TestExpandKeepsDeltasOfBlocksWithoutStart(t *testing.T) {
	// A stream cut before its message_start and block starts: no delta may be lost.
	in := `{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","contentIndex":1,"delta":"x"}}` + "\n" +
		`{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"toolcall_delta","contentIndex":2,"delta":"{\"a\":1"}}` + "\n"
	out := lines(expand(t, []byte(in)))
	last := out[1]
	if got := codec.Lookup(last, "message.content.1.text").Str(last); got != "x" {
		t.Errorf("text block %q", got)
	}
	if got := string(codec.Lookup(last, "message.content.2.arguments").Raw(last)); got != `{"a":1}` {
		t.Errorf("tool call arguments %s", got)
	}
	if strings.Contains(string(last), "messageId") {
		t.Error("messageId kept")
	}
}

// NewOutput is the pipe `filter header | filter redact | filter deltas` in process: the same
// bytes on every reference stream, whatever a stream starts with.
func TestOutputIsHeaderRedactDeltas(t *testing.T) {
	hd := codec.Header{Version: 3, ID: "01990000-0000-7000-8000-000000000000", Timestamp: "2026-01-01T00:00:00.000Z", Cwd: "/work"}
	for name, data := range referenceStreams(t) {
		for _, deltas := range []bool{false, true} {
			stream := data // the agent's events, which come without a header
			if bytes.HasPrefix(stream, []byte(`{"type":"session"`)) {
				stream = stream[bytes.IndexByte(stream, '\n')+1:]
			}
			words := redact.Options{Patterns: []string{`\b[Tt]he\b`}} // in every answer
			output := stages.NewOutput(stages.OutputOptions{Header: hd, Redact: newRedact(t, words).(*stages.Redact), Deltas: deltas})
			got := run(t, output, stream)
			want := run(t, stages.NewHeader(stages.HeaderOptions{Header: hd}), stream)
			want = run(t, newRedact(t, words), want)
			if deltas {
				want = run(t, stages.NewDeltas(), want)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s (deltas %v): NewOutput differs from the three filters", name, deltas)
			}
			if !bytes.HasPrefix(got, []byte(`{"type":"session","version":3,"id":"01990000-`)) {
				t.Errorf("%s: the output does not start with the header: %.80s", name, got)
			}
			if bytes.Contains(stream, []byte("the ")) && !bytes.Contains(got, []byte("[REDACTED:pattern-1]")) {
				t.Errorf("%s: nothing redacted", name)
			}
		}
	}
}
