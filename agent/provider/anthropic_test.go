// The Anthropic provider is tested against the mock server, which imports package provider:
// hence an external test package.
package provider_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/basecontext/base-context/agent"
	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/agent/provider/mockserver"
	"github.com/basecontext/base-context/codec"
)

// anthropicServe starts the mock server on a script and returns a provider speaking to it.
func anthropicServe(t *testing.T, s *provider.Script) (*mockserver.Server, provider.Provider) {
	t.Helper()
	srv := serveScript(t, s)
	return srv, anthropicConnect(srv)
}

func anthropicConnect(srv *mockserver.Server) provider.Provider {
	return provider.NewAnthropic(provider.Endpoint{BaseURL: srv.URL, APIKey: "test-key"})
}

func anthropicModel() provider.Model {
	return provider.Model{ID: "mock-claude", Provider: "anthropic", API: provider.APIAnthropicMessages,
		MaxTokens: 16384, Reasoning: true, Cost: provider.Prices{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}}
}

func anthropicRequest() provider.Request {
	return provider.Request{
		Model:    anthropicModel(),
		Messages: []codec.Message{&codec.UserMessage{Text: "hi", Timestamp: 1}},
		Tools:    []provider.ToolSpec{{Name: "read"}, {Name: "bash"}},
	}
}

// anthropicOutcome renders what a response amounts to, without what differs between
// providers by nature (response ids, signatures, when metadata arrives), with the error in
// full.
func anthropicOutcome(evs []provider.Event, err error) string {
	out := summarize(evs, false)
	if err != nil {
		out = strings.TrimSpace(out + " " + anthropicErr(err))
	}
	return out
}

func anthropicErr(err error) string {
	perr, ok := err.(*provider.Error)
	if !ok {
		return fmt.Sprintf("plain error %T %v", err, err)
	}
	return fmt.Sprintf("error(%q retryable=%v overflow=%v after=%v)", perr.Error(), perr.Retryable, perr.Overflow, perr.RetryAfter)
}

// anthropicFaults are scripts for every failure class, played by both providers.
var anthropicFaults = map[string]string{
	"http_flat_529":     `{"responses":[{"status":529,"body":{"type":"overloaded_error","message":"Overloaded"}}]}`,
	"http_nested_429":   `{"responses":[{"status":429,"body":{"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"}},"headers":{"retry-after":"7"}}]}`,
	"http_empty_500":    `{"responses":[{"status":500,"body":""}]}`,
	"http_text_502":     `{"responses":[{"status":502,"body":"Bad gateway"}]}`,
	"http_message_503":  `{"responses":[{"status":503,"message":"mock unavailable"}]}`,
	"http_overflow":     `{"responses":[{"status":400,"body":{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}}]}`,
	"stream_error":      `{"responses":[{"text":["Half an"," answer"],"stream_error":{"type":"overloaded_error","message":"Overloaded"}}]}`,
	"stream_error_bare": `{"responses":[{"text":["x"],"stream_error":{"message":"something broke"}}]}`,
	"cut_clean":         `{"responses":[{"thinking":["a","b"],"text":["one","two"],"cut_after":3}]}`,
	"cut_reset":         `{"responses":[{"text":["one","two","three"],"cut_after":1,"reset":true}]}`,
	"cut_at_end":        `{"responses":[{"text":["one","two"],"cut_after":2}]}`,
	"cut_in_tool":       `{"responses":[{"tool_calls":[{"id":"t1","name":"bash","args":["{\"comm","and\":1}"]}],"cut_after":1}]}`,
	"cut_at_start":      `{"responses":[{"text":["one"],"cut_after":0}]}`,
	"no_finish":         `{"responses":[{"text":["all of it"],"no_finish":true}]}`,
	"length":            `{"responses":[{"text":["trunc"],"finish_reason":"length","usage":{"input":5,"output":7,"cacheRead":100,"cacheWrite":20}}]}`,
	"empty_tool_args":   `{"responses":[{"tool_calls":[{"id":"t1","name":"ls","args":[]}]}]}`,
}

// TestAnthropicMatchesScript plays every script, and every fault, through the scripted
// provider and through the Anthropic provider over the mock server: each request must come
// out the same.
func TestAnthropicMatchesScript(t *testing.T) {
	eachScript(t, anthropicMatchesScript)
	for name, s := range anthropicFaults {
		t.Run("fault/"+name, func(t *testing.T) { anthropicMatchesScript(t, []byte(s)) })
	}
}

func anthropicMatchesScript(t *testing.T, data []byte) {
	script, p, n := scriptAndWire(t, data, anthropicConnect)
	for i := 0; i <= n; i++ { // one more than the entries: the last one repeats
		want := anthropicOutcome(playEvents(context.Background(), script, anthropicRequest()))
		got := anthropicOutcome(playEvents(context.Background(), p, anthropicRequest()))
		if got != want {
			t.Fatalf("request %d:\nscript:    %s\nanthropic: %s", i+1, want, got)
		}
	}
}

// TestAnthropicFaults pins the exact error of each failure class: none is a success.
func TestAnthropicFaults(t *testing.T) {
	want := map[string]string{
		"http_flat_529":     `error("529 overloaded_error: Overloaded" retryable=true overflow=false after=0s)`,
		"http_nested_429":   `error("429 rate_limit_error: Number of requests has exceeded your rate limit" retryable=true overflow=false after=7s)`,
		"http_empty_500":    `error("500 (empty error body)" retryable=true overflow=false after=0s)`,
		"http_text_502":     `error("502 Bad gateway" retryable=true overflow=false after=0s)`,
		"http_message_503":  `error("503 mock unavailable" retryable=true overflow=false after=0s)`,
		"http_overflow":     `error("400 invalid_request_error: prompt is too long: 210000 tokens > 200000 maximum" retryable=false overflow=true after=0s)`,
		"stream_error":      `start#0(text) delta*2(Half an answer) end#0 error("overloaded_error: Overloaded" retryable=true overflow=false after=0s)`,
		"stream_error_bare": `start#0(text) delta*1(x) end#0 error("something broke" retryable=false overflow=false after=0s)`,
		"cut_clean":         `start#0(thinking) delta*2(ab) end#0 start#1(text) delta*1(one) error("the response stream was cut off before it finished" retryable=true overflow=false after=0s)`,
		"cut_reset":         `start#0(text) delta*1(one) error("the response stream was cut off before it finished: connection reset by peer" retryable=true overflow=false after=0s)`,
		"cut_at_end":        `start#0(text) delta*2(onetwo) end#0 error("the response stream was cut off before it finished" retryable=true overflow=false after=0s)`,
		"cut_in_tool":       `start#0(toolCall t1 bash) delta*1({"comm) error("the response stream was cut off before it finished" retryable=true overflow=false after=0s)`,
		"cut_at_start":      `start#0(text) error("the response stream was cut off before it finished" retryable=true overflow=false after=0s)`,
		"no_finish":         `start#0(text) delta*1(all of it) end#0 error("the response stream ended without a finish reason" retryable=true overflow=false after=0s)`,
		"length":            `start#0(text) delta*1(trunc) end#0 done(length 5/7/100/20=132 225.00µ$)`,
		"empty_tool_args":   `start#0(toolCall t1 ls) end#0 done(toolUse 0/0/0/0=0)`,
	}
	for name, script := range anthropicFaults {
		t.Run(name, func(t *testing.T) {
			s, _ := loadScript(t, []byte(script))
			_, p := anthropicServe(t, s)
			got := anthropicOutcome(playEvents(context.Background(), p, anthropicRequest()))
			if got != want[name] {
				t.Fatalf("got  %s\nwant %s", got, want[name])
			}
		})
	}
}

// TestAnthropicRetryableStatus: which HTTP statuses are worth another attempt.
func TestAnthropicRetryableStatus(t *testing.T) {
	for status, retryable := range map[int]bool{408: true, 409: true, 429: true, 500: true, 503: true, 529: true,
		400: false, 401: false, 403: false, 404: false} {
		s, _ := loadScript(t, []byte(fmt.Sprintf(`{"responses":[{"status":%d,"message":"m"}]}`, status)))
		_, p := anthropicServe(t, s)
		_, err := playEvents(context.Background(), p, anthropicRequest())
		perr, ok := err.(*provider.Error)
		if !ok || perr.Status != status || perr.Retryable != retryable || perr.Message != "m" {
			t.Errorf("status %d: got %#v, want retryable=%v", status, err, retryable)
		}
	}
}

// TestAnthropicStreamDetails covers what the comparison with the scripted provider leaves
// out: the response id, the signature, and usage as soon as message_start reports it.
func TestAnthropicStreamDetails(t *testing.T) {
	s, _ := loadScript(t, []byte(`{"responses":[{"thinking":["hm"],"text":["ok"],
		"usage":{"input":150,"output":30,"cacheRead":1000,"cacheWrite":200}}]}`))
	_, p := anthropicServe(t, s)
	evs, err := playEvents(context.Background(), p, anthropicRequest())
	if err != nil {
		t.Fatal(err)
	}
	first := evs[0]
	if first.Kind != provider.Metadata || first.ResponseID != "msg_mock_1" || !first.HasUsage ||
		first.Usage.Input != 150 || first.Usage.CacheRead != 1000 || first.Usage.CacheWrite != 200 {
		t.Errorf("first event %+v, want metadata with id and input usage", first)
	}
	var sig string
	for _, e := range evs {
		if e.Kind == provider.BlockEnd && e.Block == 0 {
			sig = e.Signature
		}
	}
	if sig != "mock-signature-1" {
		t.Errorf("thinking signature %q", sig)
	}
	last := evs[len(evs)-1]
	wantCost := (150*3 + 30*15 + 1000*0.3 + 200*3.75) / 1e6
	if last.Kind != provider.Done || last.Usage.TotalTokens != 1380 || diff(last.Usage.Cost.Total, wantCost) > 1e-12 {
		t.Errorf("done %+v, want total 1380 and cost %v", last, wantCost)
	}
}

func diff(a, b float64) float64 {
	if a > b {
		return a - b
	}
	return b - a
}

func anthropicSame(t *testing.T, what string, got any, want string) {
	t.Helper()
	if w := decodeJSON(t, []byte(want)); !reflect.DeepEqual(got, w) {
		g, _ := json.Marshal(got)
		t.Errorf("%s:\ngot  %s\nwant %s", what, g, want)
	}
}

// TestAnthropicRequest checks the body and headers of a first request: model, max_tokens,
// streaming, system prompt and tools with their cache breakpoints, the key.
func TestAnthropicRequest(t *testing.T) {
	s, _ := loadScript(t, []byte(`{"responses":[{"text":["ok"]}]}`))
	srv := mockserver.New(s)
	defer srv.Close()
	p := provider.NewAnthropic(provider.Endpoint{BaseURL: srv.URL + "/v1/", APIKey: "sk-test",
		Headers: map[string]string{"X-Extra": "yes"}})
	req := provider.Request{
		Model:        provider.Model{ID: "claude-test", API: provider.APIAnthropicMessages, MaxTokens: 4096},
		SystemPrompt: "You are terse.",
		Messages:     []codec.Message{&codec.UserMessage{Text: "List the files here", Timestamp: 1}},
		Tools: []provider.ToolSpec{
			{Name: "read", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
			{Name: "noargs"},
		},
		ThinkingLevel: "high", // ignored: the model does not reason
	}
	if _, err := playEvents(context.Background(), p, req); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if r.Path != "/v1/messages" || r.Header.Get("X-Api-Key") != "sk-test" || r.Header.Get("X-Extra") != "yes" ||
		r.Header.Get("Anthropic-Version") == "" || r.Header.Get("Anthropic-Beta") != "" {
		t.Errorf("path %s, headers %v", r.Path, r.Header)
	}
	if n := r.Header.Get("X-Stainless-Retry-Count"); n != "" && n != "0" {
		t.Errorf("retry count header %q", n)
	}
	anthropicSame(t, "body", requestBody(t, srv, 0), `{
		"model":"claude-test","max_tokens":4096,"stream":true,
		"system":[{"type":"text","text":"You are terse.","cache_control":{"type":"ephemeral"}}],
		"messages":[{"role":"user","content":[{"type":"text","text":"List the files here","cache_control":{"type":"ephemeral"}}]}],
		"tools":[
			{"name":"read","description":"Read a file","eager_input_streaming":true,
			 "input_schema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}},
			{"name":"noargs","eager_input_streaming":true,"input_schema":{"type":"object","properties":{}},
			 "cache_control":{"type":"ephemeral"}}]}`)
}

// TestAnthropicThinkingLevels checks the thinking settings each level sends.
func TestAnthropicThinkingLevels(t *testing.T) {
	cases := []struct {
		level     string
		reasoning bool
		maxTokens int64
		budget    int64 // 0: no thinking
	}{
		{"", true, 16384, 0},
		{"off", true, 16384, 0},
		{"high", false, 16384, 0},
		{"minimal", true, 16384, 1024},
		{"low", true, 16384, 4096},
		{"medium", true, 16384, 8192},
		{"high", true, 16384, 15360}, // capped: 1024 tokens left for the answer
		{"high", true, 64000, 16384},
		{"xhigh", true, 64000, 32768},
		{"medium", true, 0, 8192}, // max_tokens defaults to 16384
		{"minimal", true, 1500, 1024},
		{"low", true, 1024, 0}, // no room for the smallest budget
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s_%v_%d", c.level, c.reasoning, c.maxTokens), func(t *testing.T) {
			s, _ := loadScript(t, []byte(`{"responses":[{"text":["ok"]}]}`))
			srv, p := anthropicServe(t, s)
			req := anthropicRequest()
			req.Model.Reasoning, req.Model.MaxTokens, req.ThinkingLevel = c.reasoning, c.maxTokens, c.level
			if _, err := playEvents(context.Background(), p, req); err != nil {
				t.Fatal(err)
			}
			body := requestBody(t, srv, 0)
			beta := srv.Requests()[0].Header.Get("Anthropic-Beta")
			if c.budget == 0 {
				if body["thinking"] != nil || beta != "" {
					t.Errorf("thinking %v, beta %q: want none", body["thinking"], beta)
				}
				return
			}
			anthropicSame(t, "thinking", body["thinking"],
				fmt.Sprintf(`{"type":"enabled","budget_tokens":%d,"display":"summarized"}`, c.budget))
			if beta != "interleaved-thinking-2025-05-14" {
				t.Errorf("anthropic-beta %q", beta)
			}
		})
	}
}

func TestAnthropicAdaptiveThinking(t *testing.T) {
	for level, want := range map[string]string{"": "", "off": "", "minimal": "low", "low": "low",
		"medium": "medium", "high": "high", "xhigh": "xhigh"} {
		t.Run(level, func(t *testing.T) {
			s, _ := loadScript(t, []byte(`{"responses":[{"text":["ok"]}]}`))
			srv, p := anthropicServe(t, s)
			req := anthropicRequest()
			req.Model.Reasoning, req.Model.AdaptiveThinking, req.ThinkingLevel = true, true, level
			if _, err := playEvents(context.Background(), p, req); err != nil {
				t.Fatal(err)
			}
			body := requestBody(t, srv, 0)
			if want == "" {
				if body["thinking"] != nil || body["output_config"] != nil {
					t.Errorf("thinking %v, output_config %v: want none", body["thinking"], body["output_config"])
				}
				return
			}
			anthropicSame(t, "thinking", body["thinking"], `{"type":"adaptive","display":"summarized"}`)
			anthropicSame(t, "output_config", body["output_config"], `{"effort":"`+want+`"}`)
		})
	}
}

// TestAnthropicHistory checks how a conversation goes back to the API: thinking with its
// signature unchanged, redacted thinking as its data, tool calls and all their results in
// one user turn (errors flagged, images kept), ids the API accepts, other roles as user text,
// the cache breakpoint on the last user message only.
func TestAnthropicHistory(t *testing.T) {
	s, _ := loadScript(t, []byte(`{"responses":[{"text":["ok"]}]}`))
	srv, p := anthropicServe(t, s)
	exit := int64(2)
	req := anthropicRequest()
	req.Tools = nil
	req.Messages = []codec.Message{
		&codec.UserMessage{Blocks: []codec.Content{&codec.TextContent{Text: "look"}, &codec.ImageContent{Data: "iVBOR", MimeType: "image/png"}}},
		&codec.AssistantMessage{API: provider.APIAnthropicMessages, Content: []codec.Content{
			&codec.ThinkingContent{Thinking: "Let me think.", ThinkingSignature: "sig/A+=="},
			&codec.ThinkingContent{Thinking: "[Reasoning redacted]", ThinkingSignature: "opaque-1", Redacted: true},
			&codec.ThinkingContent{Thinking: "", ThinkingSignature: "opaque-2", Redacted: true},
			&codec.TextContent{Text: ""},
			&codec.TextContent{Text: "Reading both."},
			&codec.ToolCall{ID: "call|1", Name: "read", Arguments: json.RawMessage(`{"path":"a"}`)},
			&codec.ToolCall{ID: "toolu_2", Name: "bash", Arguments: json.RawMessage(`{"command":"false"}`)},
		}, StopReason: codec.StopReasonToolUse},
		&codec.ToolResultMessage{ToolCallID: "call|1", ToolName: "read", Content: []codec.Content{
			&codec.TextContent{Text: "pic:"}, &codec.ImageContent{Data: "R0lG", MimeType: "image/gif"}}},
		&codec.ToolResultMessage{ToolCallID: "toolu_2", ToolName: "bash", IsError: true, Content: []codec.Content{
			&codec.TextContent{Text: "Command exited with code 1"}}},
		&codec.AssistantMessage{API: provider.APIOpenAIResponses, Content: []codec.Content{
			&codec.ThinkingContent{Thinking: "foreign reasoning", ThinkingSignature: `{"id":"rs_1"}`},
			&codec.ThinkingContent{ThinkingSignature: "enc", Redacted: true},
			&codec.TextContent{Text: "Done."},
		}},
		&codec.BashExecutionMessage{Command: "ls", Output: "a\nb\n", ExitCode: &exit},
		&codec.BashExecutionMessage{Command: "secret", Output: "x", ExcludeFromContext: ptr(true)},
		&codec.CompactionSummaryMessage{Summary: "Earlier work."},
		&codec.BranchSummaryMessage{Summary: "Tried X."},
		&codec.CustomMessage{CustomType: "note", Content: json.RawMessage(`"remember this"`)},
		&codec.CustomMessage{CustomType: "note", Content: json.RawMessage(`[{"type":"text","text":"block note"}]`)},
		&codec.UserMessage{Text: "and now?"},
	}
	if _, err := playEvents(context.Background(), p, req); err != nil {
		t.Fatal(err)
	}
	anthropicSame(t, "messages", requestBody(t, srv, 0)["messages"], `[
		{"role":"user","content":[{"type":"text","text":"look"},
			{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBOR"}}]},
		{"role":"assistant","content":[
			{"type":"thinking","thinking":"Let me think.","signature":"sig/A+=="},
			{"type":"redacted_thinking","data":"opaque-1"},
			{"type":"redacted_thinking","data":"opaque-2"},
			{"type":"text","text":"Reading both."},
			{"type":"tool_use","id":"call_1","name":"read","input":{"path":"a"}},
			{"type":"tool_use","id":"toolu_2","name":"bash","input":{"command":"false"}}]},
		{"role":"user","content":[
			{"type":"tool_result","tool_use_id":"call_1","is_error":false,"content":[{"type":"text","text":"pic:"},
				{"type":"image","source":{"type":"base64","media_type":"image/gif","data":"R0lG"}}]},
			{"type":"tool_result","tool_use_id":"toolu_2","is_error":true,"content":[{"type":"text","text":"Command exited with code 1"}]}]},
		{"role":"assistant","content":[{"type":"text","text":"foreign reasoning"},{"type":"text","text":"Done."}]},
		{"role":"user","content":[{"type":"text","text":"I ran the command `+"`ls`"+`.\nOutput:\n`+"```"+`\na\nb\n`+"```"+`\nCommand exited with code 2"}]},
		{"role":"user","content":[{"type":"text","text":"The earlier part of this session was condensed into the summary below to fit the context window.\n\n<summary>\nEarlier work.\n</summary>"}]},
		{"role":"user","content":[{"type":"text","text":"This conversation came back from another branch of work, summarised here:\n\n<summary>\nTried X.\n</summary>"}]},
		{"role":"user","content":[{"type":"text","text":"remember this"}]},
		{"role":"user","content":[{"type":"text","text":"block note"}]},
		{"role":"user","content":[{"type":"text","text":"and now?","cache_control":{"type":"ephemeral"}}]}]`)
}

// anthropicAgent runs prompts through the agent loop with the Anthropic provider over the
// mock server, and returns the server and the message_end messages.
func anthropicAgent(t *testing.T, script string, prompts ...string) (*mockserver.Server, []*codec.AssistantMessage) {
	t.Helper()
	s, _ := loadScript(t, []byte(script))
	srv, p := anthropicServe(t, s)
	var ends []*codec.AssistantMessage
	a := agent.New(agent.Config{
		Provider:      p,
		Model:         anthropicModel(),
		ThinkingLevel: "medium",
		SystemPrompt:  "sys",
		Emit: func(e codec.Event) error {
			if me, ok := e.(*codec.MessageEnd); ok {
				if am, ok := me.Message.(*codec.AssistantMessage); ok {
					ends = append(ends, am)
				}
			}
			return nil
		},
		Now: func() time.Time { return time.UnixMilli(1) },
	}, nil)
	for _, text := range prompts {
		a.Prompt(context.Background(), &codec.UserMessage{Text: text, Timestamp: 1})
	}
	return srv, ends
}

// TestAnthropicAgentTurns drives the agent: a thinking answer, then a second prompt whose
// request must echo the thinking block with its signature; a tool call whose (failed) result
// goes back flagged as an error in the next request.
func TestAnthropicAgentTurns(t *testing.T) {
	srv, ends := anthropicAgent(t, `{"responses":[
		{"thinking":["The user", " wants 4."],"text":["2 + 2", " = 4."],"usage":{"input":150,"output":30}},
		{"tool_calls":[{"id":"call_x","name":"nosuchtool","args":["{\"a\":","1}"]}],"usage":{"input":200,"output":15}},
		{"text":["The tool is missing."],"usage":{"input":260,"output":9}}]}`,
		"What is 2+2?", "Use a tool.")
	if len(ends) != 3 {
		t.Fatalf("%d assistant messages, want 3", len(ends))
	}
	first := ends[0]
	if first.StopReason != codec.StopReasonStop || first.ResponseID != "msg_mock_1" || first.Usage.TotalTokens != 180 {
		t.Errorf("first message: stop %s id %s usage %+v", first.StopReason, first.ResponseID, first.Usage)
	}
	if th, ok := first.Content[0].(*codec.ThinkingContent); !ok || th.Thinking != "The user wants 4." || th.ThinkingSignature != "mock-signature-1" {
		t.Errorf("first block %#v", first.Content[0])
	}
	if ends[1].StopReason != codec.StopReasonToolUse {
		t.Errorf("second message stop %s", ends[1].StopReason)
	}
	if tc, ok := ends[1].Content[0].(*codec.ToolCall); !ok || string(tc.Arguments) != `{"a":1}` {
		t.Errorf("tool call %#v", ends[1].Content[0])
	}

	second := requestBody(t, srv, 1)["messages"].([]any)
	anthropicSame(t, "echoed answer", second[1], `{"role":"assistant","content":[
		{"type":"thinking","thinking":"The user wants 4.","signature":"mock-signature-1"},
		{"type":"text","text":"2 + 2 = 4."}]}`)
	third := requestBody(t, srv, 2)["messages"].([]any)
	anthropicSame(t, "tool turn", third[3:], `[
		{"role":"assistant","content":[{"type":"tool_use","id":"call_x","name":"nosuchtool","input":{"a":1}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_x","is_error":true,
			"content":[{"type":"text","text":"Tool nosuchtool not found"}],"cache_control":{"type":"ephemeral"}}]}]`)
	if h := srv.Requests()[2].Header.Get("Anthropic-Beta"); h != "interleaved-thinking-2025-05-14" {
		t.Errorf("beta header %q", h)
	}
}

// anthropicRaw serves one hand-written SSE body, for events the script format cannot
// express: redacted thinking, refusals, usage in message_delta, pings, unknown events.
func anthropicRaw(t *testing.T, sse string) ([]provider.Event, error) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(sse))
	}))
	t.Cleanup(srv.Close)
	p := provider.NewAnthropic(provider.Endpoint{BaseURL: srv.URL, APIKey: "k"})
	return playEvents(context.Background(), p, anthropicRequest())
}

func anthropicSSE(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		var head struct {
			Type string `json:"type"`
		}
		json.Unmarshal([]byte(e), &head)
		b.WriteString("event: " + head.Type + "\ndata: " + e + "\n\n")
	}
	return b.String()
}

const anthropicStart = `{"type":"message_start","message":{"id":"msg_raw","type":"message","role":"assistant","content":[],"model":"m","stop_reason":null,"usage":{"input_tokens":10,"cache_read_input_tokens":5,"output_tokens":1}}}`

func TestAnthropicRawEvents(t *testing.T) {
	cases := map[string]struct {
		sse  string
		want string
	}{
		"redacted thinking, ping, unknown event, usage in message_delta": {anthropicSSE(anthropicStart,
			`{"type":"ping"}`,
			`{"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"ENCRYPTED"}}`,
			`{"type":"content_block_stop","index":0}`,
			`{"type":"some_future_event","x":1}`,
			`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`,
			`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hi"}}`,
			`{"type":"content_block_delta","index":1,"delta":{"type":"citations_delta","citation":{}}}`,
			`{"type":"content_block_stop","index":1}`,
			`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"input_tokens":12,"cache_creation_input_tokens":3,"output_tokens":4}}`,
			`{"type":"message_stop"}`),
			`start#0(thinking) delta*1([Reasoning redacted]) end#0 start#1(text) delta*1(Hi) end#1 done(stop 12/4/5/3=24 108.75µ$)`},
		"server tool blocks are skipped": {anthropicSSE(anthropicStart,
			`{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srv_1","name":"web_search","input":{}}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{}"}}`,
			`{"type":"content_block_stop","index":0}`,
			`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":"Found"}}`,
			`{"type":"content_block_stop","index":1}`,
			`{"type":"message_delta","delta":{"stop_reason":"pause_turn"},"usage":{"output_tokens":2}}`,
			`{"type":"message_stop"}`),
			`start#1(text) delta*1(Found) end#1 done(stop 10/2/5/0=17 61.50µ$)`},
		"tool input whole in the start event": {anthropicSSE(anthropicStart,
			`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"ls","input":{"path":"."}}}`,
			`{"type":"content_block_stop","index":0}`,
			`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":2}}`,
			`{"type":"message_stop"}`),
			`start#0(toolCall t ls) delta*1({"path":"."}) end#0 done(toolUse 10/2/5/0=17 61.50µ$)`},
		"refusal": {anthropicSSE(anthropicStart,
			`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"I can"}}`,
			`{"type":"content_block_stop","index":0}`,
			`{"type":"message_delta","delta":{"stop_reason":"refusal"},"usage":{"output_tokens":2}}`,
			`{"type":"message_stop"}`),
			`start#0(text) delta*1(I can) end#0 error("refusal: the model declined to answer" retryable=false overflow=false after=0s)`},
		"refusal with stop_details keeps the provider's words": {anthropicSSE(anthropicStart,
			`{"type":"message_delta","delta":{"stop_reason":"refusal","stop_sequence":null,"stop_details":{"type":"refusal","category":"cyber",`+
				`"explanation":"This request triggered restrictions on violative cyber content."}},"usage":{"output_tokens":5}}`,
			`{"type":"message_stop"}`),
			`error("refusal: cyber: This request triggered restrictions on violative cyber content." retryable=false overflow=false after=0s)`},
		"refusal with stop_details without a category": {anthropicSSE(anthropicStart,
			`{"type":"message_delta","delta":{"stop_reason":"refusal","stop_details":{"type":"refusal","category":null,"explanation":"Declined."}},"usage":{"output_tokens":5}}`,
			`{"type":"message_stop"}`),
			`error("refusal: Declined." retryable=false overflow=false after=0s)`},
		"stop sequence and context window": {anthropicSSE(anthropicStart,
			`{"type":"message_delta","delta":{"stop_reason":"model_context_window_exceeded"},"usage":{"output_tokens":2}}`),
			`done(length 10/2/5/0=17 61.50µ$)`},
		"overloaded error event": {anthropicSSE(anthropicStart,
			`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
			`error("overloaded_error: Overloaded" retryable=true overflow=false after=0s)`},
		"message_stop without a stop reason": {anthropicSSE(anthropicStart, `{"type":"message_stop"}`),
			`error("the response stream ended without a finish reason" retryable=true overflow=false after=0s)`},
		"empty body": {"",
			`error("the response stream ended without a finish reason" retryable=true overflow=false after=0s)`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := anthropicOutcome(anthropicRaw(t, c.sse)); got != c.want {
				t.Fatalf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestAnthropicRefusalKeepsUsage: a refused answer still reports what it cost.
func TestAnthropicRefusalKeepsUsage(t *testing.T) {
	evs, err := anthropicRaw(t, anthropicSSE(anthropicStart,
		`{"type":"message_delta","delta":{"stop_reason":"refusal"},"usage":{"output_tokens":9}}`))
	if err == nil {
		t.Fatal("refusal reported as success")
	}
	last := evs[len(evs)-1]
	if last.Kind != provider.Metadata || !last.HasUsage || last.Usage.Output != 9 {
		t.Errorf("last event %+v, want the final usage", last)
	}
}

// TestAnthropicCancel: an aborted run returns the context's error, not a provider error.
func TestAnthropicCancel(t *testing.T) {
	s, err := provider.ParseScript([]byte(`{"responses":[{"text":["a","b","c"],"delay_ms":100000}]}`))
	if err != nil {
		t.Fatal(err)
	}
	srv := mockserver.New(s)
	defer srv.Close()
	p := provider.NewAnthropic(provider.Endpoint{BaseURL: srv.URL})
	ctx, cancel := context.WithCancel(context.Background())
	err = p.Stream(ctx, anthropicRequest(), func(e provider.Event) {
		if e.Kind == provider.BlockStart {
			cancel()
		}
	})
	if err != context.Canceled {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

// TestAnthropicConnectionRefused: no server at all on this machine is a final transport
// failure (a local server that is not running is not retried).
func TestAnthropicConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close() // the address now refuses connections
	p := provider.NewAnthropic(provider.Endpoint{BaseURL: srv.URL})
	_, err := playEvents(context.Background(), p, anthropicRequest())
	perr, ok := err.(*provider.Error)
	if !ok || perr.Retryable || perr.Status != 0 || !strings.Contains(perr.Message, "connection refused") {
		t.Fatalf("got %#v", err)
	}
}
