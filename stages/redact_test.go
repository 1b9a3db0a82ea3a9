package stages_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/redact"
	"github.com/basecontext/base-context/redact/redacttest"
	"github.com/basecontext/base-context/stages"
)

func redactor(t testing.TB, opts redact.Options) *redact.Redactor {
	t.Helper()
	r, err := redact.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// leak returns a piece of 8 bytes of secret found in b, or "".
func leak(b []byte, secret string) string {
	for _, part := range strings.Split(secret, "\n") {
		for k := 0; k+8 <= len(part); k++ {
			if bytes.Contains(b, []byte(part[k:k+8])) {
				return part[k : k+8]
			}
		}
	}
	return ""
}

func TestRedactCorpusCoversEveryRule(t *testing.T) {
	r := redactor(t, redact.Options{})
	covered := map[string]bool{}
	for _, e := range redacttest.Corpus(t) {
		out := r.RedactString(e.Text)
		if !strings.Contains(out, "[REDACTED:"+e.Rule+"]") {
			t.Errorf("%s not found in %q: %q", e.Rule, e.Text, out)
		}
		if l := leak([]byte(out), e.Secret); l != "" {
			t.Errorf("%s: %q left in %q", e.Rule, l, out)
		}
		covered[e.Rule] = true
	}
	for _, rule := range redact.Rules() {
		if !covered[rule.ID] {
			t.Errorf("no secret of rule %s in the corpus", rule.ID)
		}
	}
}

// genBlock is one content block of a generated assistant message, in the chunks it
// streams in.
type genBlock struct {
	kind   string // text, thinking, toolCall
	chunks []string
}

// genEvents makes the events of one run as the agent does, each handed to each before the
// next is made (snapshots are live).
func genEvents(blocks []genBlock, each func(codec.Event)) {
	each(&codec.Header{Version: 3, ID: "s-1", Timestamp: "2026-12-02T14:02:42.971Z", Cwd: "/w"})
	each(&codec.AgentStart{})
	each(&codec.TurnStart{})
	msg := &codec.AssistantMessage{Content: []codec.Content{}, API: "test-api", Provider: "test",
		Model: "model-1", StopReason: "toolUse", Timestamp: 1796220219883}
	each(&codec.MessageStart{Message: msg})
	upd := func(ev *codec.AssistantMessageEvent) {
		ev.Partial = msg
		each(&codec.MessageUpdate{Update: ev, Message: msg})
	}
	var results []*codec.ToolResultMessage
	for i, b := range blocks {
		idx := int64(i)
		switch b.kind {
		case "text":
			c := &codec.TextContent{}
			msg.Content = append(msg.Content, c)
			upd(&codec.AssistantMessageEvent{Type: codec.UpdateTextStart, ContentIndex: idx})
			for _, ch := range b.chunks {
				c.Text += ch
				upd(&codec.AssistantMessageEvent{Type: codec.UpdateTextDelta, ContentIndex: idx, Delta: ch})
			}
			upd(&codec.AssistantMessageEvent{Type: codec.UpdateTextEnd, ContentIndex: idx, Content: c.Text})
		case "thinking":
			c := &codec.ThinkingContent{}
			msg.Content = append(msg.Content, c)
			upd(&codec.AssistantMessageEvent{Type: codec.UpdateThinkingStart, ContentIndex: idx})
			for _, ch := range b.chunks {
				c.Thinking += ch
				upd(&codec.AssistantMessageEvent{Type: codec.UpdateThinkingDelta, ContentIndex: idx, Delta: ch})
			}
			upd(&codec.AssistantMessageEvent{Type: codec.UpdateThinkingEnd, ContentIndex: idx, Content: c.Thinking})
		case "toolCall":
			c := &codec.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: "bash", ArgsSoFar: []byte{}}
			msg.Content = append(msg.Content, c)
			upd(&codec.AssistantMessageEvent{Type: codec.UpdateToolCallStart, ContentIndex: idx, ToolCall: c})
			for _, ch := range b.chunks {
				c.ArgsSoFar = append(c.ArgsSoFar, ch...)
				upd(&codec.AssistantMessageEvent{Type: codec.UpdateToolCallDelta, ContentIndex: idx, Delta: ch})
			}
			c.Arguments, c.ArgsSoFar = codec.PartialObject(string(c.ArgsSoFar)), nil
			upd(&codec.AssistantMessageEvent{Type: codec.UpdateToolCallEnd, ContentIndex: idx, ToolCall: c})
			results = append(results, &codec.ToolResultMessage{ToolCallID: c.ID, ToolName: c.Name,
				Content: []codec.Content{&codec.TextContent{Text: strings.Join(blocks[0].chunks, "")}}, Timestamp: 2})
		}
	}
	each(&codec.MessageEnd{Message: msg})
	for _, res := range results {
		var args json.RawMessage
		for _, c := range msg.Content {
			if tc, ok := c.(*codec.ToolCall); ok && tc.ID == res.ToolCallID {
				args = tc.Arguments
			}
		}
		each(&codec.ToolExecutionStart{ToolCallID: res.ToolCallID, ToolName: res.ToolName, Args: args})
		each(&codec.ToolExecutionEnd{ToolCallID: res.ToolCallID, ToolName: res.ToolName,
			Result: codec.ToolResult{Content: res.Content}})
		each(&codec.MessageStart{Message: res})
		each(&codec.MessageEnd{Message: res})
	}
	each(&codec.TurnEnd{Message: msg, ToolResults: results})
	each(&codec.AgentEnd{Messages: []codec.Message{msg}})
}

// chunk cuts s at random places (rnd nil: one byte at a time).
func chunk(s string, rnd *rand.Rand) []string {
	var out []string
	for len(s) > 0 {
		n := 1
		if rnd != nil {
			n = 1 + rnd.Intn(12)
		}
		n = min(n, len(s))
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

func argsJSON(text string) string {
	b, _ := json.Marshal(map[string]any{"command": text, "env": map[string]string{"password": text}})
	return string(b)
}

// streamsOf returns the full form of a generated run encoded, what the stage makes of it in
// process (typed events in, with and without the deltas stage after it).
func streamsOf(t *testing.T, r *redact.Redactor, blocks []genBlock) (full, typedRedacted, typedDeltas []byte) {
	var fullBuf, typedBuf, deltaBuf bytes.Buffer
	fw := codec.NewLineWriter(&fullBuf)
	red := stages.NewRedact(r)
	chain := stages.Chain(stages.NewRedact(r), stages.NewDeltas())
	tw, dw := codec.NewLineWriter(&typedBuf), codec.NewLineWriter(&deltaBuf)
	twrite := func(f *stages.Frame) error { return f.WriteLine(tw) }
	dwrite := func(f *stages.Frame) error { return f.WriteLine(dw) }
	genEvents(blocks, func(e codec.Event) {
		if err := fw.WriteEncoded(e); err != nil {
			t.Fatal(err)
		}
		if err := red.Push(stages.EventFrame(e), twrite); err != nil {
			t.Fatal(err)
		}
		if err := chain.Push(stages.EventFrame(e), dwrite); err != nil {
			t.Fatal(err)
		}
	})
	if err := red.Flush(twrite); err != nil {
		t.Fatal(err)
	}
	if err := chain.Flush(dwrite); err != nil {
		t.Fatal(err)
	}
	return fullBuf.Bytes(), typedBuf.Bytes(), deltaBuf.Bytes()
}

// checkRedactedRun checks a generated run whose blocks carry secret in both forms, in
// process and as a filter.
func checkRedactedRun(t *testing.T, r *redact.Redactor, blocks []genBlock, secret string) {
	t.Helper()
	full, typed, typedDeltas := streamsOf(t, r, blocks)
	red := func(in []byte) []byte { return run(t, stages.NewRedact(r), in) }
	rf := red(full)
	rd := red(deltas(t, full))
	if !bytes.Equal(typed, rf) {
		t.Fatalf("in process and as a filter differ:\n%s\n---\n%s", typed, rf)
	}
	if !bytes.Equal(typedDeltas, rd) {
		t.Fatalf("--redact --json-deltas differs from filter redact of the delta form:\n%s\n---\n%s", typedDeltas, rd)
	}
	if got := deltas(t, rf); !bytes.Equal(got, rd) {
		t.Fatalf("deltas(redact(full)) != redact(deltas(full)):\n%s\n---\n%s", got, rd)
	}
	if got := expand(t, rd); !bytes.Equal(got, rf) {
		t.Fatalf("expand(redact(deltas)) != redact(full):\n%s\n---\n%s", got, rf)
	}
	for i, l := range append(lines(rf), lines(rd)...) {
		if p := leak(l, secret); p != "" {
			t.Fatalf("line %d shows %q:\n%s", i+1, p, l)
		}
		if err := codec.CheckObject(l); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
	}
	checkDeltasAddUp(t, lines(rd))
	// The final text is the whole text's redaction.
	for _, l := range lines(rf) {
		if codec.LineType(l) == "message_end" {
			want := r.RedactString(strings.Join(blocks[0].chunks, ""))
			got := codec.Lookup(l, "message.content.0.text").Str(l)
			if got != want {
				t.Fatalf("final text %q, want %q", got, want)
			}
			break
		}
	}
}

func TestRedactStreamsInBothForms(t *testing.T) {
	r := redactor(t, redact.Options{})
	rnd := rand.New(rand.NewSource(5))
	for _, e := range redacttest.Corpus(t) {
		for try := 0; try < 4; try++ {
			src := rnd
			if try == 0 {
				src = nil
			}
			blocks := []genBlock{
				{"text", chunk(e.Text, src)},
				{"thinking", chunk("Let me think: "+e.Text, src)},
				{"toolCall", chunk(argsJSON(e.Text), src)},
			}
			t.Run(fmt.Sprintf("%s/%d", e.Rule, try), func(t *testing.T) {
				checkRedactedRun(t, r, blocks, e.Secret)
			})
		}
	}
}

// A stream without secrets comes out as it went in, apart from the full form's snapshots
// of a text held back (none here: chunks end at spaces).
func TestRedactLeavesCleanStreamsAlone(t *testing.T) {
	r := redactor(t, redact.Options{})
	text := "Here are the files: main.go, README.md and go.mod. The token count is 4096; the password field is empty. "
	blocks := []genBlock{
		{"text", strings.SplitAfter(text, " ")},
		{"toolCall", []string{`{"command":`, `"ls -la /tmp`, ` && echo ok"}`}},
	}
	full, typed, typedDeltas := streamsOf(t, r, blocks)
	if !bytes.Equal(typed, full) {
		t.Errorf("in process changed a clean stream:\n%s", typed)
	}
	if got := run(t, stages.NewRedact(r), full); !bytes.Equal(got, full) {
		t.Errorf("filter changed a clean stream:\n%s", got)
	}
	if d := deltas(t, full); !bytes.Equal(typedDeltas, d) {
		t.Errorf("in process (deltas) changed a clean stream:\n%s", typedDeltas)
	}
	for name, in := range referenceStreams(t) {
		d := deltas(t, in)
		if got := run(t, stages.NewRedact(r), d); !bytes.Equal(got, d) {
			t.Errorf("%s: the delta form changed", name)
		}
	}
}

func TestRedactHoldsBackAndFlushesAtTheEnd(t *testing.T) {
	r := redactor(t, redact.Options{})
	in := strings.Join([]string{
		`{"type":"message_start","messageId":1,"message":{"role":"assistant","content":[]}}`,
		`{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_start","contentIndex":0}}`,
		`{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"key: gh"}}`,
		`{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"p_0123456789abcdefghij0123456789ABCDEF"}}`,
		`{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":" and then A"}}`,
		`{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_end","contentIndex":0,"content":"key: ghp_0123456789abcdefghij0123456789ABCDEF and then A"}}`,
		`{"type":"message_end","messageId":1,"message":{"role":"assistant","content":[{"type":"text","text":"key: ghp_0123456789abcdefghij0123456789ABCDEF and then A"}]}}`,
	}, "\n") + "\n"
	want := strings.Join([]string{
		`{"type":"message_start","messageId":1,"message":{"role":"assistant","content":[]}}`,
		`{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_start","contentIndex":0}}`,
		`{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"key: "}}`,
		`{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"[REDACTED:github-pat]"}}`,
		`{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":" and then "}}`,
		`{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"A"}}`,
		`{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_end","contentIndex":0,"content":"key: [REDACTED:github-pat] and then A"}}`,
		`{"type":"message_end","messageId":1,"message":{"role":"assistant","content":[{"type":"text","text":"key: [REDACTED:github-pat] and then A"}]}}`,
	}, "\n") + "\n"
	if got := run(t, stages.NewRedact(r), []byte(in)); string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	// A stream cut before its block ended still releases what was held, at the end.
	cut := strings.Join(strings.SplitAfter(in, "\n")[:5], "")
	got := run(t, stages.NewRedact(r), []byte(cut))
	if ls := lines(got); len(ls) != 6 || !bytes.Contains(ls[5], []byte(`"delta":"A"`)) || !bytes.Contains(ls[5], []byte(`"messageId":1`)) {
		t.Fatalf("cut stream:\n%s", got)
	}
}

func TestRedactEveryStringOfEveryEvent(t *testing.T) {
	r := redactor(t, redact.Options{})
	const key = "sk-ant-api03-Zx9wQ2eR7tY4uI1oP6aS3dF8gH5jK0lM2nB7vC4xZ9qW1eR6tY3uI8oP"
	const m = "[REDACTED:anthropic-api-key]"
	cases := []struct{ in, want string }{
		// Escapes do not hide a secret; the replacement is escaped as it must be.
		{`{"type":"x","s":"\u0073k-ant-api03-Zx9wQ2eR7tY4uI1oP6aS3dF8gH5jK0lM2nB7vC4xZ9qW1eR6tY3uI8oP \"quoted\"\n"}`,
			`{"type":"x","s":"` + m + ` \"quoted\"\n"}`},
		// Duplicate keys, strings in arrays, member names, nested values; other bytes kept.
		{`{"type":"x", "a" : "` + key + `", "a":["ok", "` + key + `", 1.50, null], "` + key + `": {"b": true}}`,
			`{"type":"x", "a" : "` + m + `", "a":["ok", "` + m + `", 1.50, null], "` + m + `": {"b": true}}`},
		// A secret-named member's value is judged whole.
		{`{"type":"tool_execution_start","args":{"env":{"API_TOKEN":"q7Wp2xZk9mRt4vLs","PATH":"/usr/bin:/bin"}}}`,
			`{"type":"tool_execution_start","args":{"env":{"API_TOKEN":"[REDACTED:generic-secret]","PATH":"/usr/bin:/bin"}}}`},
		// Provider payloads are left alone.
		{`{"type":"x","c":[{"type":"thinking","thinking":"","thinkingSignature":"` + key + `"},{"type":"image","data":"` + key + `","mimeType":"image/png"}]}`,
			`{"type":"x","c":[{"type":"thinking","thinking":"","thinkingSignature":"` + key + `"},{"type":"image","data":"` + key + `","mimeType":"image/png"}]}`},
		{`not json ` + key, `not json ` + m},
		{`{"type":"agent_end","messages":[{"role":"user","content":"my key is ` + key + `"}]}`,
			`{"type":"agent_end","messages":[{"role":"user","content":"my key is ` + m + `"}]}`},
	}
	for _, c := range cases {
		got := string(bytes.TrimSuffix(run(t, stages.NewRedact(r), []byte(c.in+"\n")), []byte("\n")))
		if got != c.want {
			t.Errorf("in   %s\ngot  %s\nwant %s", c.in, got, c.want)
		}
	}
}

func TestRedactOptions(t *testing.T) {
	const text = "ghp_0123456789abcdefghij0123456789ABCDEF and AKIAABCDEFGHIJKLMNOP and hunter2-corp-vpn and ticket JIRA-4821"
	for _, c := range []struct {
		opts redact.Options
		want string
	}{
		{redact.Options{}, "[REDACTED:github-pat] and [REDACTED:aws-access-key-id] and hunter2-corp-vpn and ticket JIRA-4821"},
		{redact.Options{Rules: []string{"aws-access-key-id"}}, "ghp_0123456789abcdefghij0123456789ABCDEF and [REDACTED:aws-access-key-id] and hunter2-corp-vpn and ticket JIRA-4821"},
		{redact.Options{NoDefaultRules: true, Literals: []redact.Literal{{ID: "literal", Value: "hunter2-corp-vpn"}}},
			"ghp_0123456789abcdefghij0123456789ABCDEF and AKIAABCDEFGHIJKLMNOP and [REDACTED:literal] and ticket JIRA-4821"},
		{redact.Options{NoDefaultRules: true, Patterns: []string{`JIRA-\d+`, `\bhunter\d`}},
			"ghp_0123456789abcdefghij0123456789ABCDEF and AKIAABCDEFGHIJKLMNOP and [REDACTED:pattern-2]-corp-vpn and ticket [REDACTED:pattern-1]"},
	} {
		r := redactor(t, c.opts)
		if got := r.RedactString(text); got != c.want {
			t.Errorf("%+v:\n got %q\nwant %q", c.opts, got, c.want)
		}
	}
	for _, bad := range []redact.Options{
		{Rules: []string{"nope"}},
		{Patterns: []string{"("}},
		{Patterns: []string{"^x"}},
		{Patterns: []string{"a*"}},
		{Literals: []redact.Literal{{ID: "literal", Value: "abc"}}},
		{Literals: []redact.Literal{{ID: "bad id", Value: "abcdef"}}},
	} {
		if _, err := redact.New(bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// Patterns and literals are streamed like the built-in rules: split anywhere, never shown.
func TestRedactPatternsAndLiteralsStream(t *testing.T) {
	r := redactor(t, redact.Options{NoDefaultRules: true,
		Patterns: []string{`tkt-[0-9]{6,}`, `\bcorp-[a-z]+-\d+\b`},
		Literals: []redact.Literal{{ID: "env:DEPLOY_KEY", Value: "deploy-9f8e7d6c5b4a"}}})
	text := "a tkt-123456789 b corp-vpn-42 c deploy-9f8e7d6c5b4a d tkt-12 corp-x e"
	want := "a [REDACTED:pattern-1] b [REDACTED:pattern-2] c [REDACTED:env:DEPLOY_KEY] d tkt-12 corp-x e"
	if got := r.RedactString(text); got != want {
		t.Fatalf("got %q", got)
	}
	for p := 0; p <= len(text); p++ {
		for q := p; q <= len(text); q += 3 {
			blocks := []genBlock{{"text", []string{text[:p], text[p:q], text[q:]}}}
			full, _, _ := streamsOf(t, r, blocks)
			rd := run(t, stages.NewRedact(r), deltas(t, full))
			for _, s := range []string{"tkt-123456789", "corp-vpn-42", "deploy-9f8e7d6c5b4a"} {
				if l := leak(rd, s); l != "" {
					t.Fatalf("cut %d %d: %q shown:\n%s", p, q, l, rd)
				}
			}
			checkDeltasAddUp(t, lines(rd))
		}
	}
}

func TestRedactCounts(t *testing.T) {
	r := redactor(t, redact.Options{})
	r.RedactString("ghp_0123456789abcdefghij0123456789ABCDEF ghp_0123456789abcdefghij0123456789ABCDEF AKIAABCDEFGHIJKLMNOP")
	got := fmt.Sprint(r.Counts())
	if got != "[{github-pat 2} {aws-access-key-id 1}]" {
		t.Errorf("counts %s", got)
	}
}

// FuzzRedactLines: on any input, no line is lost or reordered (the stage only adds deltas
// that carry held text), lines that are not JSON objects are redacted as plain text, and
// valid lines stay valid.
func FuzzRedactLines(f *testing.F) {
	for _, in := range referenceStreams(f) {
		ls := lines(deltas(f, in))
		for i := 0; i+4 <= len(ls) && i < 40; i += 4 {
			f.Add(bytes.Join(ls[i:i+4], []byte("\n")))
		}
	}
	f.Add([]byte(`{"type":"message_update","messageId":1,"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"sk-ant-api03-abc"}}` + "\nnot json\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		r := redactor(t, redact.Options{})
		out := run(t, stages.NewRedact(r), in)
		il, ol := lines(bytes.ReplaceAll(in, []byte("\r\n"), []byte("\n"))), lines(out)
		j := 0
		for i, l := range il {
			// Skip the deltas the stage added before an end (they carry held text).
			for j < len(ol) && kindOf(ol[j]) != kindOf(l) && isDelta(ol[j]) {
				j++
			}
			if j >= len(ol) || kindOf(ol[j]) != kindOf(l) {
				t.Fatalf("line %d lost: %q", i+1, l)
			}
			if codec.CheckObject(l) != nil {
				if want := r.RedactString(string(bytes.TrimSuffix(l, []byte("\r")))); want != string(ol[j]) {
					t.Fatalf("invalid line %d: %q → %q", i+1, l, ol[j])
				}
			} else if err := codec.CheckObject(ol[j]); err != nil {
				t.Fatalf("line %d made invalid: %v\n%s", i+1, err, ol[j])
			}
			j++
		}
		for ; j < len(ol); j++ {
			if !isDelta(ol[j]) {
				t.Fatalf("line %d added: %s", j+1, ol[j])
			}
		}
	})
}

// kindOf is a line's type and, for an update, its event's type ("" when not an object).
func kindOf(l []byte) string {
	if codec.CheckObject(l) != nil {
		return "invalid"
	}
	return codec.LineType(l) + "/" + codec.Lookup(l, "assistantMessageEvent.type").Str(l)
}

func isDelta(l []byte) bool {
	return codec.CheckObject(l) == nil && codec.LineType(l) == "message_update" &&
		strings.HasSuffix(codec.Lookup(l, "assistantMessageEvent.type").Str(l), "_delta")
}

// FuzzRedactForms: a secret of the corpus after any text, in a text, a thinking and a tool
// call block cut at any places, checked in both forms, in process and as a filter.
func FuzzRedactForms(f *testing.F) {
	entries := redacttest.Corpus(f)
	f.Add("export KEY=", uint8(0), []byte{3, 17, 40, 2})
	f.Add("", uint8(33), []byte{1})
	f.Fuzz(func(t *testing.T, prefix string, which uint8, cuts []byte) {
		if len(cuts) == 0 {
			return
		}
		e := entries[int(which)%len(entries)]
		cut := func(s string) []string {
			var out []string
			for k := 0; len(s) > 0; k++ {
				n := min(len(s), 1+int(cuts[k%len(cuts)])%64)
				for n < len(s) && !utf8.RuneStart(s[n]) {
					n++ // a delta is a JSON string: whole characters
				}
				out = append(out, s[:n])
				s = s[n:]
			}
			return out
		}
		text := strings.ToValidUTF8(prefix, "") + e.Text
		r := redactor(t, redact.Options{})
		blocks := []genBlock{{"text", cut(text)}, {"thinking", cut(text)}, {"toolCall", cut(argsJSON(text))}}
		if leak([]byte(r.RedactString(text)), e.Secret) != "" {
			return // the prefix made it no secret (a word before a token), in every form alike
		}
		checkRedactedRun(t, r, blocks, e.Secret)
	})
}

// An Authorization member's value is judged as the header's: Basic credentials are found
// in it, in the finished JSON as in streamed tool-call arguments.
func TestRedactAuthorizationMember(t *testing.T) {
	r := redactor(t, redact.Options{})
	in := `{"url":"https://api.example.com","headers":{"Authorization":"Basic ZGVwbG95OlMzY3JldC1wYXNzITc3","Accept":"Basic abcdefgh12"}}`
	want := `{"url":"https://api.example.com","headers":{"Authorization":"Basic [REDACTED:basic-auth]","Accept":"Basic abcdefgh12"}}`
	if got := string(r.RedactJSON([]byte(in))); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	checkRedactedRun(t, r, []genBlock{{kind: "text", chunks: []string{"ok"}}, {kind: "toolCall", chunks: chunk(in, nil)}}, "ZGVwbG95OlMzY3JldC1wYXNzITc3")
}

// passOn is a stage that passes every frame on: what Run itself allocates.
type passOn struct{}

func (passOn) Push(f *stages.Frame, emit stages.Emit) error { return emit(f) }
func (passOn) Flush(stages.Emit) error                      { return nil }

// Once its first messages are through, the stage allocates nothing over a stream in the
// delta form: not per delta, and not per message (its blocks start again on the buffers of
// the blocks before). A run of f_long (two thousand text deltas and the events around them)
// through a stage that has seen two costs it exactly what it costs a stage that passes every
// line on.
func TestRedactAllocatesNothingOverADeltaStream(t *testing.T) {
	run := forms(t)["delta"][1]
	st := newRedact(t, redact.Options{})
	runBytes(t, st, repeated(t, "delta", 2), io.Discard)
	allocs := func(st stages.Stage) float64 {
		return testing.AllocsPerRun(5, func() { runBytes(t, st, run, io.Discard) })
	}
	if got, want := allocs(st), allocs(passOn{}); got != want {
		t.Errorf("a run of f_long in the delta form: %.1f allocations, %.1f of them Run's own", got, want)
	}
}

// A snapshot shows each streamed block as released after the update's own delta, also when
// it came behind it (a snapshot that lags its delta), and whether the stage looked at the
// snapshot before or after the delta went to its block.
func TestRedactSnapshotsShowTheTextAfterTheDelta(t *testing.T) {
	update := func(typ, delta, text string) string {
		snap := `{"role":"assistant","content":[{"type":"text","text":"` + text + `"}],"api":"a"}`
		d := ""
		if delta != "" {
			d = `,"delta":"` + delta + `"`
		}
		return `{"type":"message_update","assistantMessageEvent":{"type":"` + typ + `","contentIndex":0` + d +
			`,"partial":` + snap + `},"message":` + snap + `}`
	}
	start := `{"type":"message_start","message":{"role":"assistant","content":[],"api":"a"}}`
	in := strings.Join([]string{start, update("text_start", "", ""), update("text_delta", "abc ", ""),
		update("text_delta", "def ", "abc "), update("text_delta", "ghi ", "abc def ghi ")}, "\n") + "\n"
	want := strings.Join([]string{start, update("text_start", "", ""), update("text_delta", "abc ", "abc "),
		update("text_delta", "def ", "abc def "), update("text_delta", "ghi ", "abc def ghi ")}, "\n") + "\n"
	if got := run(t, newRedact(t, redact.Options{}), []byte(in)); string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// In the full form, every snapshot the stage writes shows each streamed text block as the
// deltas it wrote for that block so far add up to, whatever the snapshot it read showed
// (the text as streamed, lagging its delta, ahead of it, or other), with secrets, escapes
// and multi-byte characters in the texts, and the snapshot in partial, message or both.
func TestRedactSnapshotsAreTheTextReleased(t *testing.T) {
	r := redactor(t, redact.Options{})
	rnd := rand.New(rand.NewSource(11))
	words := []string{"0001 ", "the ", "AKIAIOSFODNN7EXAMPLE ", "token=", "\"q\" ", `\ `, "\n", "é ", "sk-",
		"ant-api03-abcdefghijklmnopqrstuvwxyz0123 ", "password: hunter2x ", "x"}
	type snapshot struct {
		Content []struct {
			Text     string `json:"text"`
			Thinking string `json:"thinking"`
		} `json:"content"`
	}
	for range 200 {
		kinds := []string{"text", "thinking", "text"}[:1+rnd.Intn(3)]
		texts := make([]string, len(kinds))
		started := 0 // the blocks a snapshot shows
		snap := func(lagging int, before string) json.RawMessage {
			var content []string
			for i, k := range kinds[:started] {
				text := texts[i]
				switch x := rnd.Intn(10); {
				case i == lagging && x < 3:
					text = before
				case x == 3:
					text += words[rnd.Intn(len(words))]
				case x == 4:
					text = words[rnd.Intn(len(words))]
				}
				content = append(content, fmt.Sprintf(`{"type":%q,%q:%s}`, k, k, codec.AppendString(nil, text)))
			}
			return json.RawMessage(`{"role":"assistant","content":[` + strings.Join(content, ",") + `],"api":"a"}`)
		}
		var in []byte
		update := func(ev map[string]any, s json.RawMessage) {
			u := map[string]any{"type": "message_update", "assistantMessageEvent": ev}
			switch rnd.Intn(3) {
			case 0:
				ev["partial"] = s
			case 1:
				u["message"] = s
			default:
				ev["partial"], u["message"] = s, s
			}
			line, _ := json.Marshal(u)
			in = append(append(in, line...), '\n')
		}
		in = append(in, `{"type":"message_start","message":{"role":"assistant","content":[],"api":"a"}}`+"\n"...)
		for i, k := range kinds {
			started++
			update(map[string]any{"type": k + "_start", "contentIndex": i}, snap(-1, ""))
			for range rnd.Intn(25) {
				before := texts[i]
				delta := words[rnd.Intn(len(words))]
				texts[i] += delta
				update(map[string]any{"type": k + "_delta", "contentIndex": i, "delta": delta}, snap(i, before))
			}
			update(map[string]any{"type": k + "_end", "contentIndex": i, "content": texts[i]}, snap(-1, ""))
		}
		released := make([]string, len(kinds))
		for n, line := range lines(run(t, stages.NewRedact(r), in)) {
			var u struct {
				Event struct {
					Type    string    `json:"type"`
					Index   int       `json:"contentIndex"`
					Delta   string    `json:"delta"`
					Partial *snapshot `json:"partial"`
				} `json:"assistantMessageEvent"`
				Message *snapshot `json:"message"`
			}
			if err := json.Unmarshal(line, &u); err != nil {
				t.Fatalf("line %d: %v\n%s", n+1, err, line)
			}
			if strings.HasSuffix(u.Event.Type, "_delta") {
				released[u.Event.Index] += u.Event.Delta
			}
			for _, s := range []*snapshot{u.Event.Partial, u.Message} {
				if s == nil {
					continue
				}
				for i, b := range s.Content {
					if got := b.Text + b.Thinking; got != released[i] {
						t.Fatalf("line %d, block %d shows %q, its deltas so far %q\nin:\n%s", n+1, i, got, released[i], in)
					}
				}
			}
		}
	}
}
