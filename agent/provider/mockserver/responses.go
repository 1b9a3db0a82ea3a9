package mockserver

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/basecontext/base-context/codec"
)

// responses plays an entry over the OpenAI Responses API (POST /v1/responses), as its SSE
// stream looks: response.created and response.in_progress; per output item (a reasoning
// item for thinking, a message for text, a function_call per tool call)
// response.output_item.added, its part and delta events and response.output_item.done;
// then response.completed, or response.incomplete for a length stop. A stream error is an
// "error" event; with no_finish the body ends after the last item.
var responses = protocol{
	errorBody: func(msg string) []byte {
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg}})
		return b
	},
	stream: responsesStream,
}

// responsesPlayer writes one response's events, numbering them as the API does.
type responsesPlayer struct {
	st     *Stream
	seq    int
	output []any // the items done so far
}

func (p *responsesPlayer) event(typ string, fields map[string]any) {
	fields["type"] = typ
	fields["sequence_number"] = p.seq
	p.seq++
	p.st.Event(typ, fields)
}

// response is the response object as the created, completed and incomplete events carry it.
func (p *responsesPlayer) response(status string, usage any) map[string]any {
	output := p.output
	if output == nil {
		output = []any{}
	}
	r := map[string]any{
		"id": p.st.ID("resp_"), "object": "response", "created_at": time.Now().Unix(),
		"status": status, "model": p.st.Request["model"], "output": output,
		"error": nil, "incomplete_details": nil, "usage": usage,
		"store": p.st.Request["store"], "reasoning": p.st.Request["reasoning"],
	}
	if r["store"] == nil {
		r["store"] = true
	}
	return r
}

// encrypted reports whether the request asked for reasoning.encrypted_content.
func (p *responsesPlayer) encrypted() bool {
	inc, _ := p.st.Request["include"].([]any)
	for _, v := range inc {
		if v == "reasoning.encrypted_content" {
			return true
		}
	}
	return false
}

func responsesStream(st *Stream) {
	p := &responsesPlayer{st: st}
	resp := st.Resp
	p.event("response.created", map[string]any{"response": p.response("in_progress", nil)})
	p.event("response.in_progress", map[string]any{"response": p.response("in_progress", nil)})

	index := 0
	if len(resp.Thinking) > 0 {
		if !p.reasoning(index) {
			return
		}
		index++
	}
	if len(resp.Text) > 0 {
		if !p.message(index) {
			return
		}
		index++
	}
	for i := range resp.ToolCalls {
		if !p.functionCall(index, i) {
			return
		}
		index++
	}
	if !st.Ending() {
		return
	}
	switch {
	case resp.StreamError != nil:
		p.event("error", map[string]any{"code": responsesNilIfEmpty(resp.StreamError.Code),
			"message": resp.StreamError.Message, "param": nil})
		return
	case resp.NoFinish:
		return
	}
	u := resp.Usage
	// The API counts cached input inside input_tokens and knows no cache writes: those are
	// input as any other.
	input := u.Input + u.CacheRead + u.CacheWrite
	usage := map[string]any{
		"input_tokens":          input,
		"input_tokens_details":  map[string]any{"cached_tokens": u.CacheRead},
		"output_tokens":         u.Output,
		"output_tokens_details": map[string]any{"reasoning_tokens": 0},
		"total_tokens":          input + u.Output,
	}
	if resp.FinalStop() == codec.StopReasonLength {
		r := p.response("incomplete", usage)
		r["incomplete_details"] = map[string]any{"reason": "max_output_tokens"}
		p.event("response.incomplete", map[string]any{"response": r})
		return
	}
	p.event("response.completed", map[string]any{"response": p.response("completed", usage)})
}

func responsesNilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// reasoning plays the thinking chunks as one reasoning item with one summary part.
func (p *responsesPlayer) reasoning(index int) bool {
	id := fmt.Sprintf("%s_%d", p.st.ID("rs_"), index)
	item := map[string]any{"id": id, "type": "reasoning", "summary": []any{}}
	p.event("response.output_item.added", map[string]any{"output_index": index, "item": item})
	at := map[string]any{"item_id": id, "output_index": index, "summary_index": 0}
	p.event("response.reasoning_summary_part.added", responsesWith(at, "part", map[string]any{"type": "summary_text", "text": ""}))
	var text strings.Builder
	for _, c := range p.st.Resp.Thinking {
		if !p.st.Chunk() {
			return false
		}
		text.WriteString(c)
		p.event("response.reasoning_summary_text.delta", responsesWith(at, "delta", c))
	}
	part := map[string]any{"type": "summary_text", "text": text.String()}
	p.event("response.reasoning_summary_text.done", responsesWith(at, "text", text.String()))
	p.event("response.reasoning_summary_part.done", responsesWith(at, "part", part))
	done := map[string]any{"id": id, "type": "reasoning", "summary": []any{part}}
	if p.encrypted() {
		// Opaque to the client; here the summary, so a test can tell items apart.
		done["encrypted_content"] = "enc_" + base64.StdEncoding.EncodeToString([]byte(text.String()))
	}
	p.itemDone(index, done)
	return true
}

// message plays the text chunks as one assistant message with one output_text part.
func (p *responsesPlayer) message(index int) bool {
	id := fmt.Sprintf("%s_%d", p.st.ID("msg_"), index)
	item := map[string]any{"id": id, "type": "message", "status": "in_progress", "content": []any{}, "role": "assistant"}
	p.event("response.output_item.added", map[string]any{"output_index": index, "item": item})
	at := map[string]any{"item_id": id, "output_index": index, "content_index": 0}
	p.event("response.content_part.added", responsesWith(at, "part", map[string]any{"type": "output_text", "annotations": []any{}, "logprobs": []any{}, "text": ""}))
	var text strings.Builder
	for _, c := range p.st.Resp.Text {
		if !p.st.Chunk() {
			return false
		}
		text.WriteString(c)
		p.event("response.output_text.delta", responsesWith(responsesWith(at, "delta", c), "logprobs", []any{}))
	}
	part := map[string]any{"type": "output_text", "annotations": []any{}, "logprobs": []any{}, "text": text.String()}
	p.event("response.output_text.done", responsesWith(responsesWith(at, "text", text.String()), "logprobs", []any{}))
	p.event("response.content_part.done", responsesWith(at, "part", part))
	p.itemDone(index, map[string]any{"id": id, "type": "message", "status": "completed", "content": []any{part}, "role": "assistant"})
	return true
}

// functionCall plays tool call i as a function_call item: the script's id is the call_id.
func (p *responsesPlayer) functionCall(index, i int) bool {
	tc := p.st.Resp.ToolCalls[i]
	id := fmt.Sprintf("%s_%d", p.st.ID("fc_"), index)
	item := func(status, args string) map[string]any {
		return map[string]any{"id": id, "type": "function_call", "status": status, "arguments": args, "call_id": tc.ID, "name": tc.Name}
	}
	p.event("response.output_item.added", map[string]any{"output_index": index, "item": item("in_progress", "")})
	at := map[string]any{"item_id": id, "output_index": index}
	for _, a := range tc.Args {
		if !p.st.Chunk() {
			return false
		}
		p.event("response.function_call_arguments.delta", responsesWith(at, "delta", a))
	}
	args := ToolArgs(tc)
	p.event("response.function_call_arguments.done", responsesWith(at, "arguments", args))
	p.itemDone(index, item("completed", args))
	return true
}

func (p *responsesPlayer) itemDone(index int, item map[string]any) {
	p.output = append(p.output, item)
	p.event("response.output_item.done", map[string]any{"output_index": index, "item": item})
}

// responsesWith is a copy of m with k set to v.
func responsesWith(m map[string]any, k string, v any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for mk, mv := range m {
		out[mk] = mv
	}
	out[k] = v
	return out
}
