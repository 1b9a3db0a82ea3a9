package stages_test

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/stages"
	"github.com/rogpeppe/go-internal/txtar"
)

var updateTextGolden = flag.Bool("update-text-golden", false, "rewrite testdata/golden/text from the text sink's output")

// text runs the text sink over in and returns what it wrote and, unless the run
// completed, its verdict as "status: reason".
func text(t testing.TB, in []byte, opts stages.TextOptions) (string, string) {
	t.Helper()
	st, out := consume(t, func(w io.Writer) *stages.Text { return stages.NewText(w, opts) }, in)
	return string(out), failure(st)
}

func failure(st *stages.Text) string {
	if v := st.Verdict(); v.Status != stages.VerdictCompleted {
		return v.Status + ": " + v.Reason
	}
	return ""
}

var textModes = []struct {
	section string
	opts    stages.TextOptions
}{
	{"text", stages.TextOptions{}},
	{"text-thinking", stages.TextOptions{Thinking: true}},
	{"follow", stages.TextOptions{Follow: true}},
	{"follow-thinking", stages.TextOptions{Follow: true, Thinking: true}},
}

// The output of every mode over every reference stream, in the full and the delta form
// alike, is the golden one in testdata/golden/text/<stream>.txtar; its "failure" section is
// the verdict on a run that did not complete (empty when it did), which `filter verdict`
// gives too.
func TestTextGolden(t *testing.T) {
	for name, full := range referenceStreams(t) {
		stem := strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".jsonl")
		path := filepath.Join("../testdata/golden/text", stem+".txtar")
		t.Run(stem, func(t *testing.T) {
			var got txtar.Archive
			for _, m := range textModes {
				out, failure := text(t, full, m.opts)
				got.Files = append(got.Files, txtar.File{Name: m.section, Data: []byte(out)})
				if m.section == "text" {
					got.Files = append(got.Files, txtar.File{Name: "failure", Data: []byte(lineOf(failure))})
				}
				// The delta form gives the same, and so does the full form rebuilt from it.
				d := deltas(t, full)
				for form, in := range map[string][]byte{"deltas": d, "expanded": expand(t, d)} {
					if o, f := text(t, in, m.opts); o != out || f != failure {
						t.Errorf("%s of the %s form: %q (%q), full form %q (%q)", m.section, form, o, f, out, failure)
					}
				}
			}
			if *updateTextGolden {
				if err := os.WriteFile(path, txtar.Format(&got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(want.Files) != len(got.Files) {
				t.Fatalf("%s has %d sections, want %d", path, len(want.Files), len(got.Files))
			}
			for i, f := range want.Files {
				if g := got.Files[i]; g.Name != f.Name || !bytes.Equal(g.Data, f.Data) {
					t.Errorf("%s: got\n%s\nwant\n%s", f.Name, g.Data, f.Data)
				}
			}
		})
	}
}

func lineOf(s string) string {
	if s == "" {
		return ""
	}
	return s + "\n"
}

// The final answer is what the agent's text mode prints: the text blocks of the terminal
// assistant message, joined, then a line break; and only for a run that completed by the
// verdict's rules.
func TestTextCompletionRules(t *testing.T) {
	user := `{"type":"message_end","message":{"role":"user","content":"hi","timestamp":1}}`
	answer := func(stop, text string) string {
		extra := ""
		if stop == "error" || stop == "aborted" {
			extra = `,"errorMessage":"it broke"`
		}
		return `{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"` + text +
			`"},{"type":"toolCall","id":"c","name":"n","arguments":{}},{"type":"text","text":"!"}],"api":"a","provider":"p","model":"m",` +
			`"usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},` +
			`"stopReason":"` + stop + `"` + extra + `,"timestamp":1}}`
	}
	start, end := `{"type":"agent_start"}`, `{"type":"agent_end","messages":[]}`
	limit := stages.TextOptions{Verdict: stages.VerdictOptions{RunError: func() string { return "max-turns reached (1/1)" }}}
	cases := []struct {
		name, in, out, failure string
		opts                   stages.TextOptions
	}{
		{"completed", lineList(start, user, answer("stop", "one"), end), "one!\n", "", stages.TextOptions{}},
		{"last answer wins", lineList(start, answer("toolUse", "one"), answer("length", "two\\n2"), end), "two\n2!\n", "", stages.TextOptions{}},
		{"error", lineList(start, answer("error", "partial"), end), "", "failed: the run ended in error: it broke", stages.TextOptions{}},
		{"aborted", lineList(start, answer("aborted", "partial"), end), "", "failed: the run was aborted: it broke", stages.TextOptions{}},
		{"recovered", lineList(start, answer("error", "x"), end, `{"type":"auto_retry_start"}`, start, answer("stop", "y"), end), "y!\n", "", stages.TextOptions{}},
		{"cut inside a run", lineList(start, answer("stop", "one")), "", "failed: the stream ended inside an agent run (no agent_end)", stages.TextOptions{}},
		{"no run", lineList(answer("stop", "one")), "", "failed: the stream holds no agent run", stages.TextOptions{}},
		{"no answer", lineList(start, user, end), "", "failed: the run ended without an assistant message", stages.TextOptions{}},
		{"empty", "", "", "failed: the stream is empty", stages.TextOptions{}},
		// A terminal toolUse completed (the exit table of docs/stream.md); a limit shows only on stderr.
		{"stopped in tool calls", lineList(start, `{"type":"turn_start"}`, answer("toolUse", "one"), `{"type":"turn_end"}`, end), "one!\n", "", stages.TextOptions{}},
		{"stopped in tool calls by a limit", lineList(start, `{"type":"turn_start"}`, answer("toolUse", "one"), `{"type":"turn_end"}`, end), "",
			"limit: max-turns reached (1/1)", limit},
		{"gated, no gate ran", lineList(start, answer("stop", "one"), end), "", "gate: no gate ran after the agent's last message (a gate that has not run is not a passed gate)",
			stages.TextOptions{Verdict: stages.VerdictOptions{Gated: true}}},
		{"invalid lines ignored", lineList("oops", start, answer("stop", "one"), end, "[1]"), "one!\n", "", stages.TextOptions{}},
	}
	for _, c := range cases {
		out, failure := text(t, []byte(c.in), c.opts)
		if out != c.out || failure != c.failure {
			t.Errorf("%s: got %q, failure %q; want %q, %q", c.name, out, failure, c.out, c.failure)
		}
	}
}

func lineList(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// With --follow, text appears as its deltas are pushed, before the message ends; a block
// without deltas, or whose deltas fall short of its end event, is completed from the end.
func TestTextFollowWritesAsDeltasArrive(t *testing.T) {
	var out bytes.Buffer
	st := stages.NewText(&out, stages.TextOptions{Follow: true, Thinking: true})
	push := func(line string) {
		t.Helper()
		f := stages.LineFrame([]byte(line), 0)
		if err := f.Check(); err != nil {
			t.Fatal(err)
		}
		if err := st.Consume(f); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(want string) {
		t.Helper()
		if out.String() != want {
			t.Fatalf("written so far %q, want %q", out.String(), want)
		}
	}
	update := func(ev string) string {
		return `{"type":"message_update","messageId":1,"assistantMessageEvent":` + ev + `}`
	}
	push(`{"type":"agent_start"}`)
	push(`{"type":"message_start","messageId":1,"message":{"role":"assistant","content":[]}}`)
	push(update(`{"type":"thinking_start","contentIndex":0}`))
	expect("")
	push(update(`{"type":"thinking_delta","contentIndex":0,"delta":"Hmm"}`))
	expect("Hmm")
	push(update(`{"type":"text_start","contentIndex":1}`))
	push(update(`{"type":"text_delta","contentIndex":1,"delta":"Hel"}`))
	expect("Hmm\n\nHel")
	push(update(`{"type":"thinking_end","contentIndex":0,"content":"Hmm."}`)) // the end has more
	expect("Hmm\n\nHel\n\n.")
	push(update(`{"type":"text_delta","contentIndex":1,"delta":"lo \u00e9\"\n"}`))
	expect("Hmm\n\nHel\n\n.\n\nlo é\"\n")
	push(update(`{"type":"text_end","contentIndex":1,"content":"Hello é\"\n"}`))
	// Block 2 never streamed: it comes from the final message.
	push(`{"type":"message_end","messageId":1,"message":{"role":"assistant","content":[{"type":"thinking","thinking":"Hmm."},` +
		`{"type":"text","text":"Hello é\"\n"},{"type":"text","text":" Bye."}],"stopReason":"stop"}}`)
	expect("Hmm\n\nHel\n\n.\n\nlo é\"\n Bye.\n")
	// A message without text (only a tool call) writes nothing, not even a line break.
	push(`{"type":"message_start","message":{"role":"assistant","content":[]}}`)
	push(`{"type":"message_end","message":{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"n","arguments":{}}],"stopReason":"toolUse"}}`)
	expect("Hmm\n\nHel\n\n.\n\nlo é\"\n Bye.\n")
	push(`{"type":"agent_end","messages":[]}`)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	expect("Hmm\n\nHel\n\n.\n\nlo é\"\n Bye.\n")
	if f := failure(st); f != "" {
		t.Fatalf("failure %q", f)
	}
}

// Thinking is left out unless asked for, in both modes.
func TestTextThinkingOnlyWhenAsked(t *testing.T) {
	in := lineList(`{"type":"agent_start"}`, `{"type":"message_end","message":{"role":"assistant","content":[{"type":"thinking","thinking":"T"},{"type":"text","text":"A"}],"stopReason":"stop"}}`,
		`{"type":"agent_end","messages":[]}`)
	for _, c := range []struct {
		opts stages.TextOptions
		want string
	}{
		{stages.TextOptions{}, "A\n"},
		{stages.TextOptions{Follow: true}, "A\n"},
		{stages.TextOptions{Thinking: true}, "T\n\nA\n"},
		{stages.TextOptions{Follow: true, Thinking: true}, "T\n\nA\n"},
	} {
		if got, _ := text(t, []byte(in), c.opts); got != c.want {
			t.Errorf("%+v: got %q, want %q", c.opts, got, c.want)
		}
	}
}

// In process, typed events work as well as lines.
func TestTextOfTypedEvents(t *testing.T) {
	var out bytes.Buffer
	st := stages.NewText(&out, stages.TextOptions{})
	m := &codec.AssistantMessage{Content: []codec.Content{&codec.TextContent{Text: "typed"}}, StopReason: codec.StopReasonStop}
	for _, e := range []codec.Event{&codec.AgentStart{}, &codec.MessageEnd{Message: m}, &codec.AgentEnd{}} {
		if err := st.Consume(stages.EventFrame(e)); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if out.String() != "typed\n" || failure(st) != "" {
		t.Fatalf("got %q, failure %q", out.String(), failure(st))
	}
}

// A message cut short (no message_end) still ends its line in --follow, before the next
// message's text or at the end of the stream.
func TestTextFollowEndsCutMessages(t *testing.T) {
	start := `{"type":"message_start","message":{"role":"assistant","content":[]}}`
	delta := func(s string) string {
		return `{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"` + s + `"}}`
	}
	in := lineList(`{"type":"agent_start"}`, start, delta("cut"), start, delta("again"))
	out, failure := text(t, []byte(in), stages.TextOptions{Follow: true})
	if out != "cut\nagain\n" || failure != "failed: the stream ended inside an agent run (no agent_end)" {
		t.Fatalf("got %q, failure %q", out, failure)
	}
}

// The texts of deltas and of the final message, read as a stream (where the reader finds the
// next delta of a block to repeat the line before) and one frame a line (where it finds
// none): escapes decoded, a block completed from its end by what its decoded text has beyond
// what was written, the same message again with other texts, keys with escapes and
// duplicate keys read as the decoder reads them, a message the codec cannot read left as
// it was streamed.
func TestTextOfEscapesRepeatsAndOddMessages(t *testing.T) {
	update := func(ev string) string {
		return `{"type":"message_update","messageId":1,"assistantMessageEvent":` + ev + `}`
	}
	delta := func(typ string, i int, body string) string {
		return update(`{"type":"` + typ + `_delta","contentIndex":` + fmt.Sprint(i) + `,"delta":"` + body + `"}`)
	}
	start := `{"type":"message_start","messageId":1,"message":{"role":"assistant","content":[]}}`
	end := func(content string) string {
		return `{"type":"message_end","messageId":1,"message":{"role":"assistant","content":[` + content + `],"api":"a","provider":"p","model":"m",` +
			`"usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},` +
			`"stopReason":"stop","timestamp":1}}`
	}
	ls := []string{`{"type":"agent_start"}`, start, update(`{"type":"thinking_start","contentIndex":0}`),
		delta("thinking", 0, "Let"), delta("thinking", 0, ` me\n`), delta("thinking", 0, ` think \u00e9`),
		update(`{"type":"text_start","contentIndex":1}`)}
	var streamed strings.Builder
	for _, b := range []struct{ body, text string }{
		{"A", "A"}, {`\"q\"`, `"q"`}, {`\\`, `\`}, {`\ud83d\ude00`, "😀"}, {`\u00e9`, "é"}, {`\n`, "\n"},
		{"plain", "plain"}, {`tab\t`, "tab\t"}, {`\ud800`, "\uFFFD"}, {`\/`, "/"}, {"", ""}, {"é", "é"},
	} {
		ls = append(ls, delta("text", 1, b.body))
		streamed.WriteString(b.text)
	}
	// The end spells the same text otherwise and has more: the rest is what its decoded text
	// has beyond what the deltas wrote. Block 2 never streamed.
	ls = append(ls, end(`{"type":"thinking","thinking":"Let me\n think é."},{"type":"text","text":"`+
		`A\"q\"\\😀\u00e9\nplaintab\t\ud800/é\u0020end\u00e9"},{"type":"text","text":"Bye\\"}`))
	want := "Let me\n think é\n\n" + streamed.String() + "\n\n.\n\n endéBye\\\n"
	// The same message again but for its texts: the second end's texts are read.
	for _, more := range []string{"y", "yz"} {
		ls = append(ls, start, update(`{"type":"text_start","contentIndex":0}`), delta("text", 0, "x"),
			end(`{"type":"text","text":"x`+more+`"}`))
		want += "x" + more + "\n"
	}
	// A key with an escape, duplicate keys, a member of the other kind: the decoder's member.
	ls = append(ls, start, end(`{"type":"text","t\u0065xt":"Esc"},{"type":"text","text":"first","text":"second"}`),
		start, end(`{"type":"thinking","thinking":"T","text":"not this"}`))
	want += "Escsecond\nT\n"
	// A message the codec cannot read (usage not an object): no completion; the line ends
	// when the next message starts.
	ls = append(ls, start, delta("text", 0, "partial"),
		strings.Replace(end(`{"type":"text","text":"partial and more"}`), `"usage":{`, `"usage":"bad","u":{`, 1),
		start, delta("text", 0, "next"), end(`{"type":"text","text":"next"}`), `{"type":"agent_end","messages":[]}`)
	want += "partial\nnext\n"

	in := lineList(ls...)
	opts := stages.TextOptions{Follow: true, Thinking: true}
	if got, failure := text(t, []byte(in), opts); got != want || failure != "" {
		t.Errorf("as a stream: got %q (%s)\nwant %q", got, failure, want)
	}
	var apart bytes.Buffer
	st := stages.NewText(&apart, opts)
	for i, l := range ls {
		if err := st.Consume(stages.LineFrame([]byte(l), i+1)); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if apart.String() != want {
		t.Errorf("line by line: got %q\nwant %q", apart.String(), want)
	}
	// Without Follow: the last message read.
	if got, failure := text(t, []byte(in), stages.TextOptions{}); got != "next\n" || failure != "" {
		t.Errorf("final answer: got %q (%s)", got, failure)
	}
}

// --follow allocates nothing for a delta, of either kind, escaped or not: a stream of many
// deltas costs what a stream of few does.
func TestTextFollowAllocatesNothingPerDelta(t *testing.T) {
	stream := func(n int) []byte {
		var b strings.Builder
		b.WriteString(`{"type":"agent_start"}` + "\n" + `{"type":"message_start","messageId":1,"message":{"role":"assistant","content":[]}}` + "\n")
		for i := range n {
			kind, body := "text", fmt.Sprintf("%04d ", i)
			switch i % 4 {
			case 1:
				body += `\"\u00e9\n`
			case 2:
				kind = "thinking"
			}
			fmt.Fprintf(&b, `{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"%s_delta","contentIndex":%d,"delta":"%s"}}`+"\n",
				kind, i/100%3, body)
		}
		return []byte(b.String())
	}
	allocs := func(in []byte) float64 {
		return testing.AllocsPerRun(5, func() {
			st := stages.NewText(io.Discard, stages.TextOptions{Follow: true, Thinking: true})
			if _, err := stages.RunSink([]stages.Input{{Reader: bytes.NewReader(in)}}, codec.NewBatchWriter(io.Discard), st, stages.RunOptions{}); err != nil {
				t.Fatal(err)
			}
		})
	}
	few, many := allocs(stream(1000)), allocs(stream(20000))
	if many > few {
		t.Errorf("%v allocations for 1000 deltas, %v for 20000", few, many)
	}
}

// FuzzTextOfMessage: --follow writes of a message_end, with nothing streamed before it, the
// text and thinking blocks of the message as the codec decodes it whole (a blank line
// between a thinking block and its neighbours, a line break after), or nothing when the
// codec cannot read it as an assistant message.
func FuzzTextOfMessage(f *testing.F) {
	for _, in := range referenceStreams(f) {
		for _, l := range lines(in) {
			if codec.CheckObject(l) == nil && codec.LineType(l) == "message_end" {
				f.Add(codec.Find(l, "message").Raw(l))
			}
		}
	}
	for _, m := range []string{
		`{"role":"assistant","content":[{"type":"text","t\u0065xt":"E"},{"type":"thinking","thinking":"T","text":"x"}]}`,
		`{"role":"assistant","content":[{"type":"text","text":"a\"\u00e9\ud83d\ude00","text":"b\\"},{"type":"text","text":null}],"content":[{"type":"text","text":"c"}]}`,
		`{"role":"assistant","content":[{"type":"text","text":"a"}],"usage":"bad"}`,
		`{"role":"assistant","content":[{"type":"text","text":7}]}`,
		`{"role":"assistant","content":[{"type":"thinking","thinking":"t"},1]}`,
		`{"role":"assistant","cont\u0065nt":[{"type":"text","text":"k"}],"content":null}`,
	} {
		f.Add([]byte(m))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		if codec.CheckObject(msg) != nil {
			return
		}
		line := []byte(`{"type":"message_end","message":` + string(msg) + `}`)
		got, _ := text(t, append(line, '\n'), stages.TextOptions{Follow: true, Thinking: true})
		want := ""
		decoded, err := codec.ParseMessage(msg)
		if m, ok := decoded.(*codec.AssistantMessage); err == nil && ok && codec.Find(msg, "role").Str(msg) == "assistant" {
			lastThinking := false
			for _, c := range m.Content {
				s, thinking := "", false
				switch c := c.(type) {
				case *codec.TextContent:
					s = c.Text
				case *codec.ThinkingContent:
					s, thinking = c.Thinking, true
				}
				if s == "" {
					continue
				}
				if want != "" && (thinking || lastThinking) {
					want += "\n\n"
				}
				want, lastThinking = want+s, thinking
			}
			if want != "" {
				want += "\n"
			}
		}
		if got != want {
			t.Fatalf("message %s: got %q, want %q", msg, got, want)
		}
	})
}
