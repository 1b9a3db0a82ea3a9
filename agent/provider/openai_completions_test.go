package provider_test

// Tests of the Chat Completions provider. They live outside package provider because they
// drive it through mockserver, which imports provider.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/agent/provider/mockserver"
	"github.com/basecontext/base-context/codec"
)

var completionsModel = provider.Model{
	ID: "mock-gpt", Provider: "mock-openai", API: provider.APIOpenAICompletions, MaxTokens: 16384,
	Cost: provider.Prices{Input: 2, Output: 8, CacheRead: 0.5, CacheWrite: 2.5},
}

func completionsTools() []provider.ToolSpec {
	return []provider.ToolSpec{
		{Name: "read", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object","required":["path"],"properties":{"path":{"type":"string"}}}`)},
		{Name: "bash", Description: "Run a command", Parameters: json.RawMessage(`{"type":"object","required":["command"],"properties":{"command":{"type":"string"}}}`)},
	}
}

func completionsRequest() provider.Request {
	return provider.Request{
		Model:        completionsModel,
		SystemPrompt: "You are a test.",
		Messages:     []codec.Message{&codec.UserMessage{Text: "hi", Timestamp: 1}},
		Tools:        completionsTools(),
	}
}

// completionsMock starts a mock server playing data and a provider pointed at it.
func completionsMock(t *testing.T, data []byte) (*mockserver.Server, provider.Provider) {
	t.Helper()
	s, _ := loadScript(t, data)
	srv := serveScript(t, s)
	return srv, completionsConnect(srv)
}

func completionsConnect(srv *mockserver.Server) provider.Provider {
	return provider.NewOpenAICompletions(provider.Endpoint{BaseURL: srv.URL + "/v1", APIKey: "mock-key"})
}

// completionsBlock is one assembled content block.
type completionsBlock struct {
	Kind, Text, ID, Name, Sig string
}

// completionsOutcome is what a response amounts to, as the agent would assemble it.
type completionsOutcome struct {
	ResponseID string
	Blocks     []completionsBlock
	Stop       string
	Usage      codec.Usage
	HasUsage   bool
	Err        string
}

// completionsCollect assembles events, checking that they are well formed: blocks start
// once, take deltas only while open, end once; a success ends every block and ends with
// one Done; a failure emits no Done and is a *provider.Error (or the context's error).
func completionsCollect(t *testing.T, evs []provider.Event, err error) completionsOutcome {
	t.Helper()
	var o completionsOutcome
	index := map[int]int{}
	open := map[int]bool{}
	for i, e := range evs {
		if o.Stop != "" {
			t.Fatalf("event %d after Done: %+v", i, e)
		}
		switch e.Kind {
		case provider.Metadata:
			if e.ResponseID != "" {
				o.ResponseID = e.ResponseID
			}
		case provider.BlockStart:
			if _, dup := index[e.Block]; dup {
				t.Fatalf("block %d started twice", e.Block)
			}
			index[e.Block] = len(o.Blocks)
			open[e.Block] = true
			o.Blocks = append(o.Blocks, completionsBlock{Kind: e.BlockKind, ID: e.ToolCallID, Name: e.ToolName})
		case provider.BlockDelta:
			if !open[e.Block] {
				t.Fatalf("delta for block %d, which is not open", e.Block)
			}
			o.Blocks[index[e.Block]].Text += e.Delta
		case provider.BlockEnd:
			if !open[e.Block] {
				t.Fatalf("end of block %d, which is not open", e.Block)
			}
			open[e.Block] = false
			o.Blocks[index[e.Block]].Sig = e.Signature
		case provider.Done:
			o.Stop, o.Usage, o.HasUsage = e.StopReason, e.Usage, e.HasUsage
			if o.Stop == "" {
				t.Fatal("Done without a stop reason")
			}
		default:
			t.Fatalf("unknown event kind %d", e.Kind)
		}
	}
	if err != nil {
		if o.Stop != "" {
			t.Fatalf("Done emitted, then error %v", err)
		}
		var pe *provider.Error
		switch {
		case errors.As(err, &pe):
			o.Err = fmt.Sprintf("%s | retryable=%v overflow=%v retryAfter=%v", pe.Error(), pe.Retryable, pe.Overflow, pe.RetryAfter)
		case errors.Is(err, context.Canceled):
			o.Err = "canceled"
		default:
			t.Fatalf("error is not a *provider.Error: %T %v", err, err)
		}
		return o
	}
	if o.Stop == "" {
		t.Fatal("success without a Done event")
	}
	for b, isOpen := range open {
		if isOpen {
			t.Fatalf("block %d never ended", b)
		}
	}
	for i, b := range o.Blocks {
		if b.Kind == "toolCall" {
			// The arguments as the agent keeps them.
			o.Blocks[i].Text = string(codec.PartialObject(b.Text))
		}
	}
	return o
}

// completionsComparable drops what legitimately differs between the scripted provider and
// a wire protocol: response ids, signatures, and text or thinking blocks that never got
// any text (the scripted provider opens a block before a cut that the wire never shows).
func completionsComparable(o completionsOutcome) completionsOutcome {
	o.ResponseID = ""
	var blocks []completionsBlock
	for _, b := range o.Blocks {
		if b.Kind != "toolCall" && b.Text == "" {
			continue
		}
		b.Sig = ""
		blocks = append(blocks, b)
	}
	o.Blocks = blocks
	return o
}

// completionsSame plays a script through the scripted provider and through the provider
// over the mock server, request by request, and requires the same outcomes. It returns the
// provider's outcomes.
func completionsSame(t *testing.T, data []byte, requests int) []completionsOutcome {
	t.Helper()
	script, p, n := scriptAndWire(t, data, completionsConnect)
	if requests == 0 {
		requests = n
	}
	var outs []completionsOutcome
	for i := 1; i <= requests; i++ {
		req := completionsRequest()
		wantEvs, wantErr := playEvents(context.Background(), script, req)
		gotEvs, gotErr := playEvents(context.Background(), p, req)
		want := completionsCollect(t, wantEvs, wantErr)
		got := completionsCollect(t, gotEvs, gotErr)
		if gotErr == nil && got.ResponseID != fmt.Sprintf("chatcmpl-mock-%d", i) {
			t.Errorf("request %d: response id %q", i, got.ResponseID)
		}
		if !reflect.DeepEqual(completionsComparable(got), completionsComparable(want)) {
			t.Errorf("request %d:\n got %+v\nwant %+v", i, completionsComparable(got), completionsComparable(want))
		}
		outs = append(outs, got)
	}
	return outs
}

func TestCompletionsScriptsMatchScriptedProvider(t *testing.T) {
	eachScript(t, func(t *testing.T, data []byte) {
		_, n := loadScript(t, data)
		completionsSame(t, data, n+1) // one more: the last entry repeats
	})
}

// The event sequences of the reference scripts that ran over this protocol: blocks in the
// scripted order, usage and cost, and the thinking signature naming the reasoning field.
func TestCompletionsReferenceSequences(t *testing.T) {
	for name, want := range map[string]string{
		"a_text.json": `meta(chatcmpl-mock-1) start#0(text) delta*10(Hello from the mock model. This is chunk ten.) end#0 ` +
			`done(stop 120/10/0/0=130 cost=0.00032)`,
		"c2_thinking_openai.json": `meta(chatcmpl-mock-1) start#0(thinking) delta*5(The user wants a short answer. 2+2=4.) ` +
			`end#0(reasoning_content) start#1(text) delta*2(2 + 2 = 4.) end#1 done(stop 150/30/0/0=180 cost=0.00054)`,
		"b2_tools_parallel.json": `meta(chatcmpl-mock-1) start#0(toolCall call_read_1 read) delta*2({"path": "hello.txt"}) ` +
			`start#1(toolCall call_bash_2 bash) delta*2({"command": "echo hi && wc -c hello.txt"}) end#0 end#1 ` +
			`done(toolUse 200/20/0/0=220 cost=0.00056)`,
		"b_tool_bash.json": `meta(chatcmpl-mock-1) start#0(text) delta*3(Let me list the files.) end#0 ` +
			`start#1(toolCall call_ls_1 bash) delta*3({"command": "ls"}) end#1 done(toolUse 200/15/0/0=215 cost=0.00052)`,
	} {
		t.Run(name, func(t *testing.T) {
			_, p := completionsMock(t, referenceScript(t, name))
			evs, err := playEvents(context.Background(), p, completionsRequest())
			if err != nil {
				t.Fatal(err)
			}
			if got := completionsSummary(evs); got != want {
				t.Errorf("\n got %s\nwant %s", got, want)
			}
		})
	}
}

// completionsSummary renders events compactly, deltas of a block joined.
func completionsSummary(evs []provider.Event) string {
	var out []string
	for i := 0; i < len(evs); i++ {
		e := evs[i]
		switch e.Kind {
		case provider.Metadata:
			out = append(out, "meta("+e.ResponseID+")")
		case provider.BlockStart:
			s := fmt.Sprintf("start#%d(%s", e.Block, e.BlockKind)
			if e.BlockKind == "toolCall" {
				s += " " + e.ToolCallID + " " + e.ToolName
			}
			out = append(out, s+")")
		case provider.BlockDelta:
			var text strings.Builder
			n := 0
			for ; i < len(evs) && evs[i].Kind == provider.BlockDelta && evs[i].Block == e.Block; i++ {
				text.WriteString(evs[i].Delta)
				n++
			}
			i--
			out = append(out, fmt.Sprintf("delta*%d(%s)", n, text.String()))
		case provider.BlockEnd:
			s := fmt.Sprintf("end#%d", e.Block)
			if e.Signature != "" {
				s += "(" + e.Signature + ")"
			}
			out = append(out, s)
		case provider.Done:
			u := e.Usage
			s := fmt.Sprintf("done(%s", e.StopReason)
			if e.HasUsage {
				s += fmt.Sprintf(" %d/%d/%d/%d=%d cost=%.5f", u.Input, u.Output, u.CacheRead, u.CacheWrite, u.TotalTokens, u.Cost.Total)
			}
			out = append(out, s+")")
		}
	}
	return strings.Join(out, " ")
}

// Faults after HTTP 200 give the same failure as the scripted provider, with the partial
// content so far, and never a success.
func TestCompletionsStreamFaults(t *testing.T) {
	const body = `"thinking":["Hm","m."],"text":["Hel","lo"],"tool_calls":[{"id":"c1","name":"bash","args":["{\"command\":","\"ls\"}"]}],"usage":{"input":10,"output":5}`
	for _, tc := range []struct {
		name, fault, want string
	}{
		{"stream error with type", `"stream_error":{"type":"server_error","message":"The server had an error"}`,
			"server_error: The server had an error | retryable=true overflow=false retryAfter=0s"},
		{"stream error with code", `"stream_error":{"code":"context_length_exceeded","message":"too long"}`,
			"context_length_exceeded: too long | retryable=false overflow=true retryAfter=0s"},
		{"stream error bare", `"stream_error":{"message":"boom"}`,
			"boom | retryable=false overflow=false retryAfter=0s"},
		{"cut at start", `"cut_after":0`, provider.MsgCutOff + " | retryable=true overflow=false retryAfter=0s"},
		{"cut in thinking", `"cut_after":1`, provider.MsgCutOff + " | retryable=true overflow=false retryAfter=0s"},
		{"cut in text", `"cut_after":3`, provider.MsgCutOff + " | retryable=true overflow=false retryAfter=0s"},
		{"cut in tool args", `"cut_after":5`, provider.MsgCutOff + " | retryable=true overflow=false retryAfter=0s"},
		{"cut before finish", `"cut_after":6`, provider.MsgCutOff + " | retryable=true overflow=false retryAfter=0s"},
		{"reset in text", `"cut_after":3,"reset":true`,
			provider.MsgCutOff + ": connection reset by peer | retryable=true overflow=false retryAfter=0s"},
		{"no finish", `"no_finish":true`, provider.MsgNoFinish + " | retryable=true overflow=false retryAfter=0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			outs := completionsSame(t, []byte(`{"responses":[{`+body+`,`+tc.fault+`}]}`), 1)
			if outs[0].Err != tc.want {
				t.Errorf("error %q, want %q", outs[0].Err, tc.want)
			}
		})
	}
}

func TestCompletionsHTTPErrors(t *testing.T) {
	type want struct {
		msg        string
		retryable  bool
		overflow   bool
		retryAfter time.Duration
	}
	cases := map[string]want{}
	var entries []string
	add := func(entry string, w want) {
		entries = append(entries, entry)
		cases[entry] = w
	}
	for _, st := range []struct {
		status    int
		retryable bool
	}{{408, true}, {409, true}, {429, true}, {500, true}, {503, true}, {529, true},
		{400, false}, {401, false}, {403, false}, {404, false}} {
		add(fmt.Sprintf(`{"status":%d,"message":"mock says \"no\""}`, st.status),
			want{msg: fmt.Sprintf(`%d mock says "no"`, st.status), retryable: st.retryable})
	}
	add(`{"status":400,"body":{"error":{"message":"Invalid tools","type":"invalid_request_error","param":"tools","code":null}}}`,
		want{msg: "400 invalid_request_error: Invalid tools"})
	add(`{"status":401,"body":{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}}`,
		want{msg: "401 invalid_api_key: Incorrect API key provided"})
	add(`{"status":400,"body":{"type":"invalid_request_error","message":"flat body"}}`,
		want{msg: "400 invalid_request_error: flat body"})
	add(`{"status":400,"body":{"error":"a string error"}}`, want{msg: "400 a string error"})
	add(`{"status":502,"body":"Bad Gateway: upstream died"}`, want{msg: "502 Bad Gateway: upstream died", retryable: true})
	add(`{"status":500}`, want{msg: "500 " + provider.MsgEmptyBody, retryable: true})
	add(`{"status":400,"body":{"error":{"message":"This model's maximum context length is 128000 tokens.","code":"context_length_exceeded"}}}`,
		want{msg: "400 context_length_exceeded: This model's maximum context length is 128000 tokens.", overflow: true})
	add(`{"status":400,"message":"overloaded right now"}`, want{msg: "400 overloaded right now", retryable: true})
	add(`{"status":429,"message":"slow down","headers":{"retry-after":"7"}}`,
		want{msg: "429 slow down", retryable: true, retryAfter: 7 * time.Second})
	add(`{"status":503,"message":"later","headers":{"retry-after-ms":"1500"}}`,
		want{msg: "503 later", retryable: true, retryAfter: 1500 * time.Millisecond})

	data := []byte(`{"responses":[` + strings.Join(entries, ",") + `]}`)
	_, p := completionsMock(t, data)
	script, _ := loadScript(t, data)
	for i, entry := range entries {
		evs, err := playEvents(context.Background(), p, completionsRequest())
		scriptEvs, scriptErr := playEvents(context.Background(), script, completionsRequest())
		if len(evs) != 0 {
			t.Errorf("%s: %d events before the error", entry, len(evs))
		}
		var pe *provider.Error
		if !errors.As(err, &pe) {
			t.Fatalf("request %d (%s): %T %v", i+1, entry, err, err)
		}
		w := cases[entry]
		got := want{msg: pe.Error(), retryable: pe.Retryable, overflow: pe.Overflow, retryAfter: pe.RetryAfter}
		if got != w {
			t.Errorf("%s:\n got %+v\nwant %+v", entry, got, w)
		}
		if g, s := completionsCollect(t, evs, err), completionsCollect(t, scriptEvs, scriptErr); g.Err != s.Err {
			t.Errorf("%s: scripted provider says %q, wire says %q", entry, s.Err, g.Err)
		}
	}
}

func TestCompletionsTransportError(t *testing.T) {
	s, _ := loadScript(t, []byte(`{"responses":[{"text":["x"]}]}`))
	srv := mockserver.New(s)
	url := srv.URL
	srv.Close()
	p := provider.NewOpenAICompletions(provider.Endpoint{BaseURL: url + "/v1"})
	_, err := playEvents(context.Background(), p, completionsRequest())
	var pe *provider.Error
	// Refused by this machine: final at once, not retried (a local server that is not
	// running will not be running a few seconds later).
	if !errors.As(err, &pe) || pe.Retryable || pe.Status != 0 || !strings.Contains(pe.Message, "connection refused") {
		t.Fatalf("got %T %v", err, err)
	}
}

// completionsRaw is a provider whose server answers every request with body, recording
// the requests it got. No network: the transport answers in process.
type completionsRaw struct {
	status int
	header http.Header
	body   string
	reqs   []*http.Request
	bodies [][]byte
}

func (r *completionsRaw) RoundTrip(req *http.Request) (*http.Response, error) {
	b, _ := io.ReadAll(req.Body)
	r.reqs = append(r.reqs, req)
	r.bodies = append(r.bodies, b)
	h := r.header
	if h == nil {
		h = http.Header{"Content-Type": {"text/event-stream"}}
	}
	status := r.status
	if status == 0 {
		status = 200
	}
	return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader(r.body)), Request: req}, nil
}

func (r *completionsRaw) provider(ep provider.Endpoint) provider.Provider {
	if ep.BaseURL == "" {
		ep.BaseURL = "http://compat.test/v1"
	}
	ep.HTTPClient = &http.Client{Transport: r}
	return provider.NewOpenAICompletions(ep)
}

// completionsSSE turns chunk bodies into an SSE stream.
func completionsSSE(chunks ...string) string {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString("data: " + c + "\n\n")
	}
	return b.String()
}

// OpenAI-compatible servers stream in their own ways; each must come out right.
func TestCompletionsCompatibleServers(t *testing.T) {
	const id = `"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"m"`
	delta := func(d string) string {
		return `{` + id + `,"choices":[{"index":0,"delta":` + d + `,"finish_reason":null}]}`
	}
	finish := func(r string) string {
		return `{` + id + `,"choices":[{"index":0,"delta":{},"finish_reason":"` + r + `"}]}`
	}
	usage := func(u string) string { return `{` + id + `,"choices":[],"usage":` + u + `}` }
	for _, tc := range []struct {
		name, body, want string
	}{
		{"reasoning field (Ollama, OpenRouter)", completionsSSE(
			delta(`{"role":"assistant","content":null,"reasoning":"Think"}`), delta(`{"reasoning":"ing."}`),
			delta(`{"content":"Done."}`), finish("stop"), "[DONE]"),
			`meta(gen-1) start#0(thinking) delta*2(Thinking.) end#0(reasoning) start#1(text) delta*1(Done.) end#1 done(stop)`},
		{"reasoning_content and reasoning both sent: one is read", completionsSSE(
			delta(`{"reasoning_content":"a","reasoning":"a"}`), finish("stop"), "[DONE]"),
			`meta(gen-1) start#0(thinking) delta*1(a) end#0(reasoning_content) done(stop)`},
		{"thinking, text, thinking again", completionsSSE(
			delta(`{"reasoning_content":"x"}`), delta(`{"content":"y"}`), delta(`{"reasoning_content":"z"}`), finish("stop"), "[DONE]"),
			`meta(gen-1) start#0(thinking) delta*1(x) end#0(reasoning_content) start#1(text) delta*1(y) end#1 ` +
				`start#2(thinking) delta*1(z) end#2(reasoning_content) done(stop)`},
		{"tool call id and name in every fragment", completionsSSE(
			delta(`{"tool_calls":[{"index":0,"id":"t1","type":"function","function":{"name":"bash","arguments":"{\"a\""}}]}`),
			delta(`{"tool_calls":[{"index":0,"id":"t1","type":"function","function":{"name":"bash","arguments":":1}"}}]}`),
			finish("tool_calls"), "[DONE]"),
			`meta(gen-1) start#0(toolCall t1 bash) delta*2({"a":1}) end#0 done(toolUse)`},
		{"tool call without an id, whole in one chunk", completionsSSE(
			delta(`{"tool_calls":[{"function":{"name":"read","arguments":"{\"path\":\"x\"}"}}]}`), finish("tool_calls"), "[DONE]"),
			`meta(gen-1) start#0(toolCall call_gen-1_1 read) delta*1({"path":"x"}) end#0 done(toolUse)`},
		{"name after the first fragment", completionsSSE(
			delta(`{"tool_calls":[{"index":0,"id":"t1","function":{"arguments":"{\"a\""}}]}`),
			delta(`{"tool_calls":[{"index":0,"function":{"name":"bash","arguments":":1}"}}]}`),
			finish("tool_calls"), "[DONE]"),
			`meta(gen-1) start#0(toolCall t1 bash) delta*2({"a":1}) end#0 done(toolUse)`},
		{"every call at index 0, told apart by id", completionsSSE(
			delta(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"read","arguments":"{}"}}]}`),
			delta(`{"tool_calls":[{"index":0,"id":"b","function":{"name":"bash","arguments":"{}"}}]}`),
			finish("tool_calls"), "[DONE]"),
			`meta(gen-1) start#0(toolCall a read) delta*1({}) start#1(toolCall b bash) delta*1({}) end#0 end#1 done(toolUse)`},
		{"interleaved parallel fragments", completionsSSE(
			delta(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"read","arguments":"{\"p\""}},{"index":1,"id":"b","function":{"name":"bash","arguments":"{\"c\""}}]}`),
			delta(`{"tool_calls":[{"index":1,"function":{"arguments":":2}"}},{"index":0,"function":{"arguments":":1}"}}]}`),
			finish("tool_calls"), "[DONE]"),
			`meta(gen-1) start#0(toolCall a read) delta*1({"p") start#1(toolCall b bash) delta*2({"c":2}) delta*1(:1}) end#0 end#1 done(toolUse)`},
		{"stop after tool calls counts as toolUse", completionsSSE(
			delta(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"read","arguments":"{}"}}]}`), finish("stop"), "[DONE]"),
			`meta(gen-1) start#0(toolCall a read) delta*1({}) end#0 done(toolUse)`},
		{"length", completionsSSE(delta(`{"content":"cut"}`), finish("length"), "[DONE]"),
			`meta(gen-1) start#0(text) delta*1(cut) end#0 done(length)`},
		{"no usage at all", completionsSSE(delta(`{"content":"hi"}`), finish("stop"), "[DONE]"),
			`meta(gen-1) start#0(text) delta*1(hi) end#0 done(stop)`},
		{"usage with cache reads and writes", completionsSSE(delta(`{"content":"hi"}`), finish("stop"),
			usage(`{"prompt_tokens":1000,"completion_tokens":50,"total_tokens":1050,"prompt_tokens_details":{"cached_tokens":600,"cache_write_tokens":100}}`), "[DONE]"),
			`meta(gen-1) start#0(text) delta*1(hi) end#0 done(stop 300/50/600/100=1050 cost=0.00155)`},
		{"usage of DeepSeek", completionsSSE(delta(`{"content":"hi"}`), finish("stop"),
			usage(`{"prompt_tokens":100,"completion_tokens":5,"total_tokens":105,"prompt_cache_hit_tokens":60,"prompt_cache_miss_tokens":40}`), "[DONE]"),
			`meta(gen-1) start#0(text) delta*1(hi) end#0 done(stop 40/5/60/0=105 cost=0.00015)`},
		{"usage in the finish chunk (Groq style), comments and keep-alives",
			": OPENROUTER PROCESSING\n\n" + completionsSSE(delta(`{"content":"hi"}`),
				`{`+id+`,"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}`,
				"[DONE]"),
			`meta(gen-1) start#0(text) delta*1(hi) end#0 done(stop 10/2/0/0=12 cost=0.00004)`},
		{"clean end without [DONE] after the finish", completionsSSE(delta(`{"content":"hi"}`), finish("stop")),
			`meta(gen-1) start#0(text) delta*1(hi) end#0 done(stop)`},
		{"clean end without a finish", completionsSSE(delta(`{"content":"hi"}`)),
			`meta(gen-1) start#0(text) delta*1(hi) end#0 error(` + provider.MsgNoFinish + ` retryable)`},
		{"[DONE] without a finish", completionsSSE(delta(`{"content":"hi"}`), "[DONE]"),
			`meta(gen-1) start#0(text) delta*1(hi) end#0 error(` + provider.MsgNoFinish + ` retryable)`},
		{"content filter", completionsSSE(delta(`{"content":"hi"}`), finish("content_filter"), "[DONE]"),
			`meta(gen-1) start#0(text) delta*1(hi) end#0 error(content_filter: the response was stopped by the provider's content filter final)`},
		{"error chunk with a numeric code (OpenRouter)", completionsSSE(delta(`{"content":"hi"}`),
			`{`+id+`,"error":{"code":502,"message":"Provider returned error"},"choices":[{"index":0,"delta":{},"finish_reason":"error"}]}`),
			`meta(gen-1) start#0(text) delta*1(hi) end#0 error(502: Provider returned error final)`},
		{"error chunk with a string", completionsSSE(`{"error":"upstream timeout"}`),
			`error(upstream timeout retryable)`},
		{"a chunk that is not JSON", completionsSSE(delta(`{"content":"hi"}`), `{oops`),
			`meta(gen-1) start#0(text) delta*1(hi) end#0 error(the response stream held a chunk that is not a chat completion chunk`},
		{"refusal", completionsSSE(delta(`{"refusal":"I can't."}`), finish("stop"), "[DONE]"),
			`meta(gen-1) start#0(text) delta*1(I can't.) end#0 done(stop)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := &completionsRaw{body: tc.body}
			evs, err := playEvents(context.Background(), raw.provider(provider.Endpoint{}), completionsRequest())
			completionsCollect(t, evs, err) // well formed
			got := completionsSummary(evs)
			if err != nil {
				var pe *provider.Error
				if !errors.As(err, &pe) {
					t.Fatalf("%T %v", err, err)
				}
				r := "final"
				if pe.Retryable {
					r = "retryable"
				}
				got = strings.TrimSpace(got + fmt.Sprintf(" error(%s %s)", pe.Error(), r))
			}
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// A non-JSON error body on a failing status still gives the status and the text.
func TestCompletionsPlainTextErrorBody(t *testing.T) {
	raw := &completionsRaw{status: 503, header: http.Header{"Content-Type": {"text/html"}, "Retry-After": {"2"}},
		body: "<html>Service Unavailable</html>"}
	_, err := playEvents(context.Background(), raw.provider(provider.Endpoint{}), completionsRequest())
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Error() != "503 <html>Service Unavailable</html>" || !pe.Retryable || pe.RetryAfter != 2*time.Second {
		t.Fatalf("got %T %v", err, err)
	}
}

func TestCompletionsCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// A server that sends one chunk and then waits for the client to go away.
	pr, pw := io.Pipe()
	defer pw.Close()
	go func() {
		io.WriteString(pw, completionsSSE(`{"id":"x","choices":[{"index":0,"delta":{"content":"a"}}]}`))
		<-ctx.Done()
		pw.CloseWithError(ctx.Err())
	}()
	client := &http.Client{Transport: completionsRoundTrip(func(req *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: pr, Request: req}, nil
	})}
	p := provider.NewOpenAICompletions(provider.Endpoint{BaseURL: "http://compat.test/v1", HTTPClient: client})
	var evs []provider.Event
	err := p.Stream(ctx, completionsRequest(), func(e provider.Event) {
		evs = append(evs, e)
		if e.Kind == provider.BlockDelta {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %T %v, want context.Canceled", err, err)
	}
	// Canceled before the request: no request at all.
	_, err = playEvents(ctx, p, completionsRequest())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("after cancel: %v", err)
	}
}

type completionsRoundTrip func(*http.Request) (*http.Response, error)

func (f completionsRoundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func completionsBodyOf(t *testing.T, raw *completionsRaw, i int) map[string]any {
	t.Helper()
	return decodeJSON(t, raw.bodies[i]).(map[string]any)
}

// The request: model, system prompt, every kind of message, tools, limits, headers.
func TestCompletionsRequestBody(t *testing.T) {
	exit1 := int64(1)
	req := completionsRequest()
	req.Messages = []codec.Message{
		&codec.UserMessage{Blocks: []codec.Content{&codec.TextContent{Text: "Look"}, &codec.ImageContent{Data: "iVBO", MimeType: "image/png"}}},
		&codec.AssistantMessage{Content: []codec.Content{
			&codec.ThinkingContent{Thinking: "First ", ThinkingSignature: "reasoning_content"},
			&codec.ThinkingContent{Thinking: "then.", ThinkingSignature: "reasoning_content"},
			&codec.ThinkingContent{Thinking: "anthropic's", ThinkingSignature: "EqQBCkgIARABGAIiQL"},
			&codec.ThinkingContent{Thinking: "hidden", Redacted: true, ThinkingSignature: "reasoning"},
			&codec.TextContent{Text: "Running "},
			&codec.TextContent{Text: "two."},
			&codec.ToolCall{ID: "c1", Name: "bash", Arguments: json.RawMessage(`{"command":"false"}`)},
			&codec.ToolCall{ID: "c2", Name: "read", Arguments: json.RawMessage(`{"path":"a.png"}`)},
		}, StopReason: codec.StopReasonToolUse},
		&codec.ToolResultMessage{ToolCallID: "c1", ToolName: "bash", IsError: true,
			Content: []codec.Content{&codec.TextContent{Text: "Command exited with code 1"}}},
		&codec.ToolResultMessage{ToolCallID: "c2", ToolName: "read",
			Content: []codec.Content{&codec.TextContent{Text: "Read image"}, &codec.ImageContent{Data: "R0lG", MimeType: "image/gif"}}},
		&codec.AssistantMessage{Content: []codec.Content{&codec.ToolCall{ID: "c3", Name: "read", Arguments: json.RawMessage(`{}`)}}},
		&codec.ToolResultMessage{ToolCallID: "c3", ToolName: "read", Content: []codec.Content{&codec.TextContent{Text: "x"}}},
		&codec.AssistantMessage{Content: []codec.Content{&codec.ThinkingContent{Thinking: "only thought", ThinkingSignature: "reasoning"}}},
		&codec.AssistantMessage{Content: []codec.Content{}},
		&codec.BashExecutionMessage{Command: "make", Output: "ok", ExitCode: &exit1},
		&codec.CustomMessage{CustomType: "note", Content: json.RawMessage(`"remember this"`)},
		&codec.CompactionSummaryMessage{Summary: "We fixed the build."},
		&codec.UserMessage{Text: "Go on"},
	}
	raw := &completionsRaw{body: completionsSSE(`{"id":"x","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, "[DONE]")}
	p := raw.provider(provider.Endpoint{APIKey: "sk-test", Headers: map[string]string{"X-Title": "base-context"}})
	if _, err := playEvents(context.Background(), p, req); err != nil {
		t.Fatal(err)
	}
	r := raw.reqs[0]
	if r.URL.String() != "http://compat.test/v1/chat/completions" || r.Method != "POST" {
		t.Errorf("request to %s %s", r.Method, r.URL)
	}
	if r.Header.Get("Authorization") != "Bearer sk-test" || r.Header.Get("X-Title") != "base-context" {
		t.Errorf("headers %v", r.Header)
	}
	want := `{
	"model":"mock-gpt",
	"stream":true,
	"stream_options":{"include_usage":true},
	"max_completion_tokens":16384,
	"messages":[
		{"role":"system","content":"You are a test."},
		{"role":"user","content":[{"type":"text","text":"Look"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBO"}}]},
		{"role":"assistant","content":"Running two.","reasoning_content":"First \nthen.","tool_calls":[
			{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"false\"}"}},
			{"id":"c2","type":"function","function":{"name":"read","arguments":"{\"path\":\"a.png\"}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"Command exited with code 1"},
		{"role":"tool","tool_call_id":"c2","content":"Read image"},
		{"role":"user","content":[{"type":"text","text":"Attached image(s) from the tool result(s) above:"},{"type":"image_url","image_url":{"url":"data:image/gif;base64,R0lG"}}]},
		{"role":"assistant","content":null,"tool_calls":[{"id":"c3","type":"function","function":{"name":"read","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c3","content":"x"},
		{"role":"assistant","content":"","reasoning":"only thought"},
		{"role":"user","content":[{"type":"text","text":"I ran the command ` + "`make`" + `.\nOutput:\n` + "```" + `\nok\n` + "```" + `\nCommand exited with code 1"}]},
		{"role":"user","content":[{"type":"text","text":"remember this"}]},
		{"role":"user","content":[{"type":"text","text":"The earlier part of this session was condensed into the summary below to fit the context window.\n\n<summary>\nWe fixed the build.\n</summary>"}]},
		{"role":"user","content":"Go on"}
	],
	"tools":[
		{"type":"function","function":{"name":"read","description":"Read a file","strict":false,"parameters":{"type":"object","required":["path"],"properties":{"path":{"type":"string"}}}}},
		{"type":"function","function":{"name":"bash","description":"Run a command","strict":false,"parameters":{"type":"object","required":["command"],"properties":{"command":{"type":"string"}}}}}
	]}`
	if got, w := completionsBodyOf(t, raw, 0), decodeJSON(t, []byte(want)); !reflect.DeepEqual(got, w) {
		t.Errorf("body\n got %s\nwant %s", jsonString(got), jsonString(w))
	}
}

// OpenAI's own endpoint also gets store:false; a request without tools sends none.
func TestCompletionsRequestOfficialEndpoint(t *testing.T) {
	raw := &completionsRaw{body: completionsSSE(`{"id":"x","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)}
	req := completionsRequest()
	req.Tools = nil
	req.SystemPrompt = ""
	req.Model.MaxTokens = 0
	if _, err := playEvents(context.Background(), raw.provider(provider.Endpoint{BaseURL: "https://api.openai.com/v1"}), req); err != nil {
		t.Fatal(err)
	}
	want := `{"model":"mock-gpt","stream":true,"stream_options":{"include_usage":true},"store":false,"messages":[{"role":"user","content":"hi"}]}`
	if got := completionsBodyOf(t, raw, 0); !reflect.DeepEqual(got, decodeJSON(t, []byte(want))) {
		t.Errorf("body %s", jsonString(got))
	}
	if h := raw.reqs[0].Header.Get("Authorization"); h != "" {
		t.Errorf("no key configured, yet Authorization %q", h)
	}
}

func TestCompletionsThinkingLevels(t *testing.T) {
	for _, tc := range []struct {
		reasoning bool
		level     string
		want      any // reasoning_effort, nil for none
	}{
		{true, "", nil}, {true, "off", nil}, {true, "minimal", "minimal"}, {true, "low", "low"},
		{true, "medium", "medium"}, {true, "high", "high"}, {true, "xhigh", "xhigh"},
		{false, "high", nil}, {false, "off", nil},
	} {
		raw := &completionsRaw{body: completionsSSE(`{"id":"x","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)}
		req := completionsRequest()
		req.Model.Reasoning, req.ThinkingLevel = tc.reasoning, tc.level
		if _, err := playEvents(context.Background(), raw.provider(provider.Endpoint{}), req); err != nil {
			t.Fatal(err)
		}
		if got := completionsBodyOf(t, raw, 0)["reasoning_effort"]; got != tc.want {
			t.Errorf("reasoning=%v level %q: reasoning_effort %v, want %v", tc.reasoning, tc.level, got, tc.want)
		}
	}
}

// completionsAssemble builds the assistant message of a response the way the agent keeps
// it: blocks in start order, tool arguments made an object, signatures on their blocks.
func completionsAssemble(o completionsOutcome) *codec.AssistantMessage {
	m := &codec.AssistantMessage{Content: []codec.Content{}, StopReason: o.Stop, Usage: o.Usage, ResponseID: o.ResponseID}
	for _, b := range o.Blocks {
		switch b.Kind {
		case "text":
			m.Content = append(m.Content, &codec.TextContent{Text: b.Text, TextSignature: b.Sig})
		case "thinking":
			m.Content = append(m.Content, &codec.ThinkingContent{Thinking: b.Text, ThinkingSignature: b.Sig})
		case "toolCall":
			m.Content = append(m.Content, &codec.ToolCall{ID: b.ID, Name: b.Name, Arguments: json.RawMessage(b.Text), ThoughtSignature: b.Sig})
		}
	}
	return m
}

// completionsReferenceMessages reads the messages the original sent on each request of a
// reference run, without the system prompt (omitted in the reference).
func completionsReferenceMessages(t *testing.T, name string) [][]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../../testdata/reference/requests", name+".requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]any
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var r struct {
			Body struct {
				Messages []any `json:"messages"`
			} `json:"body"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r.Body.Messages[1:])
	}
	return out
}

// Multi-turn tool conversations send what the original sent: the assistant's text and
// tool calls, then one tool message per result.
func TestCompletionsMultiTurnMatchesReference(t *testing.T) {
	for _, tc := range []struct {
		name, prompt string
		results      []string
	}{
		{"b_tool_bash", "List the files here", []string{"hello.txt\n"}},
		{"b2_tools_parallel", "Read hello.txt and run echo", []string{"hello from the fixture file\n", "hi\n28 hello.txt\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := completionsReferenceMessages(t, tc.name)
			srv, p := completionsMock(t, referenceScript(t, tc.name+".json"))
			req := completionsRequest()
			req.Messages = []codec.Message{&codec.UserMessage{Blocks: []codec.Content{&codec.TextContent{Text: tc.prompt}}}}
			evs, err := playEvents(context.Background(), p, req)
			if err != nil {
				t.Fatal(err)
			}
			am := completionsAssemble(completionsCollect(t, evs, err))
			req.Messages = append(req.Messages, am)
			for i, c := range am.Content[len(am.Content)-len(tc.results):] {
				call := c.(*codec.ToolCall)
				req.Messages = append(req.Messages, &codec.ToolResultMessage{ToolCallID: call.ID, ToolName: call.Name,
					Content: []codec.Content{&codec.TextContent{Text: tc.results[i]}}})
			}
			if _, err := playEvents(context.Background(), p, req); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 || len(want) != 2 {
				t.Fatalf("%d requests, reference has %d", len(reqs), len(want))
			}
			for i, r := range reqs {
				if r.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer mock-key" {
					t.Errorf("request %d: %s %v", i+1, r.Path, r.Header)
				}
				body := decodeJSON(t, r.Body).(map[string]any)
				msgs := body["messages"].([]any)
				if first := msgs[0].(map[string]any); first["role"] != "system" || first["content"] != "You are a test." {
					t.Errorf("request %d: first message %v", i+1, first)
				}
				if got := msgs[1:]; !reflect.DeepEqual(got, want[i]) {
					t.Errorf("request %d messages\n got %s\nwant %s", i+1, jsonString(got), jsonString(want[i]))
				}
				for _, k := range []string{"stream", "stream_options", "max_completion_tokens", "model"} {
					if body[k] == nil {
						t.Errorf("request %d: no %s", i+1, k)
					}
				}
			}
		})
	}
}

// Reasoning streamed in one turn goes back in the same field on the next.
func TestCompletionsThinkingEchoedNextTurn(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("../../testdata/reference/scripts", "c2_thinking_openai.json"))
	if err != nil {
		t.Fatal(err)
	}
	srv, p := completionsMock(t, data)
	req := completionsRequest()
	evs, err := playEvents(context.Background(), p, req)
	if err != nil {
		t.Fatal(err)
	}
	am := completionsAssemble(completionsCollect(t, evs, err))
	req.Messages = append(req.Messages, am, &codec.UserMessage{Text: "And 3+3?"})
	if _, err := playEvents(context.Background(), p, req); err != nil {
		t.Fatal(err)
	}
	msgs := decodeJSON(t, srv.Requests()[1].Body).(map[string]any)["messages"].([]any)
	want := map[string]any{"role": "assistant", "content": "2 + 2 = 4.", "reasoning_content": "The user wants a short answer. 2+2=4."}
	if !reflect.DeepEqual(msgs[2], want) {
		t.Errorf("assistant message %s", jsonString(msgs[2]))
	}
}

// Long answers stream through in constant pieces: every chunk is one delta.
func TestCompletionsLongReference(t *testing.T) {
	_, p := completionsMock(t, referenceScript(t, "f_long.json"))
	evs, err := playEvents(context.Background(), p, completionsRequest())
	if err != nil {
		t.Fatal(err)
	}
	// Metadata, start, 2000 deltas, end, done.
	if len(evs) != 2004 || evs[2].Delta != "0000 " || evs[2001].Delta != "1999 " {
		t.Errorf("got %d events", len(evs))
	}
}

// Whatever a server sends, the provider does not panic, emits well-formed events, and
// reports success only with a Done.
func FuzzCompletionsStream(f *testing.F) {
	const id = `"id":"f","choices":[{"index":0,`
	f.Add(completionsSSE(`{`+id+`"delta":{"content":"a"}}]}`, `{`+id+`"delta":{},"finish_reason":"stop"}]}`, "[DONE]"))
	f.Add(completionsSSE(`{` + id + `"delta":{"tool_calls":[{"index":3,"function":{"arguments":"{"}}]}}]}`))
	f.Add(completionsSSE(`{`+id+`"delta":{"reasoning":"x","tool_calls":[{"id":"a","function":{"name":"n"}}]}}]}`, `{`+id+`"delta":{"content":"y"},"finish_reason":"tool_calls"}]}`))
	f.Add("data: {\"error\":{\"code\":1}}\n\n")
	f.Add("data: [DONE]\n\n")
	f.Add(completionsSSE(`{`+id+`"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"t"}]},{"type":"x"}]}}]}`,
		`{`+id+`"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"total_tokens":9,"prompt_tokens_details":{"cached_tokens":8}}}`))
	f.Fuzz(func(t *testing.T, body string) {
		raw := &completionsRaw{body: body}
		evs, err := playEvents(context.Background(), raw.provider(provider.Endpoint{}), completionsRequest())
		completionsCollect(t, evs, err)
	})
}

// completionsQuirk plays a raw stream and returns the rendered events (with the usage of
// metadata events, which a failed response keeps), the error and the warnings.
func completionsQuirk(t *testing.T, body string) (string, []string) {
	t.Helper()
	var warnings []string
	raw := &completionsRaw{body: body}
	p := raw.provider(provider.Endpoint{Warn: func(msg string) { warnings = append(warnings, msg) }})
	evs, err := playEvents(context.Background(), p, completionsRequest())
	completionsCollect(t, evs, err)
	got := completionsSummary(evs)
	for _, e := range evs {
		if e.Kind == provider.Metadata && e.HasUsage {
			u := e.Usage
			got += fmt.Sprintf(" usage(%d/%d/%d/%d=%d cost=%.5f)", u.Input, u.Output, u.CacheRead, u.CacheWrite, u.TotalTokens, u.Cost.Total)
		}
	}
	if err != nil {
		got += " error(" + err.Error() + ")"
	}
	return got, warnings
}

// The quirks of compatible servers on real traffic (issue 17): content arrays, the usage
// conventions, usage in error chunks, signatures of failed responses, usage that never came.
func TestCompletionsQuirks(t *testing.T) {
	const id = `"id":"q-1","object":"chat.completion.chunk","created":1,"model":"m"`
	delta := func(d string) string {
		return `{` + id + `,"choices":[{"index":0,"delta":` + d + `,"finish_reason":null}]}`
	}
	finish := func(r, usage string) string {
		if usage != "" {
			usage = `,"usage":` + usage
		}
		return `{` + id + `,"choices":[{"index":0,"delta":{},"finish_reason":"` + r + `"}]` + usage + `}`
	}
	for _, tc := range []struct {
		name, body, want, warning string
	}{
		{"content array of thinking and text parts (Mistral)", completionsSSE(
			delta(`{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"Two and"}]}]}`),
			delta(`{"content":[{"type":"thinking","thinking":[{"type":"text","text":" two."}]}]}`),
			delta(`{"content":[{"type":"text","text":"4"}]}`), delta(`{"content":"."}`),
			finish("stop", `{"prompt_tokens":10,"completion_tokens":46,"total_tokens":56}`)),
			`meta(q-1) start#0(thinking) delta*2(Two and two.) end#0 start#1(text) delta*2(4.) end#1 done(stop 10/46/0/0=56 cost=0.00039)`, ""},
		{"unknown content part skipped with a warning", completionsSSE(
			delta(`{"content":[{"type":"reference","reference_ids":[1]},{"type":"text","text":"Hi"}]}`),
			delta(`{"content":[{"type":"reference","reference_ids":[2]}]}`),
			finish("stop", `{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}`)),
			`meta(q-1) start#0(text) delta*1(Hi) end#0 done(stop 1/1/0/0=2 cost=0.00001)`,
			`response q-1: skipped a content part of type "reference", which base-context does not read`},
		{"prompt_tokens without the cached tokens, told by total_tokens", completionsSSE(delta(`{"content":"hi"}`),
			finish("stop", `{"prompt_tokens":200,"completion_tokens":50,"total_tokens":1050,"prompt_tokens_details":{"cached_tokens":800}}`)),
			`meta(q-1) start#0(text) delta*1(hi) end#0 done(stop 200/50/800/0=1050 cost=0.00120)`, ""},
		{"prompt_tokens without the cached tokens, no total: never zero by subtraction", completionsSSE(delta(`{"content":"hi"}`),
			finish("stop", `{"prompt_tokens":200,"completion_tokens":50,"prompt_tokens_details":{"cached_tokens":800}}`)),
			`meta(q-1) start#0(text) delta*1(hi) end#0 done(stop 200/50/800/0=1050 cost=0.00120)`, ""},
		{"prompt_tokens with the cached tokens (OpenAI), total kept", completionsSSE(delta(`{"content":"hi"}`),
			finish("stop", `{"prompt_tokens":1000,"completion_tokens":50,"total_tokens":1050,"prompt_tokens_details":{"cached_tokens":800}}`)),
			`meta(q-1) start#0(text) delta*1(hi) end#0 done(stop 200/50/800/0=1050 cost=0.00120)`, ""},
		{"usage in an error chunk kept on the failed message (OpenRouter)", completionsSSE(delta(`{"content":"hi"}`),
			`{`+id+`,"error":{"code":502,"message":"Provider returned error"},"choices":[{"index":0,"delta":{},"finish_reason":"error"}],`+
				`"usage":{"prompt_tokens":100,"completion_tokens":10,"total_tokens":110}}`),
			`meta(q-1) start#0(text) delta*1(hi) end#0 meta() usage(100/10/0/0=110 cost=0.00028) error(502: Provider returned error)`, ""},
		{"a thinking block of a failed response keeps its signature", completionsSSE(delta(`{"reasoning_content":"Hmm"}`),
			`{"error":{"message":"upstream timeout"}}`),
			`meta(q-1) start#0(thinking) delta*1(Hmm) end#0(reasoning_content) error(upstream timeout)`, ""},
		{"a stream without a finish: its thinking keeps its signature, its usage is kept", completionsSSE(delta(`{"reasoning_content":"Hmm"}`),
			`{`+id+`,"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}`, "[DONE]"),
			`meta(q-1) start#0(thinking) delta*1(Hmm) end#0(reasoning_content) meta() usage(10/2/0/0=12 cost=0.00004) error(` + provider.MsgNoFinish + `)`, ""},
		{"content filter keeps the usage", completionsSSE(delta(`{"content":"Once"}`),
			finish("content_filter", `{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}`)),
			`meta(q-1) start#0(text) delta*1(Once) end#0 meta() usage(10/2/0/0=12 cost=0.00004) error(content_filter: the response was stopped by the provider's content filter)`, ""},
		{"finish, then the end before the usage chunk and [DONE]", completionsSSE(delta(`{"content":"whole answer"}`), finish("stop", "")),
			`meta(q-1) start#0(text) delta*1(whole answer) end#0 done(stop)`,
			`response q-1 of mock-gpt came without usage (the stream stopped after its finish reason, before the usage chunk and [DONE]): its tokens and cost are unknown and counted as 0`},
		{"[DONE] without usage", completionsSSE(delta(`{"content":"whole answer"}`), finish("stop", ""), "[DONE]"),
			`meta(q-1) start#0(text) delta*1(whole answer) end#0 done(stop)`,
			`response q-1 of mock-gpt came without usage (the server sent none, though stream_options.include_usage asked for it): its tokens and cost are unknown and counted as 0`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, warnings := completionsQuirk(t, tc.body)
			if got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
			if strings.Join(warnings, "\n") != tc.warning {
				t.Errorf("warnings %q, want %q", warnings, tc.warning)
			}
		})
	}
}

// The end mark is seen even when it arrives one byte at a time.
func TestCompletionsDoneMarkSplitAcrossReads(t *testing.T) {
	body := completionsSSE(`{"id":"q-1","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}`, "[DONE]")
	client := &http.Client{Transport: completionsRoundTrip(func(req *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
			Body: io.NopCloser(iotest.OneByteReader(strings.NewReader(body))), Request: req}, nil
	})}
	var warnings []string
	p := provider.NewOpenAICompletions(provider.Endpoint{BaseURL: "http://compat.test/v1", HTTPClient: client,
		Warn: func(msg string) { warnings = append(warnings, msg) }})
	if _, err := playEvents(context.Background(), p, completionsRequest()); err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "the server sent none") {
		t.Errorf("warnings %q", warnings)
	}
}
