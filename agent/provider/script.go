package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/basecontext/base-context/codec"
)

// Script is the offline provider: it plays a scripted list of responses, one per request.
// Request N plays entry N-1; once the list is exhausted the last entry repeats. The format
// is the one the reference model server reads:
//
//	{"responses":[entry, …]}
//
// A streamed entry is {"thinking":[chunks], "text":[chunks], "tool_calls":[{"id","name",
// "args":[JSON fragments]}], "finish_reason"?, "usage":{"input","output","cacheRead"?,
// "cacheWrite"?}, "delay_ms"?}; an error entry is {"status":500, "message":"…" or "body":
// any, "headers":{…}}.
type Script struct {
	// RecordTo, when set, receives one JSON line per request:
	// {"model":…,"messages":[…],"tools":[names]}.
	RecordTo io.Writer

	entries []scriptEntry

	mu sync.Mutex // guards requests and writes to RecordTo
	n  int
}

type scriptEntry struct {
	// error entry
	isError bool
	err     Error

	// streamed entry
	thinking  []string
	text      []string
	toolCalls []scriptToolCall
	stop      string // our stop reason; "" picks the default
	usage     codec.Usage
	delay     time.Duration
}

type scriptToolCall struct {
	id, name string
	args     []string
}

// LoadScript reads a script file.
func LoadScript(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := ParseScript(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// ParseScript decodes a script.
func ParseScript(data []byte) (*Script, error) {
	var doc struct {
		Responses []json.RawMessage `json:"responses"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("script: %w", err)
	}
	if len(doc.Responses) == 0 {
		return nil, errors.New("script: no responses")
	}
	s := &Script{entries: make([]scriptEntry, len(doc.Responses))}
	for i, raw := range doc.Responses {
		e, err := parseScriptEntry(raw)
		if err != nil {
			return nil, fmt.Errorf("script: response %d: %w", i+1, err)
		}
		s.entries[i] = e
	}
	return s, nil
}

// scriptChunks is a list of strings; a single string is accepted as one chunk.
type scriptChunks []string

func (c *scriptChunks) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*c = scriptChunks{s}
		return nil
	}
	var ss []string
	if err := json.Unmarshal(b, &ss); err != nil {
		return errors.New("expected a list of strings")
	}
	*c = ss
	return nil
}

// scriptArgChunks is a list of JSON text fragments; a single string is one fragment, and an
// object (the arguments themselves) is one fragment holding its compact encoding.
type scriptArgChunks []string

func (c *scriptArgChunks) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '{' {
		var buf bytes.Buffer
		if err := json.Compact(&buf, b); err != nil {
			return err
		}
		*c = scriptArgChunks{buf.String()}
		return nil
	}
	var cc scriptChunks
	if err := cc.UnmarshalJSON(b); err != nil {
		return errors.New("args: expected a list of JSON fragments")
	}
	*c = scriptArgChunks(cc)
	return nil
}

func parseScriptEntry(raw json.RawMessage) (scriptEntry, error) {
	var in struct {
		// error entry
		Status  *int            `json:"status"`
		Message *string         `json:"message"`
		Body    json.RawMessage `json:"body"`
		Headers map[string]any  `json:"headers"`

		// streamed entry
		Thinking  scriptChunks `json:"thinking"`
		Text      scriptChunks `json:"text"`
		ToolCalls []struct {
			ID   string          `json:"id"`
			Name string          `json:"name"`
			Args scriptArgChunks `json:"args"`
		} `json:"tool_calls"`
		FinishReason string `json:"finish_reason"`
		Usage        struct {
			Input      int64 `json:"input"`
			Output     int64 `json:"output"`
			CacheRead  int64 `json:"cacheRead"`
			CacheWrite int64 `json:"cacheWrite"`
		} `json:"usage"`
		DelayMs float64 `json:"delay_ms"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&in); err != nil {
		return scriptEntry{}, err
	}
	var e scriptEntry
	if in.Status != nil {
		status := *in.Status
		msg := scriptEntryMessage(in.Message, in.Body)
		e.isError = true
		e.err = Error{Status: status, Message: msg, Retryable: RetryableStatus(status) || scriptTransient(msg)}
		return e, nil
	}
	if in.Message != nil || len(in.Body) > 0 {
		return e, errors.New("error entry without a status")
	}
	if in.DelayMs < 0 {
		return e, errors.New("negative delay_ms")
	}
	switch in.FinishReason {
	case "":
	case "stop", "end_turn":
		e.stop = codec.StopReasonStop
	case "length", "max_tokens":
		e.stop = codec.StopReasonLength
	case "tool_calls", "toolUse", "tool_use":
		e.stop = codec.StopReasonToolUse
	default:
		return e, fmt.Errorf("unknown finish_reason %q", in.FinishReason)
	}
	e.thinking = in.Thinking
	e.text = in.Text
	for i, tc := range in.ToolCalls {
		if tc.ID == "" || tc.Name == "" {
			return e, fmt.Errorf("tool call %d: id and name are required", i+1)
		}
		e.toolCalls = append(e.toolCalls, scriptToolCall{id: tc.ID, name: tc.Name, args: tc.Args})
	}
	e.usage = codec.Usage{
		Input:      in.Usage.Input,
		Output:     in.Usage.Output,
		CacheRead:  in.Usage.CacheRead,
		CacheWrite: in.Usage.CacheWrite,
	}
	e.usage.TotalTokens = e.usage.Input + e.usage.Output + e.usage.CacheRead + e.usage.CacheWrite
	e.delay = time.Duration(in.DelayMs * float64(time.Millisecond))
	return e, nil
}

// scriptEntryMessage picks the provider message of an error entry: its "message", or what
// the body says, the way a provider's error body would be read.
func scriptEntryMessage(message *string, body json.RawMessage) string {
	if message != nil && *message != "" {
		return *message
	}
	return scriptBodyMessage(body)
}

// scriptBodyMessage extracts the message of a provider error body: the nested
// error.message or a flat message, prefixed with the error's code or type when it has one
// ("<type>: <message>"); a body that is not JSON is the message as it is.
func scriptBodyMessage(body []byte) string {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return "(empty error body)"
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return string(body) // not JSON: plain text
	}
	if s, ok := v.(string); ok {
		// A JSON string: either plain text, or JSON text of its own.
		s = strings.TrimSpace(s)
		if s == "" {
			return "(empty error body)"
		}
		var inner map[string]any
		if json.Unmarshal([]byte(s), &inner) == nil {
			if msg := scriptObjectMessage(inner); msg != "" {
				return msg
			}
		}
		return s
	}
	if obj, ok := v.(map[string]any); ok {
		if msg := scriptObjectMessage(obj); msg != "" {
			return msg
		}
	}
	if v == nil {
		return "(empty error body)"
	}
	var buf bytes.Buffer
	if json.Compact(&buf, body) == nil {
		return buf.String()
	}
	return string(body)
}

func scriptObjectMessage(obj map[string]any) string {
	switch e := obj["error"].(type) {
	case map[string]any:
		if msg := scriptFlatMessage(e); msg != "" {
			return msg
		}
	case string:
		if e != "" {
			return scriptWithCode(obj, e)
		}
	}
	return scriptFlatMessage(obj)
}

func scriptFlatMessage(obj map[string]any) string {
	msg, _ := obj["message"].(string)
	if msg == "" {
		return ""
	}
	return scriptWithCode(obj, msg)
}

// scriptWithCode prefixes msg with the object's code, or else its type (but not the envelope
// type "error" of an Anthropic body).
func scriptWithCode(obj map[string]any, msg string) string {
	code := ""
	switch c := obj["code"].(type) {
	case string:
		code = c
	case float64:
		code = strconv.FormatFloat(c, 'f', -1, 64)
	}
	if code == "" {
		if t, ok := obj["type"].(string); ok && t != "error" {
			code = t
		}
	}
	if code == "" {
		return msg
	}
	return code + ": " + msg
}

// scriptTransient reports whether a provider message describes a transient failure.
func scriptTransient(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "overloaded") || strings.Contains(m, "rate limit") ||
		strings.Contains(m, "rate_limit") || strings.Contains(m, "ratelimit")
}

// Requests returns the number of requests played so far.
func (s *Script) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// Stream plays the entry for this request.
func (s *Script) Stream(ctx context.Context, req Request, emit func(Event)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	s.n++
	n := s.n
	var recErr error
	if s.RecordTo != nil {
		_, recErr = s.RecordTo.Write(scriptRecordLine(req))
	}
	s.mu.Unlock()
	if recErr != nil {
		return fmt.Errorf("script: recording request: %w", recErr)
	}

	e := &s.entries[min(n, len(s.entries))-1]
	if e.isError {
		err := e.err
		return &err
	}

	emit(Event{Kind: Metadata, ResponseID: "script-" + strconv.Itoa(n)})
	block := 0
	// play emits one block; text and thinking blocks without chunks are left out, but a
	// tool call is a call even when its arguments are empty.
	play := func(start Event, parts []string) error {
		if len(parts) == 0 && start.BlockKind != "toolCall" {
			return nil
		}
		start.Kind = BlockStart
		start.Block = block
		emit(start)
		for _, p := range parts {
			if err := scriptPause(ctx, e.delay); err != nil {
				return err
			}
			emit(Event{Kind: BlockDelta, Block: block, Delta: p})
		}
		emit(Event{Kind: BlockEnd, Block: block})
		block++
		return nil
	}
	if err := play(Event{BlockKind: "thinking"}, e.thinking); err != nil {
		return err
	}
	if err := play(Event{BlockKind: "text"}, e.text); err != nil {
		return err
	}
	for _, tc := range e.toolCalls {
		if err := play(Event{BlockKind: "toolCall", ToolCallID: tc.id, ToolName: tc.name}, tc.args); err != nil {
			return err
		}
	}

	stop := e.stop
	if stop == "" {
		stop = codec.StopReasonStop
		if len(e.toolCalls) > 0 {
			stop = codec.StopReasonToolUse
		}
	}
	usage := e.usage
	usage.Cost = scriptCost(usage, req.Model.Cost)
	emit(Event{Kind: Done, StopReason: stop, Usage: usage, HasUsage: true})
	return nil
}

// scriptCost computes the cost of a usage at per-million-token prices.
func scriptCost(u codec.Usage, p Prices) codec.Cost {
	c := codec.Cost{
		Input:      p.Input * float64(u.Input) / 1e6,
		Output:     p.Output * float64(u.Output) / 1e6,
		CacheRead:  p.CacheRead * float64(u.CacheRead) / 1e6,
		CacheWrite: p.CacheWrite * float64(u.CacheWrite) / 1e6,
	}
	c.Total = c.Input + c.Output + c.CacheRead + c.CacheWrite
	return c
}

// scriptPause waits d before the next chunk, or returns the context's error once it is done.
func scriptPause(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// scriptRecordLine encodes a request as {"model":…,"messages":[…],"tools":[names]} and an LF.
func scriptRecordLine(req Request) []byte {
	b := append([]byte(nil), `{"model":`...)
	b = codec.AppendString(b, req.Model.ID)
	b = append(b, `,"messages":`...)
	b = codec.AppendMessages(b, req.Messages)
	b = append(b, `,"tools":[`...)
	for i, t := range req.Tools {
		if i > 0 {
			b = append(b, ',')
		}
		b = codec.AppendString(b, t.Name)
	}
	return append(b, "]}\n"...)
}
