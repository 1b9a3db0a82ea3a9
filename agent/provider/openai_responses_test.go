// The Responses provider's tests live in the external test package: they play scripts
// through the mock server, which imports provider.
package provider_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/agent/provider/mockserver"
	"github.com/basecontext/base-context/codec"
)

var responsesPrices = provider.Prices{Input: 2, Output: 8, CacheRead: 0.5, CacheWrite: 2.5}

func responsesModel() provider.Model {
	return provider.Model{ID: "gpt-test", Provider: "openai", API: provider.APIOpenAIResponses,
		MaxTokens: 4096, Reasoning: true, Cost: responsesPrices}
}

func responsesTools() []provider.ToolSpec {
	return []provider.ToolSpec{
		{Name: "read", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
		{Name: "bash", Description: "Run a command.", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)},
	}
}

func responsesRequest(msgs ...codec.Message) provider.Request {
	if len(msgs) == 0 {
		msgs = []codec.Message{&codec.UserMessage{Text: "hi", Timestamp: 1}}
	}
	return provider.Request{Model: responsesModel(), SystemPrompt: "You are a test.", Messages: msgs,
		Tools: responsesTools(), ThinkingLevel: "medium"}
}

// responsesServer starts a mock server playing script and a provider pointed at it.
func responsesServer(t *testing.T, script *provider.Script) (*mockserver.Server, provider.Provider) {
	t.Helper()
	srv := serveScript(t, script)
	return srv, responsesConnect(t, srv)
}

// responsesConnect makes a Responses provider for the mock server, through the registry.
func responsesConnect(t *testing.T, srv *mockserver.Server) provider.Provider {
	t.Helper()
	p, err := provider.ForAPI(provider.APIOpenAIResponses, provider.Endpoint{BaseURL: srv.URL + "/v1", APIKey: "sk-test",
		Headers: map[string]string{"X-Test": "yes"}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// responsesOutcome is what a response amounts to once assembled: the comparable parts.
type responsesOutcome struct {
	Blocks     []responsesBlock
	Stop       string
	Usage      codec.Usage
	Error      string
	Status     int
	Retryable  bool
	Overflow   bool
	RetryAfter time.Duration
	ResponseID string `json:"-"`
}

type responsesBlock struct {
	Kind, Text, ID, Name string
	Signature            string `json:"-"`
	Ended                bool
}

func (o responsesOutcome) String() string {
	b, _ := json.Marshal(o)
	return string(b)
}

// responsesPlay runs one request and assembles what came back. It checks the per-block
// order consumers rely on: start, deltas, end, and nothing for an unknown block.
func responsesPlay(t *testing.T, p provider.Provider, req provider.Request) responsesOutcome {
	t.Helper()
	return responsesPlayCtx(t, context.Background(), p, req, nil)
}

func responsesPlayCtx(t *testing.T, ctx context.Context, p provider.Provider, req provider.Request, onEvent func(provider.Event)) responsesOutcome {
	t.Helper()
	var o responsesOutcome
	index := map[int]int{}
	done := false
	err := p.Stream(ctx, req, func(e provider.Event) {
		if onEvent != nil {
			onEvent(e)
		}
		if done {
			t.Errorf("event after Done: %+v", e)
		}
		switch e.Kind {
		case provider.Metadata:
			o.ResponseID = e.ResponseID
		case provider.BlockStart:
			if _, dup := index[e.Block]; dup {
				t.Errorf("block %d started twice", e.Block)
			}
			index[e.Block] = len(o.Blocks)
			o.Blocks = append(o.Blocks, responsesBlock{Kind: e.BlockKind, ID: e.ToolCallID, Name: e.ToolName})
		case provider.BlockDelta:
			i, ok := index[e.Block]
			if !ok || o.Blocks[i].Ended {
				t.Errorf("delta for a block not open: %+v", e)
				return
			}
			o.Blocks[i].Text += e.Delta
		case provider.BlockEnd:
			i, ok := index[e.Block]
			if !ok || o.Blocks[i].Ended {
				t.Errorf("end of a block not open: %+v", e)
				return
			}
			o.Blocks[i].Ended = true
			o.Blocks[i].Signature = e.Signature
		case provider.Done:
			done = true
			o.Stop = e.StopReason
			o.Usage = e.Usage
		}
	})
	if err != nil {
		if done {
			t.Errorf("error after Done: %v", err)
		}
		o.Error = err.Error()
		var perr *provider.Error
		if errors.As(err, &perr) {
			o.Status, o.Retryable, o.Overflow, o.RetryAfter = perr.Status, perr.Retryable, perr.Overflow, perr.RetryAfter
		} else if !errors.Is(err, context.Canceled) {
			t.Errorf("failure is not a *provider.Error: %T %v", err, err)
		}
	} else if !done {
		t.Errorf("Stream returned nil without a Done event")
	}
	return o
}

// responsesNormalize makes the scripted provider's outcome comparable with the Responses
// provider's: tool call ids lose the item id, signatures are not compared, and cache
// writes, which the API cannot report, count as input.
func responsesNormalize(o responsesOutcome, fromScript bool) responsesOutcome {
	o.ResponseID = ""
	o.Blocks = append([]responsesBlock(nil), o.Blocks...)
	for i := range o.Blocks {
		o.Blocks[i].ID, _, _ = strings.Cut(o.Blocks[i].ID, "|")
		o.Blocks[i].Signature = ""
	}
	if fromScript && o.Error == "" {
		o.Usage.Input += o.Usage.CacheWrite
		o.Usage.CacheWrite = 0
		o.Usage.Cost = provider.CostOf(o.Usage, responsesPrices)
	}
	return o
}

// responsesCompare plays every entry of a script through the scripted provider and through
// the Responses provider over the mock server, and compares the outcomes.
func responsesCompare(t *testing.T, data []byte) []responsesOutcome {
	t.Helper()
	direct, p, n := scriptAndWire(t, data, func(srv *mockserver.Server) provider.Provider { return responsesConnect(t, srv) })
	var got []responsesOutcome
	for i := 0; i < n+1; i++ { // one more: the last entry repeats
		want := responsesNormalize(responsesPlay(t, direct, responsesRequest()), true)
		raw := responsesPlay(t, p, responsesRequest())
		if raw.Error == "" && raw.ResponseID == "" {
			t.Errorf("response %d: no response id", i+1)
		}
		have := responsesNormalize(raw, false)
		if want.Error != "" && strings.Contains(want.Error, "connection reset") {
			// A reset may reach the client before the data sent ahead of it; what counts
			// is that it is a transient failure, never a success.
			if !strings.Contains(have.Error, "connection") || !have.Retryable || have.Stop != "" {
				t.Errorf("response %d: reset gave %s", i+1, have)
			}
			continue
		}
		if !reflect.DeepEqual(want, have) {
			t.Errorf("response %d differs\nscript:    %s\nresponses: %s", i+1, want, have)
		}
		got = append(got, have)
	}
	return got
}

func TestResponsesPlaysScripts(t *testing.T) {
	eachScript(t, func(t *testing.T, data []byte) { responsesCompare(t, data) })
}

func TestResponsesContent(t *testing.T) {
	got := responsesCompare(t, []byte(`{"responses":[
		{"thinking":["Think", "ing."],"text":["Hel","lo"],"tool_calls":[{"id":"call_1","name":"bash","args":["{\"command\":","\"ls\"}"]}],
		 "usage":{"input":100,"output":20,"cacheRead":30}},
		{"text":["cut"],"finish_reason":"length","usage":{"input":5,"output":1}}]}`))
	first := got[0]
	want := []responsesBlock{
		{Kind: "thinking", Text: "Thinking.", Ended: true},
		{Kind: "text", Text: "Hello", Ended: true},
		{Kind: "toolCall", Text: `{"command":"ls"}`, ID: "call_1", Name: "bash", Ended: true},
	}
	for i := range first.Blocks {
		first.Blocks[i].Signature = ""
	}
	if !reflect.DeepEqual(first.Blocks, want) || first.Stop != codec.StopReasonToolUse {
		t.Errorf("got %s", first)
	}
	u := first.Usage
	if u.Input != 100 || u.CacheRead != 30 || u.Output != 20 || u.TotalTokens != 150 || u.Cost.Total != (100*2+20*8+30*0.5)/1e6 {
		t.Errorf("usage %+v", u)
	}
	if got[1].Stop != codec.StopReasonLength {
		t.Errorf("length stop: %s", got[1])
	}
}

// TestResponsesSignatures checks what blocks carry for later turns: the reasoning item's
// JSON with its encrypted content, the message id, and "<call_id>|<item id>" tool ids.
func TestResponsesSignatures(t *testing.T) {
	script, _ := loadScript(t, []byte(`{"responses":[{"thinking":["Hmm."],"text":["Hi"],
		"tool_calls":[{"id":"call_9","name":"read","args":{"path":"a"}}]}]}`))
	_, p := responsesServer(t, script)
	o := responsesPlay(t, p, responsesRequest())
	if len(o.Blocks) != 3 {
		t.Fatalf("got %s", o)
	}
	var item map[string]any
	if err := json.Unmarshal([]byte(o.Blocks[0].Signature), &item); err != nil {
		t.Fatalf("thinking signature is not the item's JSON: %q", o.Blocks[0].Signature)
	}
	if item["type"] != "reasoning" || item["id"] != "rs_1_0" || item["encrypted_content"] == nil {
		t.Errorf("reasoning item %v", item)
	}
	if o.Blocks[1].Signature != "msg_1_1" {
		t.Errorf("text signature %q", o.Blocks[1].Signature)
	}
	if o.Blocks[2].ID != "call_9|fc_1_2" || o.Blocks[2].Signature != "" {
		t.Errorf("tool call %+v", o.Blocks[2])
	}
	if o.ResponseID != "resp_1" {
		t.Errorf("response id %q", o.ResponseID)
	}
}

// TestResponsesFaults plays every failure class and checks the exact error each gives, the
// same as the scripted provider's.
func TestResponsesFaults(t *testing.T) {
	cases := []struct {
		name, entry string
		want        responsesOutcome
	}{
		{"flat body", `{"status":529,"body":{"type":"overloaded_error","message":"Overloaded"}}`,
			responsesOutcome{Error: "529 overloaded_error: Overloaded", Status: 529, Retryable: true}},
		{"nested body", `{"status":400,"body":{"error":{"message":"Invalid 'input[1]'.","type":"invalid_request_error","param":"input","code":"invalid_value"}}}`,
			responsesOutcome{Error: "400 invalid_value: Invalid 'input[1]'.", Status: 400}},
		{"envelope of a message", `{"status":401,"message":"Incorrect API key provided"}`,
			responsesOutcome{Error: "401 Incorrect API key provided", Status: 401}},
		{"empty body", `{"status":502}`,
			responsesOutcome{Error: "502 " + provider.MsgEmptyBody, Status: 502, Retryable: true}},
		{"text body", `{"status":503,"body":"upstream connect error"}`,
			responsesOutcome{Error: "503 upstream connect error", Status: 503, Retryable: true}},
		{"overflow", `{"status":400,"body":{"error":{"message":"Your input exceeds the context window of this model.","type":"invalid_request_error","code":"context_length_exceeded"}}}`,
			responsesOutcome{Error: "400 context_length_exceeded: Your input exceeds the context window of this model.", Status: 400, Overflow: true}},
		{"retry-after", `{"status":429,"message":"Rate limit reached","headers":{"retry-after":"7"}}`,
			responsesOutcome{Error: "429 Rate limit reached", Status: 429, Retryable: true, RetryAfter: 7 * time.Second}},
		{"retry-after-ms", `{"status":429,"message":"Rate limit reached","headers":{"retry-after-ms":"1500"}}`,
			responsesOutcome{Error: "429 Rate limit reached", Status: 429, Retryable: true, RetryAfter: 1500 * time.Millisecond}},
		{"stream error", `{"text":["partial"],"stream_error":{"code":"server_error","message":"The server had an error"}}`,
			responsesOutcome{Blocks: []responsesBlock{{Kind: "text", Text: "partial", Ended: true}},
				Error: "server_error: The server had an error", Retryable: true}},
		{"stream error without code", `{"stream_error":{"message":"boom"}}`,
			responsesOutcome{Error: "boom"}},
		{"cut", `{"text":["a","b","c"],"cut_after":2}`,
			responsesOutcome{Blocks: []responsesBlock{{Kind: "text", Text: "ab"}}, Error: provider.MsgCutOff, Retryable: true}},
		{"cut before the finish", `{"text":["a"],"cut_after":1}`,
			responsesOutcome{Blocks: []responsesBlock{{Kind: "text", Text: "a", Ended: true}}, Error: provider.MsgCutOff, Retryable: true}},
		{"no finish", `{"text":["a"],"no_finish":true}`,
			responsesOutcome{Blocks: []responsesBlock{{Kind: "text", Text: "a", Ended: true}}, Error: provider.MsgNoFinish, Retryable: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := responsesCompare(t, []byte(`{"responses":[`+c.entry+`]}`))
			if len(got) == 0 {
				t.Fatal("no outcome came back")
			}
			if !reflect.DeepEqual(got[0], c.want) {
				t.Errorf("got  %s\nwant %s", got[0], c.want)
			}
		})
	}
	for _, status := range []int{408, 409, 429, 500, 503, 529, 400, 401, 403, 404} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			got := responsesCompare(t, []byte(fmt.Sprintf(`{"responses":[{"status":%d,"message":"nope"}]}`, status)))
			want := status != 400 && status != 401 && status != 403 && status != 404
			if len(got) == 0 {
				t.Fatal("no outcome came back")
			}
			if got[0].Retryable != want || got[0].Status != status || got[0].Error != fmt.Sprint(status)+" nope" {
				t.Errorf("got %s", got[0])
			}
		})
	}
	t.Run("reset", func(t *testing.T) {
		got := responsesCompare(t, []byte(`{"responses":[{"text":["a","b"],"cut_after":1,"reset":true}]}`))
		_ = got // compared loosely inside responsesCompare
	})
}

// responsesRawServer answers every request with the given SSE body.
func responsesRawServer(t *testing.T, sse string) provider.Provider {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(sse))
	}))
	t.Cleanup(srv.Close)
	return provider.NewOpenAIResponses(provider.Endpoint{BaseURL: srv.URL + "/v1", APIKey: "k"})
}

func responsesSSE(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		var v struct {
			Type string `json:"type"`
		}
		json.Unmarshal([]byte(e), &v)
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", v.Type, e)
	}
	return b.String()
}

// TestResponsesEvents covers events the mock server does not play.
func TestResponsesEvents(t *testing.T) {
	created := `{"type":"response.created","response":{"id":"resp_x","status":"in_progress","output":[]}}`
	cases := []struct {
		name string
		sse  string
		want responsesOutcome
	}{
		{"failed", responsesSSE(created,
			`{"type":"response.failed","response":{"id":"resp_x","status":"failed","error":{"code":"server_error","message":"Something went wrong"}}}`),
			responsesOutcome{Error: "server_error: Something went wrong", Retryable: true}},
		{"failed rate limit", responsesSSE(created,
			`{"type":"response.failed","response":{"id":"resp_x","status":"failed","error":{"code":"rate_limit_exceeded","message":"Slow down"}}}`),
			responsesOutcome{Error: "rate_limit_exceeded: Slow down", Retryable: true}},
		{"error event with a nested error", responsesSSE(created,
			`{"type":"error","error":{"type":"invalid_request_error","code":"context_length_exceeded","message":"Your input exceeds the context window of this model."}}`),
			responsesOutcome{Error: "context_length_exceeded: Your input exceeds the context window of this model.", Overflow: true}},
		{"content filter", responsesSSE(created,
			`{"type":"response.incomplete","response":{"id":"resp_x","status":"incomplete","incomplete_details":{"reason":"content_filter"}}}`),
			responsesOutcome{Error: "content_filter: the response was stopped by the content filter"}},
		{"not JSON", "event: response.created\ndata: {nope\n\n",
			responsesOutcome{Error: "the response stream has an event that is not valid JSON: invalid character 'n' looking for beginning of object key string"}},
		{"items without deltas", responsesSSE(created,
			`{"type":"response.output_item.added","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}}`,
			`{"type":"response.output_item.done","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"One."},{"type":"summary_text","text":"Two."}],"encrypted_content":"e"}}`,
			`{"type":"response.output_item.done","output_index":1,"item":{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"output_text","text":"Hi","annotations":[]}]}}`,
			`{"type":"response.output_item.added","output_index":2,"item":{"id":"ws_1","type":"web_search_call","status":"completed"}}`,
			`{"type":"response.output_item.added","output_index":3,"item":{"id":"fc_1","type":"function_call","call_id":"c1","name":"read","arguments":""}}`,
			`{"type":"response.function_call_arguments.done","output_index":3,"item_id":"fc_1","arguments":"{\"path\":\"x\"}"}`,
			`{"type":"response.completed","response":{"id":"resp_x","status":"completed","usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":4},"output_tokens":3,"total_tokens":13}}}`),
			responsesOutcome{Blocks: []responsesBlock{
				{Kind: "thinking", Text: "One.\n\nTwo.", Ended: true},
				{Kind: "text", Text: "Hi", Ended: true},
				{Kind: "toolCall", Text: `{"path":"x"}`, ID: "c1|fc_1", Name: "read", Ended: true}},
				Stop: codec.StopReasonToolUse,
				Usage: codec.Usage{Input: 6, CacheRead: 4, Output: 3, TotalTokens: 13,
					Cost: provider.CostOf(codec.Usage{Input: 6, CacheRead: 4, Output: 3}, responsesPrices)}}},
		{"summary parts", responsesSSE(created,
			`{"type":"response.output_item.added","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}}`,
			`{"type":"response.reasoning_summary_text.delta","output_index":0,"summary_index":0,"delta":"A"}`,
			`{"type":"response.reasoning_summary_text.delta","output_index":0,"summary_index":1,"delta":"B"}`,
			`{"type":"response.completed","response":{"id":"resp_x","status":"completed","usage":{"input_tokens":1,"output_tokens":1}}}`),
			responsesOutcome{Blocks: []responsesBlock{{Kind: "thinking", Text: "A\n\nB", Ended: true}}, Stop: codec.StopReasonStop,
				Usage: codec.Usage{Input: 1, Output: 1, TotalTokens: 2, Cost: provider.CostOf(codec.Usage{Input: 1, Output: 1}, responsesPrices)}}},
		{"empty body", "", responsesOutcome{Error: provider.MsgNoFinish, Retryable: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := responsesPlay(t, responsesRawServer(t, c.sse), responsesRequest())
			for i := range got.Blocks {
				got.Blocks[i].Signature = ""
			}
			if !reflect.DeepEqual(got, c.want) && !(got.ResponseID == "resp_x" && reflect.DeepEqual(responsesWithoutID(got), c.want)) {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func responsesWithoutID(o responsesOutcome) responsesOutcome {
	o.ResponseID = ""
	return o
}

func TestResponsesTransportFailures(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	p := provider.NewOpenAIResponses(provider.Endpoint{BaseURL: url + "/v1", APIKey: "k"})
	o := responsesPlay(t, p, responsesRequest())
	if !strings.HasPrefix(o.Error, "connection failed: ") || o.Retryable || o.Status != 0 { // loopback: final
		t.Errorf("refused connection: %s", o)
	}
}

func TestResponsesCancel(t *testing.T) {
	// The pause before each chunk is long: the test cancels as soon as the block starts, so
	// it never waits for it.
	played, err := provider.ParseScript([]byte(`{"responses":[{"text":["a","b","c"],"delay_ms":60000}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, p := responsesServer(t, played)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := responsesPlayCtx(t, ctx, p, responsesRequest(), func(e provider.Event) {
		if e.Kind == provider.BlockStart {
			cancel()
		}
	})
	if o.Error != context.Canceled.Error() {
		t.Errorf("cancelled stream: %s", o)
	}
	// A request made after cancellation is not sent at all.
	o = responsesPlayCtx(t, ctx, p, responsesRequest(), nil)
	if o.Error != context.Canceled.Error() {
		t.Errorf("cancelled before the request: %s", o)
	}
}

func TestResponsesRequestBody(t *testing.T) {
	script, _ := loadScript(t, []byte(`{"responses":[{"text":["ok"]}]}`))
	srv, p := responsesServer(t, script)
	req := responsesRequest(&codec.UserMessage{Blocks: []codec.Content{
		&codec.TextContent{Text: "look"}, &codec.ImageContent{Data: "AAAA", MimeType: "image/png"}}})
	responsesPlay(t, p, req)
	r := srv.Requests()[0]
	if r.Path != "/v1/responses" || r.Header.Get("Authorization") != "Bearer sk-test" || r.Header.Get("X-Test") != "yes" {
		t.Errorf("request %s %v", r.Path, r.Header)
	}
	body := requestBody(t, srv, 0)
	want := map[string]any{
		"model":             "gpt-test",
		"stream":            true,
		"store":             false,
		"instructions":      "You are a test.",
		"max_output_tokens": 4096.0,
		"include":           []any{"reasoning.encrypted_content"},
		"reasoning":         map[string]any{"effort": "medium", "summary": "auto"},
		"tools": []any{
			map[string]any{"type": "function", "name": "read", "description": "Read a file.", "strict": false,
				"parameters": map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []any{"path"}}},
			map[string]any{"type": "function", "name": "bash", "description": "Run a command.", "strict": false,
				"parameters": map[string]any{"type": "object", "properties": map[string]any{"command": map[string]any{"type": "string"}}}},
		},
		"input": []any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "input_text", "text": "look"},
			map[string]any{"type": "input_image", "detail": "auto", "image_url": "data:image/png;base64,AAAA"},
		}}},
	}
	if !reflect.DeepEqual(body, want) {
		t.Errorf("body\n%s\nwant\n%s", jsonString(body), jsonString(want))
	}
}

func TestResponsesThinkingLevels(t *testing.T) {
	script, _ := loadScript(t, []byte(`{"responses":[{"text":["ok"]}]}`))
	srv, p := responsesServer(t, script)
	cases := []struct {
		level     string
		reasoning bool
		want      string // the reasoning member, "" when absent
		include   bool
	}{
		{"off", true, "", true},
		{"minimal", true, `{"effort":"minimal","summary":"auto"}`, true},
		{"low", true, `{"effort":"low","summary":"auto"}`, true},
		{"medium", true, `{"effort":"medium","summary":"auto"}`, true},
		{"high", true, `{"effort":"high","summary":"auto"}`, true},
		{"xhigh", true, `{"effort":"xhigh","summary":"auto"}`, true},
		{"high", false, "", false},
		{"off", false, "", false},
	}
	for i, c := range cases {
		req := responsesRequest()
		req.ThinkingLevel = c.level
		req.Model.Reasoning = c.reasoning
		responsesPlay(t, p, req)
		body := requestBody(t, srv, i)
		got := ""
		if r, ok := body["reasoning"]; ok {
			got = jsonString(r)
		}
		_, include := body["include"]
		if got != c.want || include != c.include {
			t.Errorf("%s (reasoning model %v): reasoning %s include %v", c.level, c.reasoning, got, include)
		}
	}
}

// TestResponsesConversation plays a tool conversation over several turns and checks what
// each later request sends back: reasoning items unchanged, message ids, function calls with
// their call and item ids, and tool results (an error flagged in the output).
func TestResponsesConversation(t *testing.T) {
	script, _ := loadScript(t, []byte(`{"responses":[
		{"thinking":["Need ","files."],"text":["Looking."],"tool_calls":[
			{"id":"call_a","name":"bash","args":["{\"command\":","\"ls\"}"]},
			{"id":"call_b","name":"read","args":{"path":"nope"}}]},
		{"thinking":["Done."],"text":["Two files."]}]}`))
	srv, p := responsesServer(t, script)
	user := &codec.UserMessage{Text: "what is here?"}
	first := responsesPlay(t, p, responsesRequest(user))
	asst := responsesAssistant(first)
	results := []codec.Message{
		&codec.ToolResultMessage{ToolCallID: asst.Content[2].(*codec.ToolCall).ID, ToolName: "bash",
			Content: []codec.Content{&codec.TextContent{Text: "a.txt\nb.txt"}}},
		&codec.ToolResultMessage{ToolCallID: asst.Content[3].(*codec.ToolCall).ID, ToolName: "read", IsError: true,
			Content: []codec.Content{&codec.TextContent{Text: "ENOENT: nope"}}},
	}
	second := responsesPlay(t, p, responsesRequest(append([]codec.Message{user, asst}, results...)...))
	asst2 := responsesAssistant(second)
	responsesPlay(t, p, responsesRequest(append([]codec.Message{user, asst}, append(results, asst2, &codec.UserMessage{Text: "thanks"})...)...))

	reasoning := first.Blocks[0].Signature
	var item map[string]any
	json.Unmarshal([]byte(reasoning), &item)
	wantInput := []any{
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "input_text", "text": "what is here?"}}},
		item,
		map[string]any{"type": "message", "role": "assistant", "id": "msg_1_1", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": "Looking.", "annotations": []any{}}}},
		map[string]any{"type": "function_call", "call_id": "call_a", "id": "fc_1_2", "name": "bash", "arguments": `{"command":"ls"}`},
		map[string]any{"type": "function_call", "call_id": "call_b", "id": "fc_1_3", "name": "read", "arguments": `{"path":"nope"}`},
		map[string]any{"type": "function_call_output", "call_id": "call_a", "output": "a.txt\nb.txt"},
		map[string]any{"type": "function_call_output", "call_id": "call_b", "output": "Error: ENOENT: nope"},
	}
	if got := requestBody(t, srv, 1)["input"]; !reflect.DeepEqual(got, wantInput) {
		t.Errorf("second request input\n%s\nwant\n%s", jsonString(got), jsonString(wantInput))
	}
	if item["encrypted_content"] != "enc_TmVlZCBmaWxlcy4=" || item["id"] != "rs_1_0" {
		t.Errorf("reasoning item %v", item)
	}
	// The reasoning item goes back byte for byte as the API sent it.
	raw := string(srv.Requests()[1].Body)
	if !strings.Contains(raw, reasoning) {
		t.Errorf("reasoning item not sent back unchanged: %s not in %s", reasoning, raw)
	}
	third := requestBody(t, srv, 2)["input"].([]any)
	if len(third) != len(wantInput)+3 {
		t.Fatalf("third request input: %s", jsonString(third))
	}
	var item2 map[string]any
	json.Unmarshal([]byte(second.Blocks[0].Signature), &item2)
	tail := []any{item2,
		map[string]any{"type": "message", "role": "assistant", "id": "msg_2_1", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": "Two files.", "annotations": []any{}}}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "input_text", "text": "thanks"}}},
	}
	if !reflect.DeepEqual(third[len(wantInput):], tail) {
		t.Errorf("third request tail\n%s\nwant\n%s", jsonString(third[len(wantInput):]), jsonString(tail))
	}
}

// responsesAssistant is the assistant message the agent would keep for an outcome.
func responsesAssistant(o responsesOutcome) *codec.AssistantMessage {
	m := &codec.AssistantMessage{API: provider.APIOpenAIResponses, Provider: "openai", Model: "gpt-test", StopReason: o.Stop}
	for _, b := range o.Blocks {
		switch b.Kind {
		case "thinking":
			m.Content = append(m.Content, &codec.ThinkingContent{Thinking: b.Text, ThinkingSignature: b.Signature})
		case "text":
			m.Content = append(m.Content, &codec.TextContent{Text: b.Text, TextSignature: b.Signature})
		case "toolCall":
			m.Content = append(m.Content, &codec.ToolCall{ID: b.ID, Name: b.Name, Arguments: json.RawMessage(b.Text)})
		}
	}
	return m
}

// TestResponsesForeignHistory checks a conversation begun on another API: its thinking
// cannot be replayed and is left out, its text goes back as plain assistant text and its
// tool ids as call ids; other kinds of messages reach the model as user text.
func TestResponsesForeignHistory(t *testing.T) {
	script, _ := loadScript(t, []byte(`{"responses":[{"text":["ok"]}]}`))
	srv, p := responsesServer(t, script)
	exit := int64(2)
	msgs := []codec.Message{
		&codec.UserMessage{Text: "hi"},
		&codec.AssistantMessage{API: provider.APIAnthropicMessages, Content: []codec.Content{
			&codec.ThinkingContent{Thinking: "hmm", ThinkingSignature: "anthropic-sig"},
			&codec.TextContent{Text: "Let me look."},
			&codec.ToolCall{ID: "toolu_1", Name: "bash", Arguments: json.RawMessage(`{"command":"false"}`)}}},
		&codec.ToolResultMessage{ToolCallID: "toolu_1", ToolName: "bash", IsError: true,
			Content: []codec.Content{&codec.TextContent{Text: "Command exited with code 1"}}},
		&codec.BashExecutionMessage{Command: "make", Output: "fail\n", ExitCode: &exit},
		&codec.CompactionSummaryMessage{Summary: "Earlier: setup."},
		&codec.CustomMessage{CustomType: "note", Content: json.RawMessage(`"remember this"`)},
	}
	responsesPlay(t, p, responsesRequest(msgs...))
	userText := func(s string) any {
		return map[string]any{"role": "user", "content": []any{map[string]any{"type": "input_text", "text": s}}}
	}
	want := []any{
		userText("hi"),
		map[string]any{"role": "assistant", "content": "Let me look."},
		map[string]any{"type": "function_call", "call_id": "toolu_1", "name": "bash", "arguments": `{"command":"false"}`},
		map[string]any{"type": "function_call_output", "call_id": "toolu_1", "output": "Error: Command exited with code 1"},
		userText("I ran the command `make`.\nOutput:\n```\nfail\n```\nCommand exited with code 2"),
		userText("The earlier part of this session was condensed into the summary below to fit the context window.\n\n<summary>\nEarlier: setup.\n</summary>"),
		userText("remember this"),
	}
	if got := requestBody(t, srv, 0)["input"]; !reflect.DeepEqual(got, want) {
		t.Errorf("input\n%s\nwant\n%s", jsonString(got), jsonString(want))
	}
}

// TestResponsesWithoutKey: a local server needs no key; the request goes out without one.
func TestResponsesWithoutKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	script, _ := loadScript(t, []byte(`{"responses":[{"text":["ok"]}]}`))
	srv := mockserver.New(script)
	t.Cleanup(srv.Close)
	p := provider.NewOpenAIResponses(provider.Endpoint{BaseURL: srv.URL + "/v1"})
	if o := responsesPlay(t, p, responsesRequest()); o.Error != "" {
		t.Fatalf("got %s", o)
	}
	if auth := srv.Requests()[0].Header.Get("Authorization"); auth != "" {
		t.Errorf("Authorization %q sent without a key", auth)
	}
}
