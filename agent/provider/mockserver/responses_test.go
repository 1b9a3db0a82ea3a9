package mockserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/basecontext/base-context/agent/provider"
)

// responsesEvent is one SSE event as the client receives it.
type responsesEvent struct {
	Name string
	Data map[string]any
}

// responsesPost sends one request to a server playing script and reads the raw answer.
func responsesPost(t *testing.T, script, body string) (*http.Response, []byte) {
	t.Helper()
	resp, out, err := post(t, script, "/v1/responses", body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, out
}

// responsesEvents parses an SSE body, checking that each event's name is its data's type
// and that sequence numbers count up from 0.
func responsesEvents(t *testing.T, body []byte) []responsesEvent {
	t.Helper()
	var evs []responsesEvent
	sc := bufio.NewScanner(bytes.NewReader(body))
	var name string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var data map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &data); err != nil {
				t.Fatalf("data is not JSON: %s", line)
			}
			if data["type"] != name {
				t.Errorf("event %q carries type %v", name, data["type"])
			}
			if seq, _ := data["sequence_number"].(float64); int(seq) != len(evs) {
				t.Errorf("event %d has sequence_number %v", len(evs), data["sequence_number"])
			}
			evs = append(evs, responsesEvent{name, data})
		case line == "":
		default:
			t.Errorf("unexpected line %q", line)
		}
	}
	return evs
}

func responsesNames(evs []responsesEvent) []string {
	var names []string
	for _, e := range evs {
		names = append(names, e.Name)
	}
	return names
}

func TestResponsesStreamShape(t *testing.T) {
	resp, body := responsesPost(t, `{"responses":[{"thinking":["a","b"],"text":["c"],
		"tool_calls":[{"id":"call_1","name":"bash","args":["{\"command\":","\"ls\"}"]}],
		"usage":{"input":10,"output":5,"cacheRead":4,"cacheWrite":1}}]}`,
		`{"model":"m","include":["reasoning.encrypted_content"],"stream":true}`)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	evs := responsesEvents(t, body)
	want := []string{
		"response.created", "response.in_progress",
		"response.output_item.added", "response.reasoning_summary_part.added",
		"response.reasoning_summary_text.delta", "response.reasoning_summary_text.delta",
		"response.reasoning_summary_text.done", "response.reasoning_summary_part.done", "response.output_item.done",
		"response.output_item.added", "response.content_part.added", "response.output_text.delta",
		"response.output_text.done", "response.content_part.done", "response.output_item.done",
		"response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.delta",
		"response.function_call_arguments.done", "response.output_item.done",
		"response.completed",
	}
	if got := responsesNames(evs); !reflect.DeepEqual(got, want) {
		t.Fatalf("events\n%v\nwant\n%v", got, want)
	}
	reasoning := evs[8].Data["item"].(map[string]any)
	if reasoning["encrypted_content"] != "enc_YWI=" || reasoning["id"] != "rs_1_0" {
		t.Errorf("reasoning item %v", reasoning)
	}
	call := evs[19].Data["item"].(map[string]any)
	if call["call_id"] != "call_1" || call["arguments"] != `{"command":"ls"}` || call["name"] != "bash" || call["status"] != "completed" {
		t.Errorf("function call %v", call)
	}
	final := evs[len(evs)-1].Data["response"].(map[string]any)
	usage, _ := json.Marshal(final["usage"])
	if string(usage) != `{"input_tokens":15,"input_tokens_details":{"cached_tokens":4},"output_tokens":5,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":20}` {
		t.Errorf("usage %s", usage)
	}
	if final["id"] != "resp_1" || final["status"] != "completed" || len(final["output"].([]any)) != 3 {
		t.Errorf("final response %v", final)
	}
}

func TestResponsesStreamEndings(t *testing.T) {
	cases := []struct {
		name, entry string
		last        string
		check       func(t *testing.T, last map[string]any)
	}{
		{"length", `{"text":["a"],"finish_reason":"length"}`, "response.incomplete", func(t *testing.T, last map[string]any) {
			r := last["response"].(map[string]any)
			if r["status"] != "incomplete" || r["incomplete_details"].(map[string]any)["reason"] != "max_output_tokens" {
				t.Errorf("incomplete response %v", r)
			}
		}},
		{"stream error", `{"text":["a"],"stream_error":{"code":"server_error","message":"boom"}}`, "error", func(t *testing.T, last map[string]any) {
			if last["code"] != "server_error" || last["message"] != "boom" {
				t.Errorf("error event %v", last)
			}
		}},
		{"no finish", `{"text":["a"],"no_finish":true}`, "response.output_item.done", nil},
		{"no encrypted content unless asked", `{"thinking":["a"]}`, "response.completed", func(t *testing.T, last map[string]any) {
			item := last["response"].(map[string]any)["output"].([]any)[0].(map[string]any)
			if _, ok := item["encrypted_content"]; ok {
				t.Errorf("encrypted content sent unasked: %v", item)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, body := responsesPost(t, `{"responses":[`+c.entry+`]}`, `{"model":"m"}`)
			evs := responsesEvents(t, body)
			last := evs[len(evs)-1]
			if last.Name != c.last {
				t.Fatalf("last event %s, want %s", last.Name, c.last)
			}
			if c.check != nil {
				c.check(t, last.Data)
			}
		})
	}
}

func TestResponsesErrorEnvelope(t *testing.T) {
	resp, body := responsesPost(t, `{"responses":[{"status":429,"message":"a \"quoted\" limit","headers":{"retry-after":"3"}}]}`, `{}`)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "3" {
		t.Errorf("status %d, headers %v", resp.StatusCode, resp.Header)
	}
	if string(body) != `{"error":{"message":"a \"quoted\" limit"}}` {
		t.Errorf("body %s", body)
	}
	if msg := provider.BodyMessage(body); msg != `a "quoted" limit` {
		t.Errorf("message %q", msg)
	}
}
