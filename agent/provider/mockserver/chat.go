package mockserver

import (
	"encoding/json"

	"github.com/basecontext/base-context/codec"
)

// chatCompletions plays an entry as OpenAI's /v1/chat/completions streams it: chunks of
// chat.completion.chunk objects in "data:" lines, without event names. The first chunk
// carries the role; reasoning comes as reasoning_content deltas (the field OpenAI-compatible
// servers such as DeepSeek and vLLM use); a tool call's id, type and name come only in its
// first fragment; the finish reason comes in a chunk with an empty delta; usage comes in a
// last chunk with no choices, and only when stream_options.include_usage asked for it; then
// "data: [DONE]". An error inside the stream is a chunk {"error":{...}} after which the
// server closes the stream.
var chatCompletions = protocol{
	errorBody: func(msg string) []byte {
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg}})
		return b
	},
	stream: chatStream,
}

// chatCreated is the fixed creation time of every chunk, so that streams are reproducible.
const chatCreated = 1767225600

func chatStream(st *Stream) {
	id := st.ID("chatcmpl-mock-")
	model, _ := st.Request["model"].(string)
	chunk := func(delta map[string]any, finish any) {
		st.Event("", map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": chatCreated, "model": model,
			"system_fingerprint": "fp_mock",
			"choices":            []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}},
		})
	}
	r := st.Resp
	chunk(map[string]any{"role": "assistant", "content": "", "refusal": nil}, nil)
	for _, t := range r.Thinking {
		if !st.Chunk() {
			return
		}
		chunk(map[string]any{"reasoning_content": t}, nil)
	}
	for _, t := range r.Text {
		if !st.Chunk() {
			return
		}
		chunk(map[string]any{"content": t}, nil)
	}
	for i, tc := range r.ToolCalls {
		chunk(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": tc.ID, "type": "function",
			"function": map[string]any{"name": tc.Name, "arguments": ""},
		}}}, nil)
		for _, a := range tc.Args {
			if !st.Chunk() {
				return
			}
			chunk(map[string]any{"tool_calls": []any{map[string]any{
				"index": i, "function": map[string]any{"arguments": a},
			}}}, nil)
		}
	}
	if !st.Ending() {
		return
	}
	if e := r.StreamError; e != nil {
		st.Event("", map[string]any{"error": map[string]any{"message": e.Message, "type": e.Code, "param": nil, "code": nil}})
		return
	}
	if !r.NoFinish {
		chunk(map[string]any{}, chatFinishReason(r.FinalStop()))
		if chatIncludeUsage(st.Request) {
			st.Event("", map[string]any{
				"id": id, "object": "chat.completion.chunk", "created": chatCreated, "model": model,
				"system_fingerprint": "fp_mock", "choices": []any{}, "usage": chatUsage(r.Usage),
			})
		}
	}
	st.Event("", "[DONE]")
}

func chatFinishReason(stop string) string {
	switch stop {
	case codec.StopReasonLength:
		return "length"
	case codec.StopReasonToolUse:
		return "tool_calls"
	}
	return "stop"
}

func chatIncludeUsage(req map[string]any) bool {
	opts, _ := req["stream_options"].(map[string]any)
	include, _ := opts["include_usage"].(bool)
	return include
}

// chatUsage is a usage object as OpenAI counts it: prompt_tokens includes the cached
// tokens and those written to the cache.
func chatUsage(u codec.Usage) map[string]any {
	prompt := u.Input + u.CacheRead + u.CacheWrite
	details := map[string]any{"cached_tokens": u.CacheRead, "audio_tokens": 0}
	if u.CacheWrite > 0 {
		details["cache_write_tokens"] = u.CacheWrite
	}
	return map[string]any{
		"prompt_tokens":         prompt,
		"completion_tokens":     u.Output,
		"total_tokens":          prompt + u.Output,
		"prompt_tokens_details": details,
		"completion_tokens_details": map[string]any{
			"reasoning_tokens": 0, "audio_tokens": 0,
			"accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0,
		},
	}
}
