package mockserver

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/basecontext/base-context/codec"
)

// gemini plays an entry as the Gemini API's models/{model}:streamGenerateContent?alt=sse
// streams it: "data:" lines of GenerateContentResponse objects, without event names. Each
// chunk of the script is one response object with one part: thinking as {"text","thought":
// true} (the last one carrying a thoughtSignature, base64 of "mock-thought-<n>"), text as
// {"text"}; tool calls come whole, all in one object (parallel calls), each with its id and
// its arguments as an object, the first one with a thoughtSignature (base64 of
// "mock-call-<n>"), as Gemini 3 signs a turn's first call. The last object carries the
// finishReason (STOP, or MAX_TOKENS) and the usage: promptTokenCount counts the cached
// tokens (cachedContentTokenCount) and those written to the cache, which Gemini does not
// report apart. Every object carries the responseId and modelVersion.
//
// Faults: an error in the stream is an object {"error":{"code":500,"message","status"}} after
// the chunks (status is the script's type or code); no_finish ends the stream after the
// chunks without a finishReason. A cut inside a tool call's arguments sends no call.
var gemini = protocol{
	errorBody: func(msg string) []byte {
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg}})
		return b
	},
	stream: geminiStream,
}

// GeminiSignature is the thought signature the mock server puts on a part, as sent
// (base64): what is base64-encoded is "mock-<what>-<request number>".
func GeminiSignature(what string, n int) string {
	return b64(fmt.Sprintf("mock-%s-%d", what, n))
}

func geminiStream(st *Stream) {
	r := st.Resp
	model := strings.TrimPrefix(st.r.URL.Path, "/")
	if i := strings.Index(model, "models/"); i >= 0 {
		model = model[i+len("models/"):]
	}
	model, _, _ = strings.Cut(model, ":")
	id := st.ID("gemini-mock-")
	send := func(parts []any, finish string, usage bool) {
		cand := map[string]any{"content": map[string]any{"parts": parts, "role": "model"}, "index": 0}
		if finish != "" {
			cand["finishReason"] = finish
		}
		obj := map[string]any{"candidates": []any{cand}, "modelVersion": model, "responseId": id}
		if usage {
			u := r.Usage
			prompt := u.Input + u.CacheRead + u.CacheWrite
			meta := map[string]any{"promptTokenCount": prompt, "candidatesTokenCount": u.Output,
				"totalTokenCount": prompt + u.Output}
			if u.CacheRead > 0 {
				meta["cachedContentTokenCount"] = u.CacheRead
			}
			obj["usageMetadata"] = meta
		}
		st.Event("", obj)
	}
	for i, t := range r.Thinking {
		if !st.Chunk() {
			return
		}
		part := map[string]any{"text": t, "thought": true}
		if i == len(r.Thinking)-1 {
			part["thoughtSignature"] = GeminiSignature("thought", st.n)
		}
		send([]any{part}, "", false)
	}
	for _, t := range r.Text {
		if !st.Chunk() {
			return
		}
		send([]any{map[string]any{"text": t}}, "", false)
	}
	var calls []any
	for i, tc := range r.ToolCalls {
		for range tc.Args {
			if !st.Chunk() {
				if len(calls) > 0 {
					send(calls, "", false)
				}
				return
			}
		}
		args := map[string]any{}
		if a := ToolArgs(tc); a != "" {
			json.Unmarshal([]byte(a), &args)
		}
		part := map[string]any{"functionCall": map[string]any{"id": tc.ID, "name": tc.Name, "args": args}}
		if i == 0 {
			part["thoughtSignature"] = GeminiSignature("call", st.n)
		}
		calls = append(calls, part)
	}
	if len(calls) > 0 {
		send(calls, "", false)
	}
	if !st.Ending() {
		return
	}
	if e := r.StreamError; e != nil {
		st.Event("", map[string]any{"error": map[string]any{"code": 500, "message": e.Message, "status": e.Code}})
		return
	}
	if r.NoFinish {
		return
	}
	finish := "STOP"
	if r.FinalStop() == codec.StopReasonLength {
		finish = "MAX_TOKENS"
	}
	send([]any{map[string]any{"text": ""}}, finish, true)
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
