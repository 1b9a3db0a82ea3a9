package provider_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/basecontext/base-context/agent/provider"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/basecontext/base-context/codec"
)

func scriptRequest() provider.Request {
	return provider.Request{
		Model:    provider.Model{ID: "script-model", Provider: "script", API: "script"},
		Messages: []codec.Message{&codec.UserMessage{Text: "hi", Timestamp: 1}},
		Tools:    []provider.ToolSpec{{Name: "read"}, {Name: "bash"}},
	}
}

// scriptPlay runs one request, with the test's fast clock, and returns the events.
func scriptPlay(t *testing.T, s *provider.Script, req provider.Request) ([]provider.Event, error) {
	t.Helper()
	var evs []provider.Event
	err := s.Stream(context.Background(), req, func(e provider.Event) { evs = append(evs, e) })
	return evs, err
}

func TestScriptReference(t *testing.T) {
	want := map[string][]string{
		"b_tool_bash.json": {
			`meta(script-1) start#0(text) delta*3(Let me list the files.) end#0 start#1(toolCall call_ls_1 bash) delta*3({"command": "ls"}) end#1 done(toolUse 200/15/0/0=215)`,
			`meta(script-2) start#0(text) delta*4(The directory contains one file: ` + "`hello.txt`" + `.) end#0 done(stop 260/9/0/0=269)`,
			`meta(script-3) start#0(text) delta*4(The directory contains one file: ` + "`hello.txt`" + `.) end#0 done(stop 260/9/0/0=269)`,
		},
		"a_text.json": {
			`meta(script-1) start#0(text) delta*10(Hello from the mock model. This is chunk ten.) end#0 done(stop 120/10/0/0=130)`,
		},
		"a0_text_burst.json": {
			`meta(script-1) start#0(text) delta*10(Hello from the mock model. This is chunk ten.) end#0 done(stop 120/10/0/0=130)`,
		},
		"b2_tools_parallel.json": {
			`meta(script-1) start#0(toolCall call_read_1 read) delta*2({"path": "hello.txt"}) end#0 start#1(toolCall call_bash_2 bash) delta*2({"command": "echo hi && wc -c hello.txt"}) end#1 done(toolUse 200/20/0/0=220)`,
			`meta(script-2) start#0(text) delta*3(hello.txt says hello; bash printed hi.) end#0 done(stop 300/8/0/0=308)`,
		},
		"c_thinking_anthropic.json": {
			`meta(script-1) start#0(thinking) delta*5(The user wants a short answer. 2+2=4.) end#0 start#1(text) delta*2(2 + 2 = 4.) end#1 done(stop 150/30/0/0=180)`,
		},
		"c2_thinking_openai.json": {
			`meta(script-1) start#0(thinking) delta*5(The user wants a short answer. 2+2=4.) end#0 start#1(text) delta*2(2 + 2 = 4.) end#1 done(stop 150/30/0/0=180)`,
		},
		"d1_retry_then_success.json": {
			`error 500 mock internal error retryable`,
			`error 429 mock rate limit retryable`,
			`meta(script-3) start#0(text) delta*3(Recovered after two retries.) end#0 done(stop 120/3/0/0=123)`,
			`meta(script-4) start#0(text) delta*3(Recovered after two retries.) end#0 done(stop 120/3/0/0=123)`,
		},
		"d2_error_final.json": {
			`error 500 mock internal error retryable`,
			`error 500 mock internal error retryable`,
			`error 500 mock internal error retryable`,
		},
		"d3_sdk_retry.json": {
			`error 503 mock unavailable retryable`,
			`meta(script-2) start#0(text) delta*3(Hidden SDK retry succeeded.) end#0 done(stop 120/3/0/0=123)`,
		},
		"d4_error_400.json": {
			`error 400 mock bad request: invalid parameter final`,
		},
		"e_unknown_model.json": {
			`meta(script-1) start#0(text) delta*4(Answer from an unlisted model id.) end#0 done(stop 120/4/0/0=124)`,
		},
	}
	files, _ := filepath.Glob(filepath.Join(referenceScripts, "*.json"))
	if len(files) == 0 {
		t.Fatal("no reference scripts in " + referenceScripts)
	}
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			s, _ := loadScript(t, data)
			exp, ok := want[name]
			if !ok {
				// Scripts without an expectation (f_long) must at least scriptPlay cleanly.
				evs, err := scriptPlay(t, s, scriptRequest())
				if err != nil || len(evs) < 2 || evs[len(evs)-1].Kind != provider.Done {
					t.Fatalf("play: %v, %d events", err, len(evs))
				}
				return
			}
			for i, w := range exp {
				evs, err := scriptPlay(t, s, scriptRequest())
				var got string
				if err != nil {
					var pe *provider.Error
					if !errors.As(err, &pe) {
						t.Fatalf("request %d: %v", i+1, err)
					}
					if len(evs) != 0 {
						t.Errorf("request %d: error entry emitted %d events", i+1, len(evs))
					}
					r := "final"
					if pe.Retryable {
						r = "retryable"
					}
					got = fmt.Sprintf("error %d %s %s", pe.Status, pe.Message, r)
				} else {
					got = summarize(evs, true)
				}
				if got != w {
					t.Errorf("request %d:\n got %s\nwant %s", i+1, got, w)
				}
			}
			if s.Requests() != len(exp) {
				t.Errorf("Requests() = %d, want %d", s.Requests(), len(exp))
			}
		})
	}
}

func TestScriptLongReference(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(referenceScripts, "f_long.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := loadScript(t, data)
	evs, err := scriptPlay(t, s, scriptRequest())
	if err != nil {
		t.Fatal(err)
	}
	// provider.Metadata, start, 2000 deltas, end, done.
	if len(evs) != 2004 || evs[2].Delta != "0000 " || evs[2001].Delta != "1999 " {
		t.Errorf("got %d events", len(evs))
	}
}

func TestScriptEmptyBlocksAndFinishReason(t *testing.T) {
	s, err := provider.ParseScript([]byte(`{"responses":[
		{"thinking":[],"text":[],"usage":{"input":1,"output":2}},
		{},
		{"text":["x"],"finish_reason":"length","usage":{"input":5,"output":7,"cacheRead":11,"cacheWrite":13}},
		{"tool_calls":[{"id":"c","name":"n","args":["{}"]}],"finish_reason":"stop"},
		{"text":"one chunk","tool_calls":[{"id":"c2","name":"n2","args":[]}],"finish_reason":"tool_calls"},
		{"thinking":null,"tool_calls":[{"id":"c3","name":"n3","args":{"a": 1}}],"finish_reason":"toolUse"}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []string{
		`meta(script-1) done(stop 1/2/0/0=3)`,
		`meta(script-2) done(stop 0/0/0/0=0)`,
		`meta(script-3) start#0(text) delta*1(x) end#0 done(length 5/7/11/13=36)`,
		`meta(script-4) start#0(toolCall c n) delta*1({}) end#0 done(stop 0/0/0/0=0)`,
		`meta(script-5) start#0(text) delta*1(one chunk) end#0 start#1(toolCall c2 n2) end#1 done(toolUse 0/0/0/0=0)`,
		`meta(script-6) start#0(toolCall c3 n3) delta*1({"a":1}) end#0 done(toolUse 0/0/0/0=0)`,
	} {
		evs, err := scriptPlay(t, s, scriptRequest())
		if err != nil {
			t.Fatal(err)
		}
		if got := summarize(evs, true); got != w {
			t.Errorf("request %d:\n got %s\nwant %s", i+1, got, w)
		}
		for _, e := range evs {
			if e.Kind == provider.Done && !e.HasUsage {
				t.Errorf("request %d: Done without HasUsage", i+1)
			}
		}
	}
}

func TestScriptCost(t *testing.T) {
	s, err := provider.ParseScript([]byte(`{"responses":[{"text":["a"],"usage":{"input":1000000,"output":500000,"cacheRead":2000,"cacheWrite":100}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	req := scriptRequest()
	req.Model.Cost = provider.Prices{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}
	evs, err := scriptPlay(t, s, req)
	if err != nil {
		t.Fatal(err)
	}
	done := evs[len(evs)-1]
	c := done.Usage.Cost
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	if !near(c.Input, 3) || !near(c.Output, 7.5) || !near(c.CacheRead, 0.0006) || !near(c.CacheWrite, 0.000375) ||
		!near(c.Total, 3+7.5+0.0006+0.000375) {
		t.Errorf("cost %+v", c)
	}
	if done.Usage.TotalTokens != 1502100 {
		t.Errorf("total tokens %d", done.Usage.TotalTokens)
	}
}

func TestScriptErrorEntries(t *testing.T) {
	cases := []struct {
		entry     string
		status    int
		msg       string
		retryable bool
	}{
		{`{"status":500,"message":"boom"}`, 500, "boom", true},
		{`{"status":400,"message":"bad"}`, 400, "bad", false},
		{`{"status":400,"message":"Provider is Overloaded"}`, 400, "Provider is Overloaded", true},
		{`{"status":400,"message":"hit the rate limit"}`, 400, "hit the rate limit", true},
		{`{"status":408,"message":"slow"}`, 408, "slow", true},
		{`{"status":429,"body":{"error":{"message":"slow down","type":"rate_limit_error"}}}`, 429, "rate_limit_error: slow down", true},
		{`{"status":529,"body":{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}}`, 529, "overloaded_error: Overloaded", true},
		{`{"status":401,"body":{"error":{"message":"bad key","type":"invalid_request_error","code":"invalid_api_key"}}}`, 401, "invalid_api_key: bad key", false},
		{`{"status":404,"body":{"error":{"message":"no such model"}}}`, 404, "no such model", false},
		{`{"status":400,"body":{"message":"flat","code":"E42"}}`, 400, "E42: flat", false},
		{`{"status":400,"body":{"message":"flat only"}}`, 400, "flat only", false},
		{`{"status":400,"body":{"error":"just a string"}}`, 400, "just a string", false},
		{`{"status":502,"body":"Bad Gateway"}`, 502, "Bad Gateway", true},
		{`{"status":400,"body":"{\"error\":{\"message\":\"json in a string\",\"type\":\"t\"}}"}`, 400, "t: json in a string", false},
		{`{"status":400,"body":{"weird":true}}`, 400, `{"weird":true}`, false},
		{`{"status":500}`, 500, "(empty error body)", true},
		{`{"status":500,"body":""}`, 500, "(empty error body)", true},
		{`{"status":500,"body":null}`, 500, "(empty error body)", true},
		{`{"status":500,"message":"","body":{"message":"from body"}}`, 500, "from body", true},
		{`{"status":400,"message":"m","headers":{"retry-after":"1","x-n":2}}`, 400, "m", false},
	}
	for _, c := range cases {
		s, err := provider.ParseScript([]byte(`{"responses":[` + c.entry + `]}`))
		if err != nil {
			t.Errorf("%s: %v", c.entry, err)
			continue
		}
		evs, err := scriptPlay(t, s, scriptRequest())
		var pe *provider.Error
		if !errors.As(err, &pe) {
			t.Errorf("%s: got %v, want *Error", c.entry, err)
			continue
		}
		if len(evs) != 0 {
			t.Errorf("%s: emitted %d events", c.entry, len(evs))
		}
		if pe.Status != c.status || pe.Message != c.msg || pe.Retryable != c.retryable {
			t.Errorf("%s: got %+v, want %d %q %v", c.entry, *pe, c.status, c.msg, c.retryable)
		}
		// Each request gets its own error value.
		_, err2 := scriptPlay(t, s, scriptRequest())
		if err2 == err {
			t.Errorf("%s: the same *Error returned twice", c.entry)
		}
	}
}

func TestParseScriptErrors(t *testing.T) {
	for _, in := range []string{
		``,
		`[]`,
		`{}`,
		`{"responses":[]}`,
		`{"responses":[{"text":[1]}]}`,
		`{"responses":[{"text":["a"],"finish_reason":"banana"}]}`,
		`{"responses":[{"message":"no status"}]}`,
		`{"responses":[{"tool_calls":[{"name":"x","args":[]}]}]}`,
		`{"responses":[{"tool_calls":[{"id":"x","name":"y","args":[1]}]}]}`,
		`{"responses":[{"delay_ms":-5}]}`,
		`{"responses":[{"usage":{"input":"x"}}]}`,
	} {
		if _, err := provider.ParseScript([]byte(in)); err == nil {
			t.Errorf("ParseScript(%s): want error", in)
		}
	}
	if _, err := provider.LoadScript(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("LoadScript of a missing file: want error")
	}
}

// A script's pause before a chunk ends when the context does, however long the pause: the
// delays here are an hour, so the test passes only if the wait is cut short (a hang is
// reported after a generous minute, never timed otherwise).
func TestScriptCancelDuringDelay(t *testing.T) {
	s, err := provider.ParseScript([]byte(`{"responses":[{"text":["a","b"],"delay_ms":3600000}]}`))
	if err != nil {
		t.Fatal(err)
	}
	stream := func(ctx context.Context, onEvent func(provider.Event)) ([]provider.Event, error) {
		var evs []provider.Event
		done := make(chan error, 1)
		go func() {
			done <- s.Stream(ctx, scriptRequest(), func(e provider.Event) {
				evs = append(evs, e)
				if onEvent != nil {
					onEvent(e)
				}
			})
		}()
		select {
		case err := <-done:
			return evs, err
		case <-time.After(time.Minute):
			t.Fatal("the script still waits a minute after its context ended")
			return nil, nil
		}
	}

	// Cancelled once the block has started: the pause before its first chunk ends.
	ctx, cancel := context.WithCancel(context.Background())
	evs, err := stream(ctx, func(e provider.Event) {
		if e.Kind == provider.BlockStart {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if got := summarize(evs, true); got != "meta(script-1) start#0(text)" {
		t.Errorf("events before cancel: %s", got)
	}

	// A context already done plays nothing.
	evs, err = stream(ctx, nil)
	if !errors.Is(err, context.Canceled) || len(evs) != 0 {
		t.Errorf("done context: %v, %d events", err, len(evs))
	}

	// A deadline while the script waits.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	evs, err = stream(ctx2, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	if got := summarize(evs, true); got != "meta(script-2) start#0(text)" {
		t.Errorf("events before the deadline: %s", got)
	}
}

func TestScriptDelayPaces(t *testing.T) {
	s, err := provider.ParseScript([]byte(`{"responses":[{"text":["a","b","c"],"delay_ms":15}]}`))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := scriptPlay(t, s, scriptRequest()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 45*time.Millisecond {
		t.Errorf("3 chunks at 15 ms took only %v", d)
	}
}

func TestScriptConcurrent(t *testing.T) {
	s, err := provider.ParseScript([]byte(`{"responses":[{"text":["1"]},{"text":["2"]},{"text":["3"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var rec bytes.Buffer
	s.RecordTo = &rec
	const n = 50
	var wg sync.WaitGroup
	ids := make(chan string, n)
	for range n {
		wg.Go(func() {
			var id string
			err := s.Stream(context.Background(), scriptRequest(), func(e provider.Event) {
				if e.Kind == provider.Metadata {
					id = e.ResponseID
				}
			})
			if err != nil {
				t.Error(err)
			}
			ids <- id
		})
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		if seen[id] {
			t.Errorf("response id %s twice", id)
		}
		seen[id] = true
	}
	if s.Requests() != n || len(seen) != n {
		t.Errorf("Requests() = %d, %d distinct ids", s.Requests(), len(seen))
	}
	if lines := strings.Count(rec.String(), "\n"); lines != n {
		t.Errorf("%d recorded lines", lines)
	}
}

func TestScriptRecord(t *testing.T) {
	s, err := provider.ParseScript([]byte(`{"responses":[{"text":["ok"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var rec bytes.Buffer
	s.RecordTo = &rec
	req := scriptRequest()
	if _, err := scriptPlay(t, s, req); err != nil {
		t.Fatal(err)
	}
	req.Messages = append(req.Messages, &codec.AssistantMessage{Content: []codec.Content{&codec.TextContent{Text: "ok"}}, StopReason: "stop"})
	req.Tools = nil
	if _, err := scriptPlay(t, s, req); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(rec.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("recorded %q", rec.String())
	}
	want := `{"model":"script-model","messages":[{"role":"user","content":"hi","timestamp":1}],"tools":["read","bash"]}`
	if lines[0] != want {
		t.Errorf("line 1:\n got %s\nwant %s", lines[0], want)
	}
	var second struct {
		Model    string            `json:"model"`
		Messages []json.RawMessage `json:"messages"`
		Tools    []string          `json:"tools"`
	}
	if err := json.Unmarshal([]byte(lines[1]), &second); err != nil {
		t.Fatal(err)
	}
	if len(second.Messages) != 2 || second.Tools == nil || len(second.Tools) != 0 {
		t.Errorf("line 2: %s", lines[1])
	}

	// A failing recorder fails the request.
	s.RecordTo = scriptFailWriter{}
	if _, err := scriptPlay(t, s, req); err == nil {
		t.Error("want an error from the recorder")
	}
}

type scriptFailWriter struct{}

func (scriptFailWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }
