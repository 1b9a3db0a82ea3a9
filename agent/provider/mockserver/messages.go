package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/basecontext/base-context/codec"
)

// messages plays an entry as Anthropic's /v1/messages streams it: named SSE events with the
// event's type repeated first in its data. message_start carries the id and the input usage
// (output_tokens 1, as the API reports at that point); a ping follows; each block is
// content_block_start, its deltas (thinking_delta, text_delta, input_json_delta) and
// content_block_stop, a thinking block getting a signature_delta ("mock-signature-<n>") just
// before its stop; message_delta carries the stop reason and the final output_tokens, and
// message_stop ends the stream. Blocks without chunks are left out, except tool calls.
//
// Faults: an error in the stream is an "error" event {"type":"error","error":{"type",
// "message"}} after the blocks, and the stream ends there; no_finish ends the stream after
// the blocks without message_delta or message_stop.
var messages = protocol{
	errorBody: func(msg string) []byte {
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg}})
		return b
	},
	stream: messagesStream,
}

// messagesObject encodes key-value pairs as a JSON object in the order given, as the API
// writes its events (type first).
func messagesObject(kv ...any) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv[i])
		v, err := json.Marshal(kv[i+1])
		if err != nil {
			panic(err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func messagesStream(st *Stream) {
	r := st.Resp
	model, _ := st.Request["model"].(string)
	event := func(kv ...any) { st.Event(kv[1].(string), messagesObject(kv...)) }

	event("type", "message_start", "message", messagesObject(
		"id", st.ID("msg_mock_"), "type", "message", "role", "assistant", "model", model,
		"content", []any{}, "stop_reason", nil, "stop_sequence", nil,
		"usage", messagesObject(
			"input_tokens", r.Usage.Input,
			"cache_creation_input_tokens", r.Usage.CacheWrite,
			"cache_read_input_tokens", r.Usage.CacheRead,
			"output_tokens", 1,
		),
	))
	st.Event("ping", `{"type": "ping"}`)

	index := 0
	// block plays one content block; it returns false once the stream is cut.
	block := func(start json.RawMessage, deltaType, field string, parts []string, signature string) bool {
		event("type", "content_block_start", "index", index, "content_block", start)
		for _, p := range parts {
			if !st.Chunk() {
				return false
			}
			event("type", "content_block_delta", "index", index, "delta", messagesObject("type", deltaType, field, p))
		}
		if signature != "" {
			event("type", "content_block_delta", "index", index, "delta", messagesObject("type", "signature_delta", "signature", signature))
		}
		event("type", "content_block_stop", "index", index)
		index++
		return true
	}
	if len(r.Thinking) > 0 {
		sig := fmt.Sprintf("mock-signature-%d", st.n)
		if !block(messagesObject("type", "thinking", "thinking", "", "signature", ""), "thinking_delta", "thinking", r.Thinking, sig) {
			return
		}
	}
	if len(r.Text) > 0 {
		if !block(messagesObject("type", "text", "text", ""), "text_delta", "text", r.Text, "") {
			return
		}
	}
	for _, tc := range r.ToolCalls {
		start := messagesObject("type", "tool_use", "id", tc.ID, "name", tc.Name, "input", map[string]any{})
		if !block(start, "input_json_delta", "partial_json", tc.Args, "") {
			return
		}
	}
	if !st.Ending() {
		return
	}
	if e := r.StreamError; e != nil {
		errObj := messagesObject("message", e.Message)
		if e.Code != "" {
			errObj = messagesObject("type", e.Code, "message", e.Message)
		}
		event("type", "error", "error", errObj)
		return
	}
	if r.NoFinish {
		return
	}
	event("type", "message_delta",
		"delta", messagesObject("stop_reason", messagesStopReason(r.FinalStop()), "stop_sequence", nil),
		"usage", messagesObject("output_tokens", r.Usage.Output))
	event("type", "message_stop")
}

func messagesStopReason(stop string) string {
	switch stop {
	case codec.StopReasonLength:
		return "max_tokens"
	case codec.StopReasonToolUse:
		return "tool_use"
	}
	return "end_turn"
}
