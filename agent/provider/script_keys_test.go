package provider_test

import (
	"strings"
	"testing"

	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/codec"
)

// A typo in a script is an error naming the key, at every level, instead of an entry that
// silently plays something else.
func TestParseScriptUnknownKey(t *testing.T) {
	for in, key := range map[string]string{
		`{"responses":[{"txt":["hi"]}]}`:                                      `unknown key "txt"`,
		`{"responses":[{"text":["hi"]}],"respones":[]}`:                       `unknown key "respones"`,
		`{"responses":[{"tool_calls":[{"id":"a","name":"ls","arg":"{}"}]}]}`:  `unknown key "arg"`,
		`{"responses":[{"text":["hi"],"usage":{"inptu":1}}]}`:                 `unknown key "inptu"`,
		`{"responses":[{"text":["a"]},{"status":500,"mesage":"overloaded"}]}`: `response 2: unknown key "mesage"`,
	} {
		_, err := provider.ParseScript([]byte(in))
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("ParseScript(%s) = %v, want an error with %q", in, err, key)
		}
	}
}

// quote_tool_result adds the text of the request's last tool result as one more text chunk.
func TestScriptQuoteToolResult(t *testing.T) {
	s, err := provider.ParseScript([]byte(`{"responses":[{"text":["Found:\n"],"quote_tool_result":true}]}`))
	if err != nil {
		t.Fatal(err)
	}
	req := scriptRequest()
	req.Messages = append(req.Messages,
		&codec.ToolResultMessage{ToolCallID: "1", ToolName: "ls", Content: []codec.Content{&codec.TextContent{Text: "old"}}},
		&codec.ToolResultMessage{ToolCallID: "2", ToolName: "ls", Content: []codec.Content{&codec.TextContent{Text: "a.txt\nb/"}}})
	events, err := scriptPlay(t, s, req)
	if err != nil {
		t.Fatal(err)
	}
	var deltas []string
	for _, e := range events {
		if e.Kind == provider.BlockDelta {
			deltas = append(deltas, e.Delta)
		}
	}
	if got := strings.Join(deltas, "|"); got != "Found:\n|a.txt\nb/" {
		t.Errorf("text chunks %q, want the script's then the last tool result", got)
	}
}

// The built-in script's answer carries the listing its ls call returned.
func TestDefaultScriptShowsTheListing(t *testing.T) {
	s, err := provider.DefaultScript()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := scriptPlay(t, s, scriptRequest()); err != nil { // the ls call
		t.Fatal(err)
	}
	req := scriptRequest()
	req.Messages = append(req.Messages,
		&codec.ToolResultMessage{ToolCallID: "call_ls_1", ToolName: "ls", Content: []codec.Content{&codec.TextContent{Text: "go.mod\nmain.go"}}})
	events, err := scriptPlay(t, s, req)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, e := range events {
		if e.Kind == provider.BlockDelta {
			text.WriteString(e.Delta)
		}
	}
	if !strings.HasSuffix(text.String(), ":\n\ngo.mod\nmain.go") {
		t.Errorf("answer %q does not end with the listing", text.String())
	}
}
