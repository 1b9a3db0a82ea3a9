package mockserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/basecontext/base-context/agent/provider"
)

// chatPost sends one chat completions request and returns the response and its whole body
// (with the error that ended reading it, for cut-off streams).
func chatPost(t *testing.T, script string, reqBody string) (*http.Response, string, error) {
	t.Helper()
	res, body, err := post(t, script, "/v1/chat/completions", reqBody)
	return res, string(body), err
}

// chatData returns the data of each SSE event of body.
func chatData(t *testing.T, body string) []string {
	t.Helper()
	var out []string
	for _, ev := range strings.Split(body, "\n\n") {
		if ev == "" {
			continue
		}
		if !strings.HasPrefix(ev, "data: ") || strings.Contains(ev, "\n") {
			t.Fatalf("not a single data line: %q", ev)
		}
		out = append(out, strings.TrimPrefix(ev, "data: "))
	}
	return out
}

// chatDeltas renders each chunk as its delta, finish reason and usage, for comparison.
func chatDeltas(t *testing.T, data []string) []string {
	t.Helper()
	var out []string
	for _, d := range data {
		if d == "[DONE]" {
			out = append(out, d)
			continue
		}
		var c struct {
			ID      string `json:"id"`
			Object  string `json:"object"`
			Model   string `json:"model"`
			Choices []struct {
				Delta        json.RawMessage `json:"delta"`
				FinishReason *string         `json:"finish_reason"`
			} `json:"choices"`
			Usage json.RawMessage `json:"usage"`
			Error json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal([]byte(d), &c); err != nil {
			t.Fatalf("%v: %s", err, d)
		}
		switch {
		case c.Error != nil:
			out = append(out, "error "+string(c.Error))
			continue
		case c.ID != "chatcmpl-mock-1" || c.Object != "chat.completion.chunk" || c.Model != "gpt-test":
			t.Errorf("chunk header: %s", d)
		}
		if c.Usage != nil {
			out = append(out, "usage "+string(c.Usage))
		}
		for _, ch := range c.Choices {
			s := string(ch.Delta)
			if ch.FinishReason != nil {
				s += " finish=" + *ch.FinishReason
			}
			out = append(out, s)
		}
	}
	return out
}

const chatReq = `{"model":"gpt-test","stream":true,"stream_options":{"include_usage":true},"messages":[]}`

func chatExpect(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("chunks\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
}

func TestChatStream(t *testing.T) {
	res, body, err := chatPost(t, `{"responses":[{"thinking":["Hm."],"text":["Hi"," there"],
		"tool_calls":[{"id":"c1","name":"bash","args":["{\"a\"",":1}"]},{"id":"c2","name":"read","args":[]}],
		"usage":{"input":10,"output":5,"cacheRead":4,"cacheWrite":2}}]}`, chatReq)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	chatExpect(t, chatDeltas(t, chatData(t, body)), []string{
		`{"content":"","refusal":null,"role":"assistant"}`,
		`{"reasoning_content":"Hm."}`,
		`{"content":"Hi"}`,
		`{"content":" there"}`,
		`{"tool_calls":[{"function":{"arguments":"","name":"bash"},"id":"c1","index":0,"type":"function"}]}`,
		`{"tool_calls":[{"function":{"arguments":"{\"a\""},"index":0}]}`,
		`{"tool_calls":[{"function":{"arguments":":1}"},"index":0}]}`,
		`{"tool_calls":[{"function":{"arguments":"","name":"read"},"id":"c2","index":1,"type":"function"}]}`,
		`{} finish=tool_calls`,
		`usage {"completion_tokens":5,"completion_tokens_details":{"accepted_prediction_tokens":0,"audio_tokens":0,"reasoning_tokens":0,"rejected_prediction_tokens":0},` +
			`"prompt_tokens":16,"prompt_tokens_details":{"audio_tokens":0,"cache_write_tokens":2,"cached_tokens":4},"total_tokens":21}`,
		`[DONE]`,
	})
}

// Usage is sent only when the request asked for it, as OpenAI does.
func TestChatUsageOnlyWhenAsked(t *testing.T) {
	_, body, _ := chatPost(t, `{"responses":[{"text":["x"],"finish_reason":"length","usage":{"input":1,"output":1}}]}`,
		`{"model":"gpt-test","stream":true,"messages":[]}`)
	chatExpect(t, chatDeltas(t, chatData(t, body)), []string{
		`{"content":"","refusal":null,"role":"assistant"}`, `{"content":"x"}`, `{} finish=length`, `[DONE]`,
	})
}

func TestChatStreamError(t *testing.T) {
	_, body, _ := chatPost(t, `{"responses":[{"text":["x"],"stream_error":{"type":"server_error","message":"boom"}}]}`, chatReq)
	chatExpect(t, chatDeltas(t, chatData(t, body)), []string{
		`{"content":"","refusal":null,"role":"assistant"}`, `{"content":"x"}`,
		`error {"code":null,"message":"boom","param":null,"type":"server_error"}`,
	})
}

func TestChatNoFinish(t *testing.T) {
	_, body, _ := chatPost(t, `{"responses":[{"text":["x"],"no_finish":true}]}`, chatReq)
	chatExpect(t, chatDeltas(t, chatData(t, body)), []string{
		`{"content":"","refusal":null,"role":"assistant"}`, `{"content":"x"}`, `[DONE]`,
	})
}

// A cut ends the body with a read error after the chunks before it, and never [DONE].
func TestChatCut(t *testing.T) {
	for _, reset := range []bool{false, true} {
		script := `{"responses":[{"text":["a","b","c"],"cut_after":2,"reset":` + map[bool]string{false: "false", true: "true"}[reset] + `}]}`
		_, body, err := chatPost(t, script, chatReq)
		if err == nil {
			t.Errorf("reset=%v: the body ended cleanly", reset)
		}
		if !strings.HasSuffix(body, "\n\n") {
			t.Errorf("reset=%v: partial event in %q", reset, body)
		}
		chatExpect(t, chatDeltas(t, chatData(t, body)), []string{
			`{"content":"","refusal":null,"role":"assistant"}`, `{"content":"a"}`, `{"content":"b"}`,
		})
	}
}

// An error entry's message goes out in OpenAI's envelope, correctly escaped; a body is sent
// as it is, with the entry's headers.
func TestChatErrorBody(t *testing.T) {
	res, body, _ := chatPost(t, `{"responses":[{"status":429,"message":"slow \"down\"\n","headers":{"retry-after":"3"}}]}`, chatReq)
	if res.StatusCode != 429 || res.Header.Get("Retry-After") != "3" || res.Header.Get("Content-Type") != "application/json" {
		t.Errorf("status %d headers %v", res.StatusCode, res.Header)
	}
	if want := `{"error":{"message":"slow \"down\"\n"}}`; body != want {
		t.Errorf("body %s, want %s", body, want)
	}
	if got := provider.BodyMessage([]byte(body)); got != "slow \"down\"\n" {
		t.Errorf("message read back as %q", got)
	}
	_, body, _ = chatPost(t, `{"responses":[{"status":502,"body":"upstream <b>down</b>"}]}`, chatReq)
	if body != "upstream <b>down</b>" {
		t.Errorf("raw body %q", body)
	}
}

// A request body that is not JSON is refused in the protocol's envelope.
func TestChatBadRequest(t *testing.T) {
	res, body, _ := chatPost(t, `{"responses":[{"text":["x"]}]}`, `{not json`)
	if res.StatusCode != 400 || !bytes.Contains([]byte(body), []byte(`"message":"mock server: the request body is not JSON"`)) {
		t.Errorf("status %d body %s", res.StatusCode, body)
	}
}
