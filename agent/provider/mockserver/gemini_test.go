package mockserver

import (
	"strings"
	"testing"
)

// geminiPost sends one streamGenerateContent request to a server playing script and returns
// the status and the data lines.
func geminiPost(t *testing.T, script string) (int, []string) {
	t.Helper()
	resp, body, _ := post(t, script, "/v1beta/models/gemini-mock:streamGenerateContent?alt=sse", `{"contents":[]}`)
	var data []string
	for _, ev := range strings.Split(strings.TrimSuffix(string(body), "\n\n"), "\n\n") {
		if !strings.HasPrefix(ev, "data: ") {
			t.Fatalf("malformed event %q", ev)
		}
		data = append(data, strings.TrimPrefix(ev, "data: "))
	}
	return resp.StatusCode, data
}

func TestGeminiStream(t *testing.T) {
	status, data := geminiPost(t, `{"responses":[{"thinking":["Hm","m."],"text":["Hi"],
		"tool_calls":[{"id":"c1","name":"bash","args":["{\"command\":","\"ls\"}"]},{"id":"c2","name":"read","args":[]}],
		"usage":{"input":10,"output":5,"cacheRead":3,"cacheWrite":2}}]}`)
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	const tail = `"modelVersion":"gemini-mock","responseId":"gemini-mock-1"}`
	want := []string{
		`{"candidates":[{"content":{"parts":[{"text":"Hm","thought":true}],"role":"model"},"index":0}],` + tail,
		`{"candidates":[{"content":{"parts":[{"text":"m.","thought":true,"thoughtSignature":"` + GeminiSignature("thought", 1) + `"}],"role":"model"},"index":0}],` + tail,
		`{"candidates":[{"content":{"parts":[{"text":"Hi"}],"role":"model"},"index":0}],` + tail,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"args":{"command":"ls"},"id":"c1","name":"bash"},"thoughtSignature":"` + GeminiSignature("call", 1) + `"},` +
			`{"functionCall":{"args":{},"id":"c2","name":"read"}}],"role":"model"},"index":0}],` + tail,
		`{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":0}],"modelVersion":"gemini-mock","responseId":"gemini-mock-1",` +
			`"usageMetadata":{"cachedContentTokenCount":3,"candidatesTokenCount":5,"promptTokenCount":15,"totalTokenCount":20}}`,
	}
	if strings.Join(data, "\n") != strings.Join(want, "\n") {
		t.Errorf("\n got %s\nwant %s", strings.Join(data, "\n"), strings.Join(want, "\n"))
	}
}

func TestGeminiFaults(t *testing.T) {
	_, data := geminiPost(t, `{"responses":[{"text":["a"],"stream_error":{"type":"UNAVAILABLE","message":"The model is overloaded."}}]}`)
	if last := data[len(data)-1]; last != `{"error":{"code":500,"message":"The model is overloaded.","status":"UNAVAILABLE"}}` {
		t.Errorf("stream error: %s", last)
	}
	_, data = geminiPost(t, `{"responses":[{"text":["a"],"no_finish":true}]}`)
	if len(data) != 1 || strings.Contains(data[0], "finishReason") {
		t.Errorf("no finish: %q", data)
	}
	status, body := func() (int, string) {
		resp, body, _ := post(t, `{"responses":[{"status":429,"message":"slow down"}]}`, "/v1beta/models/m:streamGenerateContent", `{}`)
		return resp.StatusCode, string(body)
	}()
	if status != 429 || body != `{"error":{"message":"slow down"}}` {
		t.Errorf("error status %d body %s", status, body)
	}
}
