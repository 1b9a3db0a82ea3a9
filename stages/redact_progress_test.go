package stages_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/redact"
	"github.com/basecontext/base-context/redact/redacttest"
	"github.com/basecontext/base-context/stages"
)

// A tool's progress (tool_execution_update) repeats its output so far, each update a
// longer one: a secret printed slowly is in several updates in part. No update shows 8
// bytes of it, the texts shown only grow, and the end shows the whole output redacted; in
// process (typed events) as in a filter.
func TestRedactToolProgressHoldsPartialSecrets(t *testing.T) {
	r := redactor(t, redact.Options{})
	for _, e := range redacttest.Corpus(t) {
		output := "$ run\n" + e.Text + "\ndone\n"
		var evs []codec.Event
		for k := 1; k <= len(output); k += 3 {
			evs = append(evs, &codec.ToolExecutionUpdate{ToolCallID: "call_1", ToolName: "bash", Args: json.RawMessage(`{}`),
				PartialResult: codec.ToolResult{Content: []codec.Content{&codec.TextContent{Text: output[:k]}}, Details: json.RawMessage(`{}`)}})
		}
		evs = append(evs, &codec.ToolExecutionEnd{ToolCallID: "call_1", ToolName: "bash",
			Result: codec.ToolResult{Content: []codec.Content{&codec.TextContent{Text: output}}}})
		var in bytes.Buffer
		w := codec.NewLineWriter(&in)
		var typed bytes.Buffer
		tw := codec.NewLineWriter(&typed)
		st := stages.NewRedact(r)
		for _, ev := range evs {
			if err := w.WriteEncoded(ev); err != nil {
				t.Fatal(err)
			}
			if err := st.Push(stages.EventFrame(ev), func(f *stages.Frame) error { return f.WriteLine(tw) }); err != nil {
				t.Fatal(err)
			}
		}
		out := run(t, stages.NewRedact(r), in.Bytes())
		if !bytes.Equal(out, typed.Bytes()) {
			t.Fatalf("%s: in process and as a filter differ:\n%s\n---\n%s", e.Rule, typed.Bytes(), out)
		}
		prev := ""
		ls := lines(out)
		for i, l := range ls {
			if p := leak(l, e.Secret); p != "" {
				t.Fatalf("%s: line %d shows %q:\n%s", e.Rule, i+1, p, l)
			}
			text := codec.Lookup(l, "partialResult.content.0.text").Str(l)
			if i == len(ls)-1 {
				text = codec.Lookup(l, "result.content.0.text").Str(l)
				if want := r.RedactString(output); text != want {
					t.Fatalf("%s: the end shows %q, want %q", e.Rule, text, want)
				}
			}
			if !strings.HasPrefix(text, prev) {
				t.Fatalf("%s: line %d shows %q after %q", e.Rule, i+1, text, prev)
			}
			prev = text
		}
	}
}
