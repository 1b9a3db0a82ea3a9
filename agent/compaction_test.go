package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/agent/session"
	"github.com/basecontext/base-context/agent/tools"
	"github.com/basecontext/base-context/codec"
)

func TestCompactCommand(t *testing.T) {
	for text, want := range map[string]string{
		"/compact":                  "",
		"  /compact  ":              "",
		"/compact keep the details": "keep the details",
		"/compact\nfocus on tests":  "focus on tests",
	} {
		got, ok := compactCommand(userText(text))
		if !ok || got != want {
			t.Errorf("%q: %q %v, want %q", text, got, ok, want)
		}
	}
	for _, text := range []string{"/compactor", "please /compact", "compact", ""} {
		if _, ok := compactCommand(userText(text)); ok {
			t.Errorf("%q taken for a command", text)
		}
	}
	if _, ok := compactCommand(&codec.UserMessage{Text: "/compact now"}); !ok {
		t.Error("a plain-string prompt is a command too")
	}
	img := &codec.UserMessage{Blocks: []codec.Content{&codec.TextContent{Text: "/compact"}, &codec.ImageContent{Data: "x", MimeType: "image/png"}}}
	if _, ok := compactCommand(img); ok {
		t.Error("a prompt with an image is no command")
	}
}

func assistantWith(text string, total int64, calls ...*codec.ToolCall) *codec.AssistantMessage {
	m := &codec.AssistantMessage{Content: []codec.Content{&codec.TextContent{Text: text}}, StopReason: codec.StopReasonStop}
	for _, c := range calls {
		m.Content = append(m.Content, c)
	}
	m.Usage.TotalTokens = total
	return m
}

func toolResult(id, text string) *codec.ToolResultMessage {
	return &codec.ToolResultMessage{ToolCallID: id, ToolName: "read", Content: []codec.Content{&codec.TextContent{Text: text}}}
}

func TestContextTokensUsesTheLastUsageAndEstimatesTheRest(t *testing.T) {
	a := New(Config{}, []codec.Message{
		userText(strings.Repeat("x", 400)),       // 100 tokens, covered by the usage after it
		assistantWith("ok", 5000),                // the provider counted the context up to here
		toolResult("c", strings.Repeat("y", 80)), // 20 tokens
	})
	if got := a.contextTokens(); got != 5020 {
		t.Fatalf("context %d, want 5020", got)
	}
	if got := a.contextTokens(userText(strings.Repeat("z", 40))); got != 5030 {
		t.Fatalf("with a new prompt %d, want 5030", got)
	}
	// Without any usage, everything is estimated.
	b := New(Config{}, []codec.Message{userText(strings.Repeat("x", 400)), toolResult("c", strings.Repeat("y", 80))})
	if got := b.contextTokens(); got != 120 {
		t.Fatalf("estimated %d, want 120", got)
	}
}

func TestUsageAfterACompactionCountsOnlyNewerResponses(t *testing.T) {
	summary := &codec.CompactionSummaryMessage{Summary: strings.Repeat("s", 400), Timestamp: 1000}
	kept := assistantWith("old", 190000) // the usage of the context before the compaction
	kept.Timestamp = 900
	history := []codec.Message{summary, kept, userText(strings.Repeat("u", 40))}
	a := New(Config{}, history)
	if got := a.contextTokens(); got != 100+1+10 {
		t.Fatalf("context %d: the kept message's usage must not count", got)
	}
	newer := assistantWith("new", 3000)
	newer.Timestamp = 1001
	a = New(Config{}, append(history, newer))
	if got := a.contextTokens(); got != 3000 {
		t.Fatalf("context %d, want the newer usage 3000", got)
	}
}

func TestCutPointKeepsRecentTokensAndNeverSplitsACallFromItsResult(t *testing.T) {
	call := &codec.ToolCall{ID: "c1", Name: "read", Arguments: json.RawMessage(`{"path":"a.go"}`)}
	history := []codec.Message{
		userText(strings.Repeat("a", 4000)),               // 0: 1000 tokens
		assistantWith(strings.Repeat("b", 4000), 0, call), // 1: ~1000
		toolResult("c1", strings.Repeat("c", 8000)),       // 2: 2000
		assistantWith(strings.Repeat("d", 400), 0),        // 3: 100
		userText(strings.Repeat("e", 400)),                // 4: 100
	}
	cases := []struct {
		keep int64
		want int
	}{
		{keep: 150, want: 3},   // messages 3 and 4 hold 200 tokens
		{keep: 1000, want: 1},  // a cut at 2 would split the call from its result: back to 1
		{keep: 2300, want: 1},  // 1..4 hold ~3200
		{keep: 99999, want: 4}, // everything is smaller: keep the least, the latest possible cut
		{keep: 0, want: 4},
	}
	for _, c := range cases {
		a := New(Config{Compaction: CompactionSettings{Keep: c.keep}}, history)
		got, err := a.cutPoint()
		if err != nil || got != c.want {
			t.Errorf("keep %d: cut %d (%v), want %d", c.keep, got, err, c.want)
		}
	}
	// Nothing before the only message: nothing to compact.
	a := New(Config{}, []codec.Message{userText("hi")})
	if _, err := a.cutPoint(); err == nil {
		t.Fatal("a single message was compacted")
	}
	// With a session, the first kept message needs an entry id: messages loaded without
	// one are summarised rather than named.
	a = New(Config{Store: session.NewMemory(), HistoryEntryIDs: []string{"", "", "", "", "e4"}}, history)
	if got, err := a.cutPoint(); err != nil || got != 4 {
		t.Fatalf("cut %d (%v), want 4, the only message with an id", got, err)
	}
}

// recordingScript is a scripted provider that keeps the requests it was sent.
func recordingScript(t *testing.T, script string) (*provider.Script, *bytes.Buffer) {
	t.Helper()
	s, err := provider.ParseScript([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	var rec bytes.Buffer
	s.RecordTo = &rec
	return s, &rec
}

func requests(t *testing.T, rec *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(rec.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// The default reserve is at most a quarter of the window: a small model whose context is
// half full is not compacted (a 16384-token reserve would exceed its whole window), one
// whose context is nine tenths full is.
func TestDefaultReserveFitsSmallWindows(t *testing.T) {
	for _, c := range []struct {
		input int64
		want  int
	}{{4000, 0}, {7200, 1}} {
		s, _ := recordingScript(t, fmt.Sprintf(`{"responses":[
		 {"text":"reading","tool_calls":[{"id":"c1","name":"hook","args":{}}],"usage":{"input":%d}},
		 {"text":"THE SUMMARY"},
		 {"text":"the answer","usage":{"input":500}}
		]}`, c.input))
		r := &recorder{}
		a := New(Config{Provider: s, Model: provider.Model{ID: "m", ContextWindow: 8000}, Tools: []tools.Tool{&hookTool{}},
			Store: session.NewMemory(), Emit: r.emit, Compaction: CompactionSettings{Auto: true, Keep: 1}}, nil)
		if out := a.Prompt(context.Background(), userText("please read")); out.Failed() {
			t.Fatalf("input %d: outcome %+v", c.input, out)
		}
		if got := len(eventsOf[*codec.CompactionEnd](r)); got != c.want {
			t.Errorf("context %d of 8000 with the default reserve: %d compactions, want %d", c.input, got, c.want)
		}
	}
}

func TestThresholdCompactionReplacesOlderMessagesWithTheSummary(t *testing.T) {
	s, rec := recordingScript(t, `{"responses":[
	 {"text":"reading","tool_calls":[{"id":"c1","name":"hook","args":{}}],"usage":{"input":9000}},
	 {"text":"THE SUMMARY"},
	 {"text":"the answer","usage":{"input":500}}
	]}`)
	store := session.NewMemory()
	r := &recorder{}
	a := New(Config{Provider: s, Model: provider.Model{ID: "m", ContextWindow: 10000}, Tools: []tools.Tool{&hookTool{}},
		Store: store, Emit: r.emit, Compaction: CompactionSettings{Auto: true, Reserve: 2000, Keep: 1}}, nil)
	out := a.Prompt(context.Background(), userText("please read"))
	if out.Failed() || messageText(out.Final) != "the answer" {
		t.Fatalf("outcome %+v", out)
	}
	ends := eventsOf[*codec.CompactionEnd](r)
	if len(ends) != 1 || ends[0].Result == nil || ends[0].Reason != ReasonThreshold {
		t.Fatalf("compaction_end %+v", ends)
	}
	res := ends[0].Result
	if res.Summary != "THE SUMMARY" || res.TokensBefore < 9000 {
		t.Fatalf("result %+v", res)
	}
	// The summary request: our own system prompt, the older part quoted, no tools.
	reqs := requests(t, rec)
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	summaryReq, _ := json.Marshal(reqs[1])
	if !bytes.Contains(summaryReq, []byte(`[user]\nplease read`)) || bytes.Contains(summaryReq, []byte(`[assistant]\nreading`)) {
		t.Fatalf("summary request quotes the wrong messages: %s", summaryReq)
	}
	if tools, _ := reqs[1]["tools"].([]any); len(tools) != 0 {
		t.Fatalf("summary request offers tools: %v", tools)
	}
	// The next request starts with the summary as a user message, then the kept messages.
	msgs := reqs[2]["messages"].([]any)
	first := msgs[0].(map[string]any)
	text := first["content"].([]any)[0].(map[string]any)["text"].(string)
	if first["role"] != "user" || !strings.Contains(text, "<summary>\nTHE SUMMARY\n</summary>") {
		t.Fatalf("first message after compaction: %v", first)
	}
	if len(msgs) != 3 {
		t.Fatalf("%d messages after compaction, want summary, assistant, tool result", len(msgs))
	}
	// The entry names the kept assistant message's entry.
	var assistantID string
	var compaction []byte
	for _, e := range store.Entries() {
		if am, ok := e.Message.(*codec.AssistantMessage); ok && messageText(am) == "reading" {
			assistantID = e.ID
		}
		if e.Type == session.TypeCompaction {
			compaction = e.Raw
		}
	}
	if res.FirstKeptEntryID != assistantID || !bytes.Contains(compaction, []byte(`"firstKeptEntryId":"`+assistantID+`"`)) {
		t.Fatalf("first kept %q, assistant entry %q, entry %s", res.FirstKeptEntryID, assistantID, compaction)
	}
}

func TestResumedSessionContinuesFromTheCompaction(t *testing.T) {
	dir := t.TempDir()
	f, err := session.Create(dir, codec.Header{ID: "s1", Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := recordingScript(t, `{"responses":[
	 {"text":"one","usage":{"input":100}},
	 {"text":"two","usage":{"input":100}},
	 {"text":"SUMMARY OF ONE"}
	]}`)
	a := New(Config{Provider: s, Store: f, Emit: (&recorder{}).emit, Compaction: CompactionSettings{Keep: 1}}, nil)
	a.FollowUp("second")
	a.FollowUp("/compact")
	if out := a.Prompt(context.Background(), userText("first")); out.Failed() {
		t.Fatalf("outcome %+v", out)
	}
	f.Close()

	l, err := session.Read(filepath.Join(dir, "s1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, ids := l.Context(), l.ContextEntryIDs()
	var got []string
	for _, m := range ctx {
		got = append(got, m.Role()+":"+messageText(m))
	}
	// The summary covers the first prompt, its answer and the second prompt; the last answer
	// is kept (the latest place a cut can go).
	if want := "compactionSummary:SUMMARY OF ONE|assistant:two"; strings.Join(got, "|") != want {
		t.Fatalf("context %s, want %s", strings.Join(got, "|"), want)
	}
	if len(ids) != 2 || ids[0] != "" || ids[1] == "" {
		t.Fatalf("ids %q", ids)
	}

	// A resumed agent sends the summary and the kept message, then the new prompt.
	s2, rec2 := recordingScript(t, `{"responses":[{"text":"three"}]}`)
	f2, _, err := session.Resume(filepath.Join(dir, "s1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	b := New(Config{Provider: s2, Store: f2, Emit: (&recorder{}).emit, HistoryEntryIDs: ids}, ctx)
	b.Prompt(context.Background(), userText("third"))
	msgs := requests(t, rec2)[0]["messages"].([]any)
	var sent []string
	for _, m := range msgs {
		raw, _ := json.Marshal(m)
		sent = append(sent, string(raw))
	}
	if len(sent) != 3 || !strings.Contains(sent[0], "SUMMARY OF ONE") || !strings.Contains(sent[1], `"text":"two"`) || !strings.Contains(sent[2], `"text":"third"`) {
		t.Fatalf("resumed request:\n%s", strings.Join(sent, "\n"))
	}
}

func TestFailedAndAbortedCompactions(t *testing.T) {
	s, _ := recordingScript(t, `{"responses":[{"text":"one"},{"status":500,"message":"down"}]}`)
	r := &recorder{}
	a := New(Config{Provider: s, Emit: r.emit}, nil)
	a.FollowUp("/compact")
	out := a.Prompt(context.Background(), userText("first"))
	if out.CompactionErr == nil || !out.Failed() {
		t.Fatalf("outcome %+v", out)
	}
	end := eventsOf[*codec.CompactionEnd](r)[0]
	if end.Result != nil || end.Aborted || end.WillRetry || end.ErrorMessage != "the summary request failed: 500 down" {
		t.Fatalf("compaction_end %+v", end)
	}

	// An empty summary is a failure too.
	s, _ = recordingScript(t, `{"responses":[{"text":"one"},{"text":"   "}]}`)
	a = New(Config{Provider: s, Emit: (&recorder{}).emit}, nil)
	a.Prompt(context.Background(), userText("first"))
	if err := a.Compact(context.Background(), ""); err == nil || !strings.Contains(err.Error(), "empty summary") {
		t.Fatalf("err %v", err)
	}

	// Cancelled during the summary: aborted.
	s, _ = recordingScript(t, `{"responses":[{"text":"one"},{"text":["a","b"],"delay_ms":10000}]}`)
	r = &recorder{}
	a = New(Config{Provider: s, Emit: r.emit}, nil)
	a.Prompt(context.Background(), userText("first"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := a.Compact(ctx, ""); err == nil {
		t.Fatal("a cancelled compaction succeeded")
	}
	end = eventsOf[*codec.CompactionEnd](r)[0]
	if !end.Aborted || end.Result != nil {
		t.Fatalf("compaction_end %+v", end)
	}
	if len(a.history) != 2 {
		t.Fatalf("a failed compaction changed the context: %d messages", len(a.history))
	}
}

func TestOverflowCompactsAndRetriesOnce(t *testing.T) {
	s, _ := recordingScript(t, `{"responses":[
	 {"text":"step","tool_calls":[{"id":"c1","name":"hook","args":{}}]},
	 {"status":400,"message":"prompt is too long"},
	 {"text":"SUMMARY"},
	 {"text":"answer"}
	]}`)
	r := &recorder{}
	a := New(Config{Provider: s, Emit: r.emit, Tools: []tools.Tool{&hookTool{}}, Compaction: CompactionSettings{Auto: true, Keep: 1}}, nil)
	out := a.Prompt(context.Background(), userText("go"))
	if out.Failed() || messageText(out.Final) != "answer" {
		t.Fatalf("outcome %+v", out.Final)
	}
	ends := eventsOf[*codec.CompactionEnd](r)
	if len(ends) != 1 || ends[0].Reason != ReasonOverflow || !ends[0].WillRetry {
		t.Fatalf("compaction_end %+v", ends)
	}
	if n := len(eventsOf[*codec.AgentStart](r)); n != 2 {
		t.Fatalf("%d cycles, want 2", n)
	}
	// The failed response is not in the context the model sees next.
	for _, m := range a.request().Messages {
		if am, ok := m.(*codec.AssistantMessage); ok && am.StopReason == codec.StopReasonError {
			t.Fatal("the failed response is in the context")
		}
	}
}

func TestTouchedFilesAndTheirNote(t *testing.T) {
	call := func(name, path string) *codec.ToolCall {
		return &codec.ToolCall{ID: name, Name: name, Arguments: json.RawMessage(`{"path":"` + path + `"}`)}
	}
	msgs := []codec.Message{
		&codec.CompactionSummaryMessage{Summary: "before" + filesNote([]string{"old read.go"}, []string{"old.go"})},
		assistantWith("", 0, call("read", "a.go"), call("read", "b.go"), call("edit", "b.go"), call("write", "c.go"), call("bash", "x")),
	}
	read, modified := touchedFiles(msgs)
	if strings.Join(read, ",") != "a.go,old read.go" || strings.Join(modified, ",") != "b.go,c.go,old.go" {
		t.Fatalf("read %v, modified %v", read, modified)
	}
	r, m := filesOfNote("text" + filesNote(read, modified))
	if strings.Join(r, ",") != strings.Join(read, ",") || strings.Join(m, ",") != strings.Join(modified, ",") {
		t.Fatalf("round trip: %v %v", r, m)
	}
}

func TestConversationTextCutsLongResults(t *testing.T) {
	var b strings.Builder
	writeConversation(&b, []codec.Message{toolResult("c", strings.Repeat("é", summaryFieldBytes))})
	text := b.String()
	if len(text) > summaryFieldBytes+100 || !strings.Contains(text, "more bytes)") {
		t.Fatalf("%d bytes: %q…", len(text), text[:80])
	}
	if !strings.HasPrefix(text, "[read result]\n") {
		t.Fatalf("%q", text[:40])
	}
}

func TestCompactionEntryFields(t *testing.T) {
	fields := session.CompactionFields("sum \"q\"", "abcd1234", 42, json.RawMessage(`{"readFiles":[],"modifiedFiles":["x"]}`))
	want := `{"summary":"sum \"q\"","firstKeptEntryId":"abcd1234","tokensBefore":42,"details":{"readFiles":[],"modifiedFiles":["x"]}}`
	if string(fields) != want {
		t.Fatalf("%s", fields)
	}
}

// The session file and the stream agree: a run compacted at the threshold can be read
// back, and its Context has the summary.
func TestCompactionEntryOnDisk(t *testing.T) {
	dir := t.TempDir()
	f, err := session.Create(dir, codec.Header{ID: "s2", Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := recordingScript(t, `{"responses":[
	 {"text":"a","tool_calls":[{"id":"c1","name":"hook","args":{}}],"usage":{"input":9500}},
	 {"text":"S"},
	 {"text":"b"}
	]}`)
	a := New(Config{Provider: s, Model: provider.Model{ContextWindow: 10000}, Tools: []tools.Tool{&hookTool{}}, Store: f,
		Emit: (&recorder{}).emit, Compaction: CompactionSettings{Auto: true, Reserve: 1000, Keep: 1},
		Now: func() time.Time { return time.UnixMilli(5000) }}, nil)
	a.Prompt(context.Background(), userText("x"))
	f.Close()
	data, _ := os.ReadFile(filepath.Join(dir, "s2.jsonl"))
	if !bytes.Contains(data, []byte(`{"type":"compaction",`)) {
		t.Fatalf("no compaction entry:\n%s", data)
	}
	l, err := session.Read(filepath.Join(dir, "s2.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if c := l.Context(); len(c) != 4 || c[0].Role() != "compactionSummary" {
		t.Fatalf("context %v", c)
	}
}
