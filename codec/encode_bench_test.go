package codec

import (
	"encoding/json"
	"strings"
	"testing"
)

// The encoders are on the agent's live path: a message_update per provider chunk, each
// with the snapshot of the message so far in the full form.

func benchAssistant() *AssistantMessage {
	return &AssistantMessage{
		Content: []Content{
			&ThinkingContent{Thinking: strings.Repeat("Weighing the options. ", 20), ThinkingSignature: "sig"},
			&TextContent{Text: strings.Repeat("Here is the plan, with \"quotes\" and a newline\n. ", 40)},
			&ToolCall{ID: "call_1", Name: "bash", Arguments: json.RawMessage(`{"command":"ls -la && go test ./..."}`)},
		},
		API: "anthropic-messages", Provider: "anthropic", Model: "claude-sonnet-4",
		Usage:      Usage{Input: 1200, Output: 345, CacheRead: 1000, TotalTokens: 2545, Cost: Cost{Input: 0.0036, Output: 0.005175, CacheRead: 0.0003, Total: 0.009075}},
		StopReason: StopReasonToolUse, Timestamp: 1796253263588, ResponseID: "msg_01",
	}
}

func benchEncode(b *testing.B, e Encoder) {
	buf := e.AppendJSON(nil)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		buf = e.AppendJSON(buf[:0])
	}
}

func BenchmarkEncodeMessageUpdate(b *testing.B) {
	m := benchAssistant()
	benchEncode(b, &MessageUpdate{Update: &AssistantMessageEvent{Type: UpdateTextDelta, ContentIndex: 1, Delta: "plan, ", Partial: m}, Message: m})
}

func BenchmarkEncodeMessageUpdateDelta(b *testing.B) {
	benchEncode(b, &MessageUpdate{MessageID: 3, Update: &AssistantMessageEvent{Type: UpdateTextDelta, ContentIndex: 1, Delta: "plan, "}})
}

func BenchmarkEncodeMessageEnd(b *testing.B) {
	benchEncode(b, &MessageEnd{Message: benchAssistant()})
}

func BenchmarkEncodeToolExecutionEnd(b *testing.B) {
	benchEncode(b, &ToolExecutionEnd{ToolCallID: "call_1", ToolName: "bash",
		Result: ToolResult{Content: []Content{&TextContent{Text: strings.Repeat("file.go\n", 50)}}, Details: json.RawMessage(`{"exitCode":0}`)}})
}

func BenchmarkEncodeTurnEnd(b *testing.B) {
	res := &ToolResultMessage{ToolCallID: "call_1", ToolName: "bash", Content: []Content{&TextContent{Text: "ok"}}, Timestamp: 1796253263590}
	benchEncode(b, &TurnEnd{Message: benchAssistant(), ToolResults: []*ToolResultMessage{res}})
}
