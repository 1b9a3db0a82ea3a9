package provider_test

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/agent/provider/mockserver"
	"github.com/basecontext/base-context/codec"
)

// geminiModel's cache writes cost what input costs: Gemini reports no cache writes apart,
// so a script's cache writes come back as input, at the same price.
var geminiModel = provider.Model{
	ID: "gemini-3-pro-preview", Provider: "google", API: provider.APIGemini, MaxTokens: 65536, Reasoning: true,
	Cost: provider.Prices{Input: 2, Output: 12, CacheRead: 0.2, CacheWrite: 2},
}

func geminiRequest() provider.Request {
	r := completionsRequest()
	r.Model = geminiModel
	return r
}

func geminiConnect(srv *mockserver.Server) provider.Provider {
	return provider.NewGemini(provider.Endpoint{BaseURL: srv.URL + "/v1beta", APIKey: "gemini-key"})
}

// geminiComparable is an outcome without what Gemini cannot say as the script does: tool
// call arguments come whole (compared as JSON values), cache writes count as input, and
// costs (checked elsewhere) are left out.
func geminiComparable(t *testing.T, o completionsOutcome) completionsOutcome {
	o = completionsComparable(o)
	for i, b := range o.Blocks {
		if b.Kind == "toolCall" && b.Text != "" {
			o.Blocks[i].Text = jsonString(decodeJSON(t, []byte(b.Text)))
		}
	}
	o.Usage.Input += o.Usage.CacheWrite
	o.Usage.CacheWrite = 0
	o.Usage.Cost = codec.Cost{}
	return o
}

// Every script plays the same through the scripted provider and through Gemini over the
// mock server.
func TestGeminiScriptsMatchScriptedProvider(t *testing.T) {
	eachScript(t, func(t *testing.T, data []byte) {
		script, p, n := scriptAndWire(t, data, geminiConnect)
		for i := 1; i <= n+1; i++ {
			wantEvs, wantErr := playEvents(context.Background(), script, geminiRequest())
			gotEvs, gotErr := playEvents(context.Background(), p, geminiRequest())
			want := geminiComparable(t, completionsCollect(t, wantEvs, wantErr))
			got := geminiComparable(t, completionsCollect(t, gotEvs, gotErr))
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("request %d:\n got %+v\nwant %+v", i, got, want)
			}
		}
	})
}

// The reference scripts' event sequences over Gemini: signatures on the last thought and the
// first call, ids of parallel calls, usage and cost.
func TestGeminiReferenceSequences(t *testing.T) {
	thought, call := mockserver.GeminiSignature("thought", 1), mockserver.GeminiSignature("call", 1)
	for name, want := range map[string]string{
		"a_text.json": `meta(gemini-mock-1) start#0(text) delta*10(Hello from the mock model. This is chunk ten.) end#0 ` +
			`done(stop 120/10/0/0=130 cost=0.00036)`,
		"c2_thinking_openai.json": `meta(gemini-mock-1) start#0(thinking) delta*5(The user wants a short answer. 2+2=4.) ` +
			`end#0(` + thought + `) start#1(text) delta*2(2 + 2 = 4.) end#1 done(stop 150/30/0/0=180 cost=0.00066)`,
		"b2_tools_parallel.json": `meta(gemini-mock-1) start#0(toolCall call_read_1 read) delta*1({"path":"hello.txt"}) end#0(` + call + `) ` +
			`start#1(toolCall call_bash_2 bash) delta*1({"command":"echo hi && wc -c hello.txt"}) end#1 ` +
			`done(toolUse 200/20/0/0=220 cost=0.00064)`,
	} {
		t.Run(name, func(t *testing.T) {
			s, _ := loadScript(t, referenceScript(t, name))
			p := geminiConnect(serveScript(t, s))
			evs, err := playEvents(context.Background(), p, geminiRequest())
			if err != nil {
				t.Fatal(err)
			}
			if got := completionsSummary(evs); got != want {
				t.Errorf("\n got %s\nwant %s", got, want)
			}
		})
	}
}

// Faults after HTTP 200 and failing statuses: each is a failure with the provider's words,
// never a success, and the SDK retries nothing (one request each).
func TestGeminiFaults(t *testing.T) {
	for _, tc := range []struct{ name, script, want string }{
		{"stream error", `{"text":["Half"],"stream_error":{"type":"UNAVAILABLE","message":"The model is overloaded."}}`,
			`start#0(text) delta*1(Half) end#0 error("UNAVAILABLE: The model is overloaded." retryable=true overflow=false after=0s)`},
		{"cut in text", `{"text":["one","two"],"cut_after":1}`,
			`start#0(text) delta*1(one) end#0 error("the response stream was cut off before it finished" retryable=true overflow=false after=0s)`},
		{"reset", `{"text":["one","two"],"cut_after":1,"reset":true}`,
			`start#0(text) delta*1(one) end#0 error("the response stream was cut off before it finished: connection reset by peer" retryable=true overflow=false after=0s)`},
		{"no finish", `{"text":["all"],"no_finish":true}`,
			`start#0(text) delta*1(all) end#0 error("the response stream ended without a finish reason" retryable=true overflow=false after=0s)`},
		{"length", `{"text":["trunc"],"finish_reason":"length","usage":{"input":5,"output":7,"cacheRead":100}}`,
			`start#0(text) delta*1(trunc) end#0 done(length 5/7/100/0=112 114.00µ$)`},
		{"nested error 429 with RetryInfo", `{"status":429,"body":{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED",` +
			`"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"23s"}]}}}`,
			`error("429 RESOURCE_EXHAUSTED: Resource has been exhausted (e.g. check quota)." retryable=true overflow=false after=23s)`},
		{"nested error in a list", `{"status":503,"body":[{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}],"headers":{"retry-after":"2"}}`,
			`error("503 UNAVAILABLE: The model is overloaded. Please try again later." retryable=true overflow=false after=2s)`},
		{"flat error", `{"status":400,"body":{"message":"bad thing","code":"INVALID"}}`,
			`error("400 INVALID: bad thing" retryable=false overflow=false after=0s)`},
		{"overflow", `{"status":400,"body":{"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}}`,
			`error("400 INVALID_ARGUMENT: The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)." retryable=false overflow=true after=0s)`},
		{"empty 500", `{"status":500,"body":""}`, `error("500 (empty error body)" retryable=true overflow=false after=0s)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := loadScript(t, []byte(`{"responses":[`+tc.script+`]}`))
			srv := serveScript(t, s)
			got := anthropicOutcome(playEvents(context.Background(), geminiConnect(srv), geminiRequest()))
			if got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d requests: the SDK retried", n)
			}
		})
	}
}

// geminiRaw serves one recorded body for every request and counts the requests.
func geminiRaw(t *testing.T, status int, body string) (provider.Provider, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if status != 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
		} else {
			w.Header().Set("Content-Type", "text/event-stream")
		}
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return provider.NewGemini(provider.Endpoint{BaseURL: srv.URL, APIKey: "k"}), &n
}

// What the script format cannot express: safety blocks, signatures on empty parts, calls
// without ids, usage with thoughts and cached tokens, safety ratings.
func TestGeminiRawStreams(t *testing.T) {
	sse := func(objs ...string) string {
		var b strings.Builder
		for _, o := range objs {
			b.WriteString("data: " + o + "\r\n\r\n")
		}
		return b.String()
	}
	for _, tc := range []struct{ name, body, want string }{
		{"prompt blocked", sse(`{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"},"usageMetadata":{"promptTokenCount":9,"totalTokenCount":9},"responseId":"r1"}`),
			`error("PROHIBITED_CONTENT: the prompt was blocked by the provider's safety filters" retryable=false overflow=false after=0s)`},
		{"response stopped for safety", sse(`{"candidates":[{"content":{"parts":[{"text":"Sure, here"}],"role":"model"}}],"responseId":"r1"}`,
			`{"candidates":[{"finishReason":"SAFETY","safetyRatings":[{"category":"HARM_CATEGORY_DANGEROUS_CONTENT","probability":"HIGH","blocked":true}]}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":3,"totalTokenCount":13},"responseId":"r1"}`),
			`start#0(text) delta*1(Sure, here) end#0 error("SAFETY: blocked for HARM_CATEGORY_DANGEROUS_CONTENT" retryable=false overflow=false after=0s)`},
		{"thoughts, cached tokens, a signature on an empty part, calls without ids",
			sse(`{"candidates":[{"content":{"parts":[{"text":"Let me look.","thought":true}],"role":"model"}}],"responseId":"r1"}`,
				`{"candidates":[{"content":{"parts":[{"text":"Reading."},{"text":"","thoughtSignature":"c2lnMQ=="}],"role":"model"}}],"responseId":"r1"}`,
				`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"read","args":{"path":"a"}},"thoughtSignature":"c2lnMg=="},{"functionCall":{"name":"read","args":{"path":"b"}}}],"role":"model"},"finishReason":"STOP"}],`+
					`"usageMetadata":{"promptTokenCount":1000,"cachedContentTokenCount":800,"candidatesTokenCount":20,"thoughtsTokenCount":100,"totalTokenCount":1120},"responseId":"r1"}`),
			`start#0(thinking) delta*1(Let me look.) end#0 start#1(text) delta*1(Reading.) end#1 start#2(toolCall call_r1_1 read) delta*1({"path":"a"}) end#2 ` +
				`start#3(toolCall call_r1_2 read) delta*1({"path":"b"}) end#3 done(toolUse 200/120/800/0=1120 2000.00µ$)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := geminiRaw(t, 0, tc.body)
			evs, err := playEvents(context.Background(), p, geminiRequest())
			completionsCollect(t, evs, err)
			got := anthropicOutcome(evs, err)
			if got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// The request: system instruction, tools as JSON schema, thinking config per level, the
// SDK's continuation off, and the key in its header.
func TestGeminiRequest(t *testing.T) {
	for _, tc := range []struct {
		model, level string
		reasoning    bool
		want         string
	}{
		{"gemini-3-pro-preview", "minimal", true, `{"includeThoughts":true,"thinkingLevel":"LOW"}`},
		{"gemini-3-flash-preview", "minimal", true, `{"includeThoughts":true,"thinkingLevel":"MINIMAL"}`},
		{"gemini-3-flash-preview", "xhigh", true, `{"includeThoughts":true,"thinkingLevel":"HIGH"}`},
		{"gemini-2.5-pro", "medium", true, `{"includeThoughts":true,"thinkingBudget":8192}`},
		{"gemini-2.5-pro", "xhigh", true, `{"includeThoughts":true,"thinkingBudget":32768}`},
		{"gemini-2.5-flash", "xhigh", true, `{"includeThoughts":true,"thinkingBudget":24576}`},
		{"gemini-2.5-flash", "off", true, `null`},
		{"gemini-2.0-flash", "high", false, `null`},
	} {
		t.Run(tc.model+"/"+tc.level, func(t *testing.T) {
			s, _ := loadScript(t, []byte(`{"responses":[{"text":["ok"]}]}`))
			srv := serveScript(t, s)
			req := geminiRequest()
			req.Model.ID, req.Model.Reasoning, req.ThinkingLevel = tc.model, tc.reasoning, tc.level
			if _, err := playEvents(context.Background(), geminiConnect(srv), req); err != nil {
				t.Fatal(err)
			}
			r := srv.Requests()[0]
			if want := "/v1beta/models/" + tc.model + ":streamGenerateContent"; r.Path != want {
				t.Errorf("path %s, want %s", r.Path, want)
			}
			if r.Header.Get("x-goog-api-key") != "gemini-key" {
				t.Errorf("key header %q", r.Header.Get("x-goog-api-key"))
			}
			body := requestBody(t, srv, 0)
			gen, _ := body["generationConfig"].(map[string]any)
			if got := jsonString(gen["thinkingConfig"]); got != tc.want {
				t.Errorf("thinkingConfig %s, want %s", got, tc.want)
			}
			if got := jsonString(body["systemInstruction"]); got != `{"parts":[{"text":"You are a test."}],"role":"user"}` && got != `{"parts":[{"text":"You are a test."}]}` {
				t.Errorf("systemInstruction %s", got)
			}
			decls := jsonString(body["tools"])
			if !strings.Contains(decls, `"name":"read"`) || !strings.Contains(decls, `"parametersJsonSchema":{"properties":{"path":{"type":"string"}},"required":["path"],"type":"object"}`) {
				t.Errorf("tools %s", decls)
			}
		})
	}
}

// A second turn sends the first turn back: thinking with its signature, the text, the
// calls with theirs, unchanged, and the tool results together in one user turn. Another
// model's thinking and signatures are not sent.
func TestGeminiSignaturesSentBack(t *testing.T) {
	s, _ := loadScript(t, []byte(`{"responses":[{"thinking":["Plan."],"text":["Reading both."],"tool_calls":[`+
		`{"id":"c1","name":"read","args":["{\"path\":\"a\"}"]},{"id":"c2","name":"read","args":["{\"path\":\"b\"}"]}]},{"text":["Done."]}]}`))
	srv := serveScript(t, s)
	p := geminiConnect(srv)
	evs, err := playEvents(context.Background(), p, geminiRequest())
	if err != nil {
		t.Fatal(err)
	}
	first := completionsAssemble(completionsCollect(t, evs, err))
	first.API, first.Provider, first.Model = provider.APIGemini, geminiModel.Provider, geminiModel.ID
	req := geminiRequest()
	req.Messages = append(req.Messages, first,
		&codec.ToolResultMessage{ToolCallID: "c1", ToolName: "read", Content: []codec.Content{&codec.TextContent{Text: "A"}}},
		&codec.ToolResultMessage{ToolCallID: "c2", ToolName: "read", Content: []codec.Content{&codec.TextContent{Text: "no such file"}}, IsError: true})
	if _, err := playEvents(context.Background(), p, req); err != nil {
		t.Fatal(err)
	}
	thought, call := mockserver.GeminiSignature("thought", 1), mockserver.GeminiSignature("call", 1)
	got := jsonString(requestBody(t, srv, 1)["contents"])
	want := `[{"parts":[{"text":"hi"}],"role":"user"},` +
		`{"parts":[{"text":"Plan.","thought":true,"thoughtSignature":"` + thought + `"},{"text":"Reading both."},` +
		`{"functionCall":{"args":{"path":"a"},"name":"read"},"thoughtSignature":"` + call + `"},{"functionCall":{"args":{"path":"b"},"name":"read"}}],"role":"model"},` +
		`{"parts":[{"functionResponse":{"name":"read","response":{"output":"A"}}},{"functionResponse":{"name":"read","response":{"error":"no such file"}}}],"role":"user"}]`
	if got != want {
		t.Errorf("contents\n got %s\nwant %s", got, want)
	}

	// The same turn from another model: no thinking, no signatures.
	first.Model = "gemini-2.5-pro"
	if _, err := playEvents(context.Background(), p, req); err != nil {
		t.Fatal(err)
	}
	got = jsonString(requestBody(t, srv, 2)["contents"])
	if strings.Contains(got, "thoughtSignature") || strings.Contains(got, `"thought":true`) {
		t.Errorf("another model's signatures sent: %s", got)
	}
}

// The message assembled from a Gemini stream keeps the signatures in thinkingSignature and
// thoughtSignature, where the spec puts them.
func TestGeminiSignaturesInMessage(t *testing.T) {
	s, _ := loadScript(t, []byte(`{"responses":[{"thinking":["Plan."],"tool_calls":[{"id":"c1","name":"read","args":["{}"]}]}]}`))
	evs, err := playEvents(context.Background(), geminiConnect(serveScript(t, s)), geminiRequest())
	m := completionsAssemble(completionsCollect(t, evs, err))
	thinking, _ := m.Content[0].(*codec.ThinkingContent)
	call, _ := m.Content[1].(*codec.ToolCall)
	if thinking == nil || thinking.ThinkingSignature != mockserver.GeminiSignature("thought", 1) ||
		call == nil || call.ThoughtSignature != mockserver.GeminiSignature("call", 1) {
		t.Errorf("signatures not kept: %s", codec.AppendContents(nil, m.Content))
	}
}

// An aborted run returns the context's error, not a provider error, and an open thinking
// block still ends with its signature.
func TestGeminiCancel(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(`data: {"candidates":[{"content":{"parts":[{"text":"Hm","thought":true,"thoughtSignature":"c2ln"}],"role":"model"}}],"responseId":"r1"}` + "\r\n\r\n"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	p := provider.NewGemini(provider.Endpoint{BaseURL: srv.URL, APIKey: "k"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var evs []provider.Event
	err := p.Stream(ctx, geminiRequest(), func(e provider.Event) {
		evs = append(evs, e)
		if e.Kind == provider.BlockDelta {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %T %v, want context.Canceled", err, err)
	}
	if got := completionsSummary(evs); got != `meta(r1) start#0(thinking) delta*1(Hm) end#0(c2ln)` {
		t.Errorf("events %s", got)
	}
}

// Images of tool results follow the function responses in a user turn of their own.
func TestGeminiToolResultImages(t *testing.T) {
	s, _ := loadScript(t, []byte(`{"responses":[{"text":["ok"]}]}`))
	srv := serveScript(t, s)
	req := geminiRequest()
	req.Messages = append(req.Messages,
		&codec.AssistantMessage{API: provider.APIGemini, Provider: "google", Model: geminiModel.ID,
			Content: []codec.Content{&codec.ToolCall{ID: "c1", Name: "read", Arguments: []byte(`{"path":"a.gif"}`)}}},
		&codec.ToolResultMessage{ToolCallID: "c1", ToolName: "read", Content: []codec.Content{
			&codec.TextContent{Text: "Read image file [image/gif]"}, &codec.ImageContent{MimeType: "image/gif", Data: "R0lG"}}})
	if _, err := playEvents(context.Background(), geminiConnect(srv), req); err != nil {
		t.Fatal(err)
	}
	got := jsonString(requestBody(t, srv, 0)["contents"])
	want := `[{"parts":[{"text":"hi"}],"role":"user"},{"parts":[{"functionCall":{"args":{"path":"a.gif"},"name":"read"}}],"role":"model"},` +
		`{"parts":[{"functionResponse":{"name":"read","response":{"output":"Read image file [image/gif]"}}}],"role":"user"},` +
		`{"parts":[{"text":"` + provider.ToolImagesIntro + `"},{"inlineData":{"data":"R0lG","mimeType":"image/gif"}}],"role":"user"}]`
	if got != want {
		t.Errorf("contents\n got %s\nwant %s", got, want)
	}
}

func FuzzGeminiStream(f *testing.F) {
	sse := func(objs ...string) string {
		var b strings.Builder
		for _, o := range objs {
			b.WriteString("data: " + o + "\r\n\r\n")
		}
		return b.String()
	}
	f.Add(sse(`{"candidates":[{"content":{"parts":[{"text":"a","thought":true},{"text":"b","thoughtSignature":"c2ln"}]},"finishReason":"STOP"}],"responseId":"r"}`))
	f.Add(sse(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"n","args":{"a":[1,{"b":null}]}}}]}}],"usageMetadata":{"promptTokenCount":3,"cachedContentTokenCount":9}}`))
	f.Add(sse(`{"promptFeedback":{"blockReason":"OTHER"}}`))
	f.Add(sse(`{"error":{"code":500,"message":"x","status":"INTERNAL"}}`))
	f.Add(sse(`{"candidates":[{"finishReason":"MAX_TOKENS"}]}`) + "data: {\"cand")
	f.Fuzz(func(t *testing.T, body string) {
		raw := &completionsRaw{body: body}
		p := provider.NewGemini(provider.Endpoint{BaseURL: "http://gemini.test/v1beta", HTTPClient: &http.Client{Transport: raw}})
		evs, err := playEvents(context.Background(), p, geminiRequest())
		completionsCollect(t, evs, err)
	})
}

// geminiCaptured is one request as the server received it.
type geminiCaptured struct {
	method, target, contentType, key string
	body                             string
}

// geminiCapture serves a one-chunk answer to every request and keeps the requests.
func geminiCapture(t *testing.T) (string, func() []geminiCaptured) {
	t.Helper()
	var mu sync.Mutex
	var got []geminiCaptured
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, geminiCaptured{r.Method, r.URL.RequestURI(), r.Header.Get("Content-Type"), r.Header.Get("x-goog-api-key"),
			strings.TrimSpace(string(body))})
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(`data: {"candidates":[{"content":{"parts":[{"text":"ok"}],"role":"model"},"finishReason":"STOP"}],"responseId":"r"}` + "\r\n\r\n"))
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []geminiCaptured {
		mu.Lock()
		defer mu.Unlock()
		return append([]geminiCaptured(nil), got...)
	}
}

// The exact bytes of representative requests: text, images, thinking and text signatures,
// tool calls with thought signatures, tool results with images, another model's turn,
// thinking levels and budgets, tools without parameters, characters JSON may escape. The
// bodies are what google.golang.org/genai v1.77.0 sent, before our own client replaced it.
func TestGeminiRequestBodies(t *testing.T) {
	sig := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	turn := func(model string) *codec.AssistantMessage {
		return &codec.AssistantMessage{API: provider.APIGemini, Provider: "google", Model: model, Content: []codec.Content{
			&codec.ThinkingContent{Thinking: "Plan <a> & b.", ThinkingSignature: sig("thought-1")},
			&codec.ThinkingContent{Thinking: "hidden", Redacted: true},
			&codec.TextContent{Text: "Reading both.", TextSignature: sig("text-1")},
			&codec.TextContent{Text: "", TextSignature: sig("empty-text")},
			&codec.TextContent{Text: ""},
			&codec.ToolCall{ID: "c1", Name: "read", Arguments: []byte(`{"path":"a.gif","n":12345678901234567890,"f":1.5}`), ThoughtSignature: sig("call-1")},
			&codec.ToolCall{ID: "c2", Name: "bash", Arguments: []byte(`{"command":"echo hi && wc -c <x"}`)},
			&codec.ToolCall{ID: "c3", Name: "bash", Arguments: nil},
			&codec.ToolCall{ID: "c4", Name: "bash", Arguments: []byte(`not json`), ThoughtSignature: "not base64!"},
		}}
	}
	results := []codec.Message{
		&codec.ToolResultMessage{ToolCallID: "c1", ToolName: "read", Content: []codec.Content{
			&codec.TextContent{Text: "Read image file [image/gif]"}, &codec.ImageContent{MimeType: "image/gif", Data: "R0lGODlh"}}},
		&codec.ToolResultMessage{ToolCallID: "c2", ToolName: "bash", Content: []codec.Content{&codec.TextContent{Text: "exit 1"}}, IsError: true},
		&codec.ToolResultMessage{ToolCallID: "c3", ToolName: "bash"},
		&codec.ToolResultMessage{ToolCallID: "c4", ToolName: "bash", Content: []codec.Content{&codec.ImageContent{MimeType: "image/png", Data: "!!"}}},
	}
	user := &codec.UserMessage{Blocks: []codec.Content{&codec.TextContent{Text: "Look <here> & \u2028 \"there\""},
		&codec.ImageContent{MimeType: "image/png", Data: "iVBORw0KGgo="}}}
	conversation := func(model string) []codec.Message {
		return append(append([]codec.Message{user, turn(model)}, results...), &codec.UserMessage{Text: "and now?"})
	}
	for _, tc := range []struct {
		name  string
		req   func() provider.Request
		model string
		want  string
	}{
		{"text", func() provider.Request { return geminiRequest() }, "gemini-3-pro-preview", `{"contents":[{"parts":[{"text":"hi"}],"role":"user"}],"generationConfig":{"maxOutputTokens":65536},"systemInstruction":` +
			`{"parts":[{"text":"You are a test."}],"role":"user"},` +
			`"tools":[{"functionDeclarations":[{"description":"Read a file","name":"read","parametersJsonSchema":{"properties":{"path":{"type":"string"}},"required":["path"],"type":"object"}},{"description":"Run a command","name":"bash","parametersJsonSchema":{"properties":{"command":{"type":"string"}},"required":["command"],"type":"object"}}]}]}`},
		{"same model's turn, Gemini 3 high", func() provider.Request {
			r := geminiRequest()
			r.ThinkingLevel, r.Messages = "high", conversation(geminiModel.ID)
			return r
		}, "gemini-3-pro-preview", `{"contents":[{"parts":[{"text":"Look \u003chere\u003e \u0026 \u2028 \"there\""},{"inlineData":{"data":"iVBORw0KGgo=","mimeType":"image/png"}}],"role":"user"},` +
			`{"parts":[{"text":"Plan \u003ca\u003e \u0026 b.","thought":true,"thoughtSignature":"dGhvdWdodC0x"},{"text":"Reading both.","thoughtSignature":"dGV4dC0x"},{"thoughtSignature":"ZW1wdHktdGV4dA=="},{"functionCall":{"args":{"f":1.5,"n":12345678901234567000,"path":"a.gif"},"name":"read"},"thoughtSignature":"Y2FsbC0x"},{"functionCall":{"args":{"command":"echo hi \u0026\u0026 wc -c \u003cx"},"name":"bash"}},{"functionCall":{"name":"bash"}},{"functionCall":{"name":"bash"}}],"role":"model"},` +
			`{"parts":[{"functionResponse":{"name":"read","response":{"output":"Read image file [image/gif]"}}},{"functionResponse":{"name":"bash","response":{"error":"exit 1"}}},{"functionResponse":{"name":"bash","response":{"output":""}}},{"functionResponse":{"name":"bash","response":{"output":""}}}],"role":"user"},` +
			`{"parts":[{"text":"Attached image(s) from the tool result(s) above:"},{"inlineData":{"data":"R0lGODlh","mimeType":"image/gif"}}],"role":"user"},` +
			`{"parts":[{"text":"and now?"}],"role":"user"}],"generationConfig":{"maxOutputTokens":65536,"thinkingConfig":{"includeThoughts":true,"thinkingLevel":"HIGH"}},` +
			`"systemInstruction":{"parts":[{"text":"You are a test."}],"role":"user"},` +
			`"tools":[{"functionDeclarations":[{"description":"Read a file","name":"read","parametersJsonSchema":{"properties":{"path":{"type":"string"}},"required":["path"],"type":"object"}},{"description":"Run a command","name":"bash","parametersJsonSchema":{"properties":{"command":{"type":"string"}},"required":["command"],"type":"object"}}]}]}`},
		{"another model's turn", func() provider.Request {
			r := geminiRequest()
			r.ThinkingLevel, r.Messages = "minimal", conversation("gemini-2.5-pro")
			return r
		}, "gemini-3-pro-preview", `{"contents":[{"parts":[{"text":"Look \u003chere\u003e \u0026 \u2028 \"there\""},{"inlineData":{"data":"iVBORw0KGgo=","mimeType":"image/png"}}],"role":"user"},` +
			`{"parts":[{"text":"Reading both."},{"functionCall":{"args":{"f":1.5,"n":12345678901234567000,"path":"a.gif"},"name":"read"}},{"functionCall":{"args":{"command":"echo hi \u0026\u0026 wc -c \u003cx"},"name":"bash"}},{"functionCall":{"name":"bash"}},{"functionCall":{"name":"bash"}}],"role":"model"},` +
			`{"parts":[{"functionResponse":{"name":"read","response":{"output":"Read image file [image/gif]"}}},{"functionResponse":{"name":"bash","response":{"error":"exit 1"}}},{"functionResponse":{"name":"bash","response":{"output":""}}},{"functionResponse":{"name":"bash","response":{"output":""}}}],"role":"user"},` +
			`{"parts":[{"text":"Attached image(s) from the tool result(s) above:"},{"inlineData":{"data":"R0lGODlh","mimeType":"image/gif"}}],"role":"user"},` +
			`{"parts":[{"text":"and now?"}],"role":"user"}],"generationConfig":{"maxOutputTokens":65536,"thinkingConfig":{"includeThoughts":true,"thinkingLevel":"LOW"}},` +
			`"systemInstruction":{"parts":[{"text":"You are a test."}],"role":"user"},` +
			`"tools":[{"functionDeclarations":[{"description":"Read a file","name":"read","parametersJsonSchema":{"properties":{"path":{"type":"string"}},"required":["path"],"type":"object"}},{"description":"Run a command","name":"bash","parametersJsonSchema":{"properties":{"command":{"type":"string"}},"required":["command"],"type":"object"}}]}]}`},
		{"2.5 flash budget, no system prompt, a tool without parameters", func() provider.Request {
			r := geminiRequest()
			r.Model = provider.Model{ID: "gemini-2.5-flash", Provider: "google", API: provider.APIGemini, Reasoning: true, MaxTokens: 2000}
			r.SystemPrompt, r.ThinkingLevel = "", "medium"
			r.Tools = []provider.ToolSpec{{Name: "now", Description: "The time <now>"}}
			r.Messages = []codec.Message{&codec.UserMessage{Text: ""}, &codec.UserMessage{Blocks: []codec.Content{}}}
			return r
		}, "gemini-2.5-flash", `{"contents":[{"parts":[{}],"role":"user"}],"generationConfig":{"maxOutputTokens":2000,"thinkingConfig":{"includeThoughts":true,"thinkingBudget":2000}},` +
			`"tools":[{"functionDeclarations":[{"description":"The time \u003cnow\u003e","name":"now","parametersJsonSchema":{"properties":{},"type":"object"}}]}]}`},
		{"no thinking, no tools, no maximum", func() provider.Request {
			r := geminiRequest()
			r.Model = provider.Model{ID: "models/gemini-2.0-flash", Provider: "google", API: provider.APIGemini}
			r.Tools, r.ThinkingLevel = nil, "high"
			return r
		}, "gemini-2.0-flash", `{"contents":[{"parts":[{"text":"hi"}],"role":"user"}],"generationConfig":{},"systemInstruction":{"parts":[{"text":"You are a test."}],"role":"user"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, captured := geminiCapture(t)
			p := provider.NewGemini(provider.Endpoint{BaseURL: url + "/v1beta", APIKey: "k"})
			if _, err := playEvents(context.Background(), p, tc.req()); err != nil {
				t.Fatal(err)
			}
			reqs := captured()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			r := reqs[0]
			if want := "/v1beta/models/" + tc.model + ":streamGenerateContent?alt=sse"; r.method != "POST" || r.target != want {
				t.Errorf("%s %s, want POST %s", r.method, r.target, want)
			}
			if r.contentType != "application/json" || r.key != "k" {
				t.Errorf("content type %q, key %q", r.contentType, r.key)
			}
			if r.body != tc.want {
				t.Errorf("body\n got %s\nwant %s", r.body, tc.want)
			}
		})
	}
}

// The base URL may end with the API version or not (then it is v1beta), with a path before
// it or not; a model id may carry its "models/" prefix. The endpoint's headers go with every
// request.
func TestGeminiTarget(t *testing.T) {
	for _, tc := range []struct{ base, model, want string }{
		{"", "gemini-2.5-pro", "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"},
		{"/", "gemini-2.5-pro", "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"},
		{"/v1", "gemini-2.5-pro", "/v1/models/gemini-2.5-pro:streamGenerateContent?alt=sse"},
		{"/v1alpha/", "models/gemini-3-pro-preview", "/v1alpha/models/gemini-3-pro-preview:streamGenerateContent?alt=sse"},
		{"/proxy/google/v1beta", "gemini-2.5-pro", "/proxy/google/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"},
		{"/proxy/google", "tunedModels/mine-1", "/proxy/google/v1beta/tunedModels/mine-1:streamGenerateContent?alt=sse"},
	} {
		t.Run(tc.base+" "+tc.model, func(t *testing.T) {
			url, captured := geminiCapture(t)
			var headers http.Header
			client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				headers = r.Header.Clone()
				return http.DefaultTransport.RoundTrip(r)
			})}
			p := provider.NewGemini(provider.Endpoint{BaseURL: url + tc.base, APIKey: "k", HTTPClient: client,
				Headers: map[string]string{"x-proxy-token": "t1"}})
			req := geminiRequest()
			req.Model.ID = tc.model
			if _, err := playEvents(context.Background(), p, req); err != nil {
				t.Fatal(err)
			}
			if got := captured()[0].target; got != tc.want {
				t.Errorf("target %s, want %s", got, tc.want)
			}
			if headers.Get("X-Proxy-Token") != "t1" {
				t.Errorf("headers %v", headers)
			}
		})
	}
}

// A model id that would change the request's path or query is refused before anything is
// sent.
func TestGeminiModelIDChecked(t *testing.T) {
	for _, id := range []string{"gemini?alt=json", "a&b", "../../files/x", ""} {
		url, captured := geminiCapture(t)
		req := geminiRequest()
		req.Model.ID = id
		_, err := playEvents(context.Background(), provider.NewGemini(provider.Endpoint{BaseURL: url, APIKey: "k"}), req)
		if err == nil || len(captured()) != 0 {
			t.Errorf("model %q: %v, %d requests", id, err, len(captured()))
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// How the stream is read, apart from what a chunk says: events end with a blank line (\n or
// \r\n), or with the body; comments and the other fields are skipped; a body that ends in
// the middle of an event is cut off; a line that is no field, an event that is not JSON or
// not a response are failures; an error object comes bare or as an event, of any shape; a
// candidate's finishMessage is the reason's explanation; a null candidate is no answer.
func TestGeminiStreamReading(t *testing.T) {
	const text = `{"candidates":[{"content":{"parts":[{"text":"a"}]}}],"responseId":"r"}`
	const stop = `{"candidates":[{"finishReason":"STOP"}]}`
	const answer = `start#0(text) delta*1(a) end#0 done(stop 0/0/0/0=0)`
	for _, tc := range []struct{ name, body, want string }{
		{"LF", "data: " + text + "\n\ndata: " + stop + "\n\n", answer},
		{"CRLF, no space", "data:" + text + "\r\n\r\ndata:" + stop + "\r\n\r\n", answer},
		{"last event ended by the body", "data: " + text + "\n\ndata: " + stop, answer},
		{"comments and other fields", ": keep-alive\n\nevent: chunk\nid: 1\nretry: 10\ndata: " + text + "\n\n: ping\n\ndata: " + stop + "\n\n", answer},
		{"cut in an event", "data: " + text + "\n\ndata: {\"candidates\":[{\"fin", `start#0(text) delta*1(a) end#0 ` +
			`error("the response stream was cut off before it finished" retryable=true overflow=false after=0s)`},
		{"not a field", "data: " + text + "\n\nnonsense\n\n", `start#0(text) delta*1(a) end#0 ` +
			`error("a stream line is not a server-sent event: \"nonsense\"" retryable=false overflow=false after=0s)`},
		{"not JSON", "data: {x}\n\n", `error("a stream event is not JSON (invalid character 'x' looking for beginning of object key string): \"{x}\"" retryable=false overflow=false after=0s)`},
		{"not a response", `data: {"candidates":{}}` + "\n\n", `error("a stream event does not read as a Gemini response ` +
			`(json: cannot unmarshal object into Go struct field geminiResponse.candidates of type []provider.geminiCandidate): \"{\\\"candidates\\\":{}}\"" retryable=false overflow=false after=0s)`},
		{"bare error object", "data: " + text + "\n\n" + `{"error":{"code":503,"message":"busy","status":"UNAVAILABLE"}}` + "\n",
			`start#0(text) delta*1(a) end#0 error("UNAVAILABLE: busy" retryable=true overflow=false after=0s)`},
		{"error event of another shape", `data: {"error":{"code":"QUOTA","message":"slow down"}}` + "\n\n",
			`error("QUOTA: slow down" retryable=false overflow=false after=0s)`},
		{"error as a string", `data: {"error":"Internal error encountered."}` + "\n\n",
			`error("Internal error encountered." retryable=false overflow=false after=0s)`},
		{"error with a numeric code only", `data: {"error":{"code":500,"message":"oops"}}` + "\n\n",
			`error("oops" retryable=true overflow=false after=0s)`},
		{"finish message", `data: {"candidates":[{"finishReason":"MALFORMED_FUNCTION_CALL","finishMessage":"Malformed function call: read(path=)"}]}` + "\n\n",
			`error("MALFORMED_FUNCTION_CALL: Malformed function call: read(path=)" retryable=false overflow=false after=0s)`},
		{"null candidate and part", `data: {"candidates":[{"content":{"parts":[null,{"text":"a"}]}}]}` + "\n\n" +
			`data: {"candidates":[null]}` + "\n\ndata: " + stop + "\n\n", answer},
		{"call with an id, arguments kept as sent", `data: {"candidates":[{"content":{"parts":[{"functionCall":{"id":"f1","name":"bash","args":{"command":"a && b <c"}}}]},"finishReason":"STOP"}]}` + "\n\n",
			`start#0(toolCall f1 bash) delta*1({"command":"a && b <c"}) end#0 done(toolUse 0/0/0/0=0)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := geminiRaw(t, 0, tc.body)
			evs, err := playEvents(context.Background(), p, geminiRequest())
			completionsCollect(t, evs, err)
			if got := anthropicOutcome(evs, err); got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// A request's failure before any answer: a server on this machine that cannot be reached
// is a final connection failure (not retried), and nothing else is sent.
func TestGeminiUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	_, err := playEvents(context.Background(), provider.NewGemini(provider.Endpoint{BaseURL: url, APIKey: "k"}), geminiRequest())
	var perr *provider.Error
	if !errors.As(err, &perr) || perr.Retryable || !strings.HasPrefix(perr.Message, "connection failed: ") {
		t.Errorf("got %T %v", err, err)
	}
}

// Without a key, no key header is sent (a server that needs none gets none).
func TestGeminiNoKey(t *testing.T) {
	url, captured := geminiCapture(t)
	if _, err := playEvents(context.Background(), provider.NewGemini(provider.Endpoint{BaseURL: url}), geminiRequest()); err != nil {
		t.Fatal(err)
	}
	if r := captured()[0]; r.key != "" {
		t.Errorf("key header %q", r.key)
	}
}
