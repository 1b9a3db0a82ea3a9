package codec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

const decodeRefStreams = "../testdata/reference"

// decodeScratchKeys are fields the reference leaks into tool-call blocks; ours never writes them.
var decodeScratchKeys = map[string]bool{"partialArgs": true, "streamIndex": true, "index": true, "partialJson": true}

// decodeSemanticDiff compares a decoded-and-re-encoded value (got) with the original (want):
// every key we write must match, and keys of the original that we do not write must be
// unknown scratch fields.
// With lenient set, a key of the original holding "" may be missing too: streaming
// snapshots carry empty signatures that our encoder omits as absent optionals.
func decodeSemanticDiff(path string, got, want any, lenient bool) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: got %T, want object", path, got)
		}
		for k, gv := range g {
			wv, ok := w[k]
			if !ok {
				return fmt.Sprintf("%s.%s: extra key in output (%v)", path, k, gv)
			}
			if d := decodeSemanticDiff(path+"."+k, gv, wv, lenient); d != "" {
				return d
			}
		}
		for k := range w {
			if _, ok := g[k]; !ok && !decodeScratchKeys[k] && !(lenient && w[k] == "") {
				return fmt.Sprintf("%s.%s: key lost", path, k)
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%s: got %v, want %v", path, got, want)
		}
		for i := range w {
			if d := decodeSemanticDiff(fmt.Sprintf("%s[%d]", path, i), g[i], w[i], lenient); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Sprintf("%s: got %#v, want %#v", path, got, want)
	}
	return ""
}

func decodeRoundTrip(t *testing.T, name string, raw []byte, lenient bool) {
	t.Helper()
	m, err := ParseMessage(raw)
	if err != nil {
		t.Fatalf("%s: ParseMessage: %v\n%s", name, err, raw)
	}
	out := m.AppendJSON(nil)
	var got, want any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%s: re-encoded JSON invalid: %v\n%s", name, err, out)
	}
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatalf("%s: input invalid: %v", name, err)
	}
	if d := decodeSemanticDiff("message", got, want, lenient); d != "" {
		t.Errorf("%s: %s\n in: %s\nout: %s", name, d, raw, out)
	}
}

func TestParseMessageReferenceSessions(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(decodeRefStreams, "*.session.jsonl"))
	if len(files) == 0 {
		t.Fatal("no reference streams in " + decodeRefStreams)
	}
	n := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if gjson.Get(line, "type").Str != "message" {
				continue
			}
			decodeRoundTrip(t, fmt.Sprintf("%s:%d", filepath.Base(file), i+1), []byte(gjson.Get(line, "message").Raw), false)
			n++
		}
	}
	if n == 0 {
		t.Fatal("no messages found")
	}
}

// TestParseMessageReferenceStreams also round-trips the messages of the stdout streams,
// which include the partial snapshots with leaked scratch fields.
func TestParseMessageReferenceStreams(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(decodeRefStreams, "*.jsonl"))
	n := 0
	for _, file := range files {
		if strings.HasSuffix(file, ".session.jsonl") || strings.HasSuffix(file, ".requests.jsonl") {
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			name := fmt.Sprintf("%s:%d", filepath.Base(file), i+1)
			for _, path := range []string{"message", "assistantMessageEvent.partial"} {
				if m := gjson.Get(line, path); m.IsObject() {
					decodeRoundTrip(t, name, []byte(m.Raw), true)
					n++
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no reference streams in " + decodeRefStreams)
	}
}

func TestParseMessageEveryRole(t *testing.T) {
	exit := int64(2)
	no := false
	msgs := []Message{
		&UserMessage{Text: "hi \"there\"\n\u2028", Timestamp: 1},
		&UserMessage{Blocks: []Content{
			&TextContent{Text: "look", TextSignature: "sig"},
			&ImageContent{Data: "aGVsbG8=", MimeType: "image/png"},
		}, Timestamp: 2},
		&UserMessage{Blocks: []Content{}, Timestamp: 3},
		&AssistantMessage{
			Content: []Content{
				&ThinkingContent{Thinking: "hmm", ThinkingSignature: "ts", Redacted: true},
				&TextContent{Text: "ok"},
				&ToolCall{ID: "c1", Name: "bash", Arguments: json.RawMessage(`{"command":"ls","n":[1,2.5,null]}`), ThoughtSignature: "th"},
			},
			API: "anthropic-messages", Provider: "p", Model: "m",
			Usage: Usage{Input: 10, Output: 20, CacheRead: 3, CacheWrite: 4, TotalTokens: 37,
				Cost: Cost{Input: 0.00003, Output: 0.0003, CacheRead: 1e-7, CacheWrite: 0.5, Total: 0.5003301}},
			StopReason: StopReasonError, ErrorMessage: "500 boom", Timestamp: 1796220163085, ResponseID: "r1",
		},
		&AssistantMessage{Content: []Content{}, StopReason: StopReasonStop},
		&ToolResultMessage{ToolCallID: "c1", ToolName: "bash", Content: []Content{&TextContent{Text: "out"}},
			Details: json.RawMessage(`{"truncation":{"lines":3}}`), IsError: true, Timestamp: 5},
		&ToolResultMessage{ToolCallID: "c2", ToolName: "read", Content: []Content{}},
		&BashExecutionMessage{Command: "ls", Output: "a\n", ExitCode: &exit, Cancelled: true, Truncated: true,
			FullOutputPath: "/tmp/x", ExcludeFromContext: &no, Timestamp: 6},
		&BashExecutionMessage{Command: "sleep", Timestamp: 7},
		&CustomMessage{CustomType: "note", Content: json.RawMessage(`"text"`), Display: true, Details: json.RawMessage(`[1]`), Timestamp: 8},
		&CustomMessage{CustomType: "blocks", Content: json.RawMessage(`[{"type":"text","text":"x"}]`), Timestamp: 9},
		&BranchSummaryMessage{Summary: "s", FromID: "abcd1234", Timestamp: 10},
		&CompactionSummaryMessage{Summary: "c", TokensBefore: 12345, Timestamp: 11},
	}
	for _, m := range msgs {
		enc := m.AppendJSON(nil)
		got, err := ParseMessage(enc)
		if err != nil {
			t.Fatalf("%s: %v", enc, err)
		}
		if !reflect.DeepEqual(got, m) {
			t.Errorf("round trip of %s:\n got %#v\nwant %#v", enc, got, m)
		}
		if again := got.AppendJSON(nil); string(again) != string(enc) {
			t.Errorf("re-encoding differs:\n got %s\nwant %s", again, enc)
		}
	}
}

func TestParseToolCallArgumentsCompacted(t *testing.T) {
	c, err := ParseContent([]byte(` { "type" : "toolCall", "id":"a", "name":"b", "arguments" : { "x" : [ 1 , "y z" ] } } `))
	if err != nil {
		t.Fatal(err)
	}
	tc := c.(*ToolCall)
	if string(tc.Arguments) != `{"x":[1,"y z"]}` {
		t.Errorf("arguments %s", tc.Arguments)
	}
	// Missing arguments become an empty object; scratch fields are dropped.
	c, err = ParseContent([]byte(`{"type":"toolCall","id":"a","name":"b","partialArgs":"{\"x","streamIndex":0}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(c.AppendJSON(nil)); got != `{"type":"toolCall","id":"a","name":"b","arguments":{}}` {
		t.Errorf("got %s", got)
	}
}

func TestParseContents(t *testing.T) {
	cs, err := ParseContents([]byte(`[{"type":"text","text":"a"},{"type":"image","data":"d","mimeType":"image/jpeg"}]`))
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].(*TextContent).Text != "a" || cs[1].(*ImageContent).MimeType != "image/jpeg" {
		t.Errorf("got %#v", cs)
	}
	cs, err = ParseContents([]byte(`[]`))
	if err != nil || cs == nil || len(cs) != 0 {
		t.Errorf("empty: %#v %v", cs, err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{
		``,
		`{`,
		`[]`,
		`"user"`,
		`{"content":"x"}`,
		`{"role":"robot"}`,
		`{"role":7}`,
		`{"role":"user","content":5}`,
		`{"role":"user","content":[{"type":"video"}]}`,
		`{"role":"user","content":["text"]}`,
		`{"role":"user","content":"x","timestamp":"soon"}`,
		`{"role":"assistant","content":[],"usage":{"input":"many"}}`,
		`{"role":"assistant","content":[],"usage":[]}`,
		`{"role":"assistant","content":[{"type":"text","text":1}]}`,
		`{"role":"toolResult","isError":"yes"}`,
		`{"role":"bashExecution","exitCode":"1"}`,
		`{"role":"user","content":"x"} trailing`,
	} {
		if m, err := ParseMessage([]byte(in)); err == nil {
			t.Errorf("ParseMessage(%s) = %#v, want error", in, m)
		}
	}
	for _, in := range []string{`{}`, `{"type":"nope"}`, `[]`, `{"type":"thinking","redacted":1}`} {
		if _, err := ParseContent([]byte(in)); err == nil {
			t.Errorf("ParseContent(%s): want error", in)
		}
	}
	for _, in := range []string{`{}`, `[1]`, `[{"type":"text"},{"type":"x"}]`} {
		if _, err := ParseContents([]byte(in)); err == nil {
			t.Errorf("ParseContents(%s): want error", in)
		}
	}
}

func TestParseNullOptionals(t *testing.T) {
	m, err := ParseMessage([]byte(`{"role":"bashExecution","command":"x","exitCode":null,"excludeFromContext":null,"fullOutputPath":null,"timestamp":3}`))
	if err != nil {
		t.Fatal(err)
	}
	b := m.(*BashExecutionMessage)
	if b.ExitCode != nil || b.ExcludeFromContext != nil || b.Timestamp != 3 {
		t.Errorf("got %#v", b)
	}
}

func BenchmarkParseMessage(b *testing.B) {
	m := &AssistantMessage{
		Content: []Content{&TextContent{Text: strings.Repeat("some text ", 200)},
			&ToolCall{ID: "c", Name: "bash", Arguments: json.RawMessage(`{"command":"ls -la"}`)}},
		API: "a", Provider: "p", Model: "m", StopReason: "toolUse", Timestamp: 1,
	}
	raw := m.AppendJSON(nil)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, err := ParseMessage(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func TestParseRawSpanningLinesCompacted(t *testing.T) {
	m, err := ParseMessage([]byte("{\"role\":\"toolResult\",\"content\":[],\"details\":{\n \"a\": 1 },\"isError\":false,\"timestamp\":1}"))
	if err != nil {
		t.Fatal(err)
	}
	if d := string(m.(*ToolResultMessage).Details); d != `{"a":1}` {
		t.Errorf("details %q", d)
	}
	m, err = ParseMessage([]byte(`{"role":"custom","customType":"x","content":[ {"type":"text"} ],"display":false,"details":{ "b" : 2 },"timestamp":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if c := m.(*CustomMessage); string(c.Content) != `[ {"type":"text"} ]` || string(c.Details) != `{ "b" : 2 }` {
		t.Errorf("raw fields on one line are kept as they are: %s %s", c.Content, c.Details)
	}
}

// TestDecodeMessageDetached: DecodeMessage, which reads its input with this package's
// scanner, gives what ParseMessage (gjson's) gives, for every message of the reference
// sessions and streams and for strings, numbers and keys that are hard to read; detached,
// it keeps no byte of its input, which is then overwritten.
func TestDecodeMessageDetached(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(decodeRefStreams, "*.jsonl"))
	var lines []string
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			lines = append(lines, fmt.Sprintf("%s:%d\t%s", file, i+1, line))
		}
	}
	for i, m := range []string{
		`{"role":"user","content":"pair \ud83d\ude00 lone \ud800 \udc00 nul \u0000 \/ \\\" \u00e9 é \t\r\n","timestamp":-1}`,
		`{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b\\","textSignature":null}],"timestamp":1.5e3}`,
		`{"role":"user","content":"first","content":"last","timestamp":2}`,
		`{ "role" : "assistant" , "content" : [ { "type" : "toolCall" , "id" : "c\u0031" , "name" : "bash" , "arguments" : { "a" : [ 1 , { } ] } } ] , "api":"a","provider":"p","model":"m","usage":{"input":12345678901234,"output":0.0,"cacheRead":-0,"cacheWrite":1E2,"totalTokens":3,"cost":{"input":0.1,"output":1e-7,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":9007199254740993}`,
		`{"role":"toolResult","toolCallId":"c","toolName":"t","content":[],"details":{"x":"\n","y":[true,false,null]},"isError":true,"timestamp":3}`,
		`{"r\u006fle":"user","content":"escaped key","timestamp":4}`,
	} {
		lines = append(lines, fmt.Sprintf("synthetic:%d\t{\"message\":%s}", i, m))
	}
	n := 0
	for _, l := range lines {
		name, line, _ := strings.Cut(l, "\t")
		m := gjson.Get(line, "message")
		if !m.IsObject() {
			continue
		}
		want, err := ParseMessage([]byte(m.Raw))
		shared, err3 := DecodeMessage([]byte(m.Raw))
		buf := []byte(m.Raw)
		got, err2 := DecodeMessageInto(buf, nil)
		// Into memory of the caller's: a region as large as the input, handed out in order.
		region, used := make([]byte, len(m.Raw)), 0
		alloc := func(n int) []byte {
			if used+n > len(region) {
				t.Fatalf("%s: DecodeMessageInto asked for more than the input's %d bytes", name, len(m.Raw))
			}
			used += n
			return region[used-n : used : used]
		}
		buf2 := []byte(m.Raw)
		into, err4 := DecodeMessageInto(buf2, alloc)
		if err4 != nil && (err == nil || err4.Error() != err.Error()) || err4 == nil && err != nil {
			t.Fatalf("%s: ParseMessage %v, DecodeMessageInto %v", name, err, err4)
		}
		if err != nil || err2 != nil || err3 != nil {
			if err == nil || err2 == nil || err3 == nil || err2.Error() != err.Error() || err3.Error() != err.Error() ||
				strings.HasPrefix(name, "synthetic") {
				t.Fatalf("%s: ParseMessage %v, DecodeMessage %v, %v", name, err, err2, err3)
			}
			continue
		}
		for j := range buf {
			buf[j], buf2[j] = 'z', 'z'
		}
		w := want.AppendJSON(nil)
		if g := into.AppendJSON(nil); !bytes.Equal(g, w) {
			t.Fatalf("%s: decoded into the caller's memory\n%s\nwant\n%s", name, g, w)
		}
		if g := got.AppendJSON(nil); !bytes.Equal(g, w) {
			t.Fatalf("%s: decoded\n%s\nwant\n%s", name, g, w)
		}
		if g := shared.AppendJSON(nil); !bytes.Equal(g, w) {
			t.Fatalf("%s: decoded sharing its input\n%s\nwant\n%s", name, g, w)
		}
		n++
	}
	if n < 10 {
		t.Fatalf("%d messages compared", n)
	}
	for _, bad := range []string{`{"role":"robot"}`, `{"role":"user","content":[1]}`, `{"role":"user","content":"a","timestamp":"1"}`} {
		_, want := ParseMessage([]byte(bad))
		if _, err := DecodeMessageInto([]byte(bad), nil); err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("%s: DecodeMessage %v, ParseMessage %v", bad, err, want)
		}
	}
}

// TestDecodeMessageInvalidInput: DecodeMessage trusts its caller that raw is valid JSON,
// but input that is not (a file changed under its reader) gives an error or a message,
// never a panic.
func TestDecodeMessageInvalidInput(t *testing.T) {
	whole := `{"role":"user","content":[{"type":"text","text":"a\"b"}],"timestamp":1}`
	for n := range len(whole) {
		DecodeMessageInto([]byte(whole[:n]), nil)
		DecodeMessage([]byte(whole[:n] + `"`))
		DecodeMessageInto([]byte(whole[:n]), func(n int) []byte { return make([]byte, n) })
	}
}
