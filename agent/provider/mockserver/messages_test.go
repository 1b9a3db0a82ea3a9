package mockserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// messagesPost sends one Messages request to a server playing script and returns the
// status and the raw body.
func messagesPost(t *testing.T, script string) (int, http.Header, string) {
	t.Helper()
	resp, body, _ := post(t, script, "/v1/messages", `{"model":"mock-claude","max_tokens":100,"stream":true,"messages":[]}`)
	return resp.StatusCode, resp.Header, string(body)
}

// messagesEvents splits an SSE body into "name data" lines, checking that each event's
// data is JSON whose type is the event's name.
func messagesEvents(t *testing.T, body string) []string {
	t.Helper()
	var out []string
	for _, ev := range strings.Split(strings.TrimSuffix(body, "\n\n"), "\n\n") {
		name, data, ok := strings.Cut(ev, "\n")
		if !ok || !strings.HasPrefix(name, "event: ") || !strings.HasPrefix(data, "data: ") {
			t.Fatalf("malformed event %q", ev)
		}
		name, data = strings.TrimPrefix(name, "event: "), strings.TrimPrefix(data, "data: ")
		var head struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal([]byte(data), &head); err != nil || head.Type != name {
			t.Fatalf("event %s: data %s", name, data)
		}
		if name != "ping" && !strings.HasPrefix(data, `{"type":"`+name+`"`) {
			t.Errorf("event %s: type is not the first key: %s", name, data)
		}
		out = append(out, name+" "+data)
	}
	return out
}

func TestMessagesStream(t *testing.T) {
	status, header, body := messagesPost(t, `{"responses":[{"thinking":["Hm."],"text":["Hi"],
		"tool_calls":[{"id":"toolu_1","name":"bash","args":["{\"command\":","\"ls\"}"]}],
		"usage":{"input":10,"output":5,"cacheRead":3,"cacheWrite":2}}]}`)
	if status != 200 || header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, content type %q", status, header.Get("Content-Type"))
	}
	want := []string{
		`message_start {"type":"message_start","message":{"id":"msg_mock_1","type":"message","role":"assistant","model":"mock-claude","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"cache_creation_input_tokens":2,"cache_read_input_tokens":3,"output_tokens":1}}}`,
		`ping {"type": "ping"}`,
		`content_block_start {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
		`content_block_delta {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Hm."}}`,
		`content_block_delta {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"mock-signature-1"}}`,
		`content_block_stop {"type":"content_block_stop","index":0}`,
		`content_block_start {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`,
		`content_block_delta {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hi"}}`,
		`content_block_stop {"type":"content_block_stop","index":1}`,
		`content_block_start {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"bash","input":{}}}`,
		`content_block_delta {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"command\":"}}`,
		`content_block_delta {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"\"ls\"}"}}`,
		`content_block_stop {"type":"content_block_stop","index":2}`,
		`message_delta {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":5}}`,
		`message_stop {"type":"message_stop"}`,
	}
	got := messagesEvents(t, body)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// tail returns the names of the last n events.
func tail(events []string, n int) string {
	var names []string
	for _, e := range events[max(0, len(events)-n):] {
		name, _, _ := strings.Cut(e, " ")
		names = append(names, name)
	}
	return strings.Join(names, " ")
}

func TestMessagesFaults(t *testing.T) {
	t.Run("stream error", func(t *testing.T) {
		_, _, body := messagesPost(t, `{"responses":[{"text":["a"],"stream_error":{"type":"overloaded_error","message":"Overloaded"}}]}`)
		ev := messagesEvents(t, body)
		if last := ev[len(ev)-1]; last != `error {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}` {
			t.Errorf("last event %s", last)
		}
		if tail(ev, 2) != "content_block_stop error" {
			t.Errorf("ends with %s", tail(ev, 2))
		}
	})
	t.Run("no finish", func(t *testing.T) {
		_, _, body := messagesPost(t, `{"responses":[{"text":["a"],"no_finish":true}]}`)
		if ev := messagesEvents(t, body); tail(ev, 1) != "content_block_stop" {
			t.Errorf("ends with %s", tail(ev, 1))
		}
	})
	t.Run("cut", func(t *testing.T) {
		_, _, body := messagesPost(t, `{"responses":[{"text":["a","b"],"cut_after":1}]}`)
		if ev := messagesEvents(t, body); tail(ev, 2) != "content_block_start content_block_delta" {
			t.Errorf("ends with %s", tail(ev, 2))
		}
	})
	t.Run("error envelope", func(t *testing.T) {
		status, _, body := messagesPost(t, `{"responses":[{"status":529,"message":"Overloaded \"now\""}]}`)
		if status != 529 || body != `{"error":{"message":"Overloaded \"now\""}}` {
			t.Errorf("status %d body %s", status, body)
		}
	})
}
