package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/internal/userfile"
)

// Script is the offline provider: it plays a scripted list of responses, one per request.
// Request N plays entry N-1; once the list is exhausted the last entry repeats. The format
// is the one the reference model server reads:
//
//	{"responses":[entry, …]}
//
// A streamed entry is {"thinking":[chunks], "text":[chunks], "tool_calls":[{"id","name",
// "args":[JSON fragments]}], "finish_reason"?, "usage":{"input","output","cacheRead"?,
// "cacheWrite"?}, "delay_ms"?, "quote_tool_result"?} and its faults ("stream_error",
// "cut_after", "reset", "no_finish", "stall_after"); an error entry is {"status":500,
// "message":"…" or "body": any, "headers":{…}}. An unknown key is an error: a typo would
// otherwise silently play something else.
type Script struct {
	// RecordTo, when set, receives one JSON line per request:
	// {"model":…,"messages":[…],"tools":[names]}.
	RecordTo io.Writer

	entries []ScriptResponse

	mu sync.Mutex // guards requests and writes to RecordTo
	n  int
}

// ScriptResponse is one entry of a script: an error response (Status != 0) or a streamed
// one. Mock servers of the wire protocols play the same entries over HTTP.
type ScriptResponse struct {
	// An error response: the HTTP status, the provider's message as read from Body (or the
	// script's "message"), the body to send (nil: the protocol's own envelope of Message),
	// and headers such as retry-after.
	Status  int
	Message string
	Body    []byte
	Headers map[string]string

	// A streamed response: blocks in the order thinking, text, tool calls.
	Thinking  []string
	Text      []string
	ToolCalls []ScriptToolCall
	Stop      string // our stop reason; "" picks stop, or toolUse when there are tool calls
	Usage     codec.Usage
	Delay     time.Duration // before each chunk
	// QuoteToolResult appends the text of the request's last tool result to Text as one
	// more chunk, so that a script can show what a tool found (the offline demo lists the
	// files). Only the scripted provider plays it; the mock servers do not read requests.
	QuoteToolResult bool

	// Faults of a streamed response, after HTTP 200.
	// StreamError, when set, is an error event sent after the chunks instead of the finish.
	StreamError *ScriptStreamError
	// CutAfter ≥ 0 cuts the body after that many chunks (counted over all blocks); -1 never.
	CutAfter int
	// Reset makes the cut a connection reset instead of a clean close of the body.
	Reset bool
	// NoFinish ends the stream cleanly but without a finish reason.
	NoFinish bool
	// StallAfter ≥ 0 stops sending after that many chunks (0: after the headers) and keeps
	// the connection open, silent, until the client gives up; -1 never.
	StallAfter int
}

// ScriptStreamError is an error event inside a stream: {"type"|"code", "message"}.
type ScriptStreamError struct {
	Code    string
	Message string
}

// Error is the failure the entry stands for, nil for a streamed entry.
func (r *ScriptResponse) Error() *Error {
	if r.Status == 0 {
		return nil
	}
	var h http.Header
	if len(r.Headers) > 0 {
		h = http.Header{}
		for k, v := range r.Headers {
			h.Set(k, v)
		}
	}
	e := HTTPError(r.Status, h, r.Body)
	e.Message = r.Message
	e.Retryable = retryableHTTP(r.Status, r.Message)
	e.Overflow = r.Status != 429 && ContextOverflow(r.Message)
	return e
}

// FinalStop is the stop reason the response ends with.
func (r *ScriptResponse) FinalStop() string {
	switch {
	case r.Stop != "":
		return r.Stop
	case len(r.ToolCalls) > 0:
		return codec.StopReasonToolUse
	}
	return codec.StopReasonStop
}

// ScriptToolCall is a tool call of a scripted response, its arguments as JSON fragments.
type ScriptToolCall struct {
	ID, Name string
	Args     []string
}

// LoadScript reads a script file.
func LoadScript(path string) (*Script, error) {
	data, err := userfile.Read(path, userfile.ScriptMax)
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
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("script: %w", unknownKey(err))
	}
	if len(doc.Responses) == 0 {
		return nil, errors.New("script: no responses")
	}
	s := &Script{entries: make([]ScriptResponse, len(doc.Responses))}
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

func parseScriptEntry(raw json.RawMessage) (ScriptResponse, error) {
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
		DelayMs         float64 `json:"delay_ms"`
		QuoteToolResult bool    `json:"quote_tool_result"`

		// faults
		StreamError *struct {
			Type    string `json:"type"`
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"stream_error"`
		CutAfter   *int `json:"cut_after"`
		Reset      bool `json:"reset"`
		NoFinish   bool `json:"no_finish"`
		StallAfter *int `json:"stall_after"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return ScriptResponse{}, unknownKey(err)
	}
	e := ScriptResponse{CutAfter: -1, StallAfter: -1}
	if in.Status != nil {
		if *in.Status < 100 || *in.Status > 599 {
			return e, fmt.Errorf("status %d is not an HTTP status", *in.Status)
		}
		e.Status = *in.Status
		if len(in.Body) > 0 {
			e.Body = scriptBody(in.Body)
		}
		switch {
		case in.Message != nil && *in.Message != "":
			e.Message = *in.Message
		case e.Body == nil:
			e.Body = []byte{} // neither message nor body: an empty body
			fallthrough
		default:
			e.Message = BodyMessage(e.Body)
		}
		for k, v := range in.Headers {
			e.Headers = mapSet(e.Headers, k, fmt.Sprint(v))
		}
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
		e.Stop = codec.StopReasonStop
	case "length", "max_tokens":
		e.Stop = codec.StopReasonLength
	case "tool_calls", "toolUse", "tool_use":
		e.Stop = codec.StopReasonToolUse
	default:
		return e, fmt.Errorf("unknown finish_reason %q", in.FinishReason)
	}
	e.Thinking = in.Thinking
	e.Text = in.Text
	for i, tc := range in.ToolCalls {
		if tc.ID == "" || tc.Name == "" {
			return e, fmt.Errorf("tool call %d: id and name are required", i+1)
		}
		e.ToolCalls = append(e.ToolCalls, ScriptToolCall{ID: tc.ID, Name: tc.Name, Args: tc.Args})
	}
	e.Usage = codec.Usage{
		Input:      in.Usage.Input,
		Output:     in.Usage.Output,
		CacheRead:  in.Usage.CacheRead,
		CacheWrite: in.Usage.CacheWrite,
	}
	e.Usage.TotalTokens = e.Usage.Input + e.Usage.Output + e.Usage.CacheRead + e.Usage.CacheWrite
	e.Delay = time.Duration(in.DelayMs * float64(time.Millisecond))
	e.QuoteToolResult = in.QuoteToolResult
	if se := in.StreamError; se != nil {
		code := se.Type
		if code == "" {
			code = se.Code
		}
		e.StreamError = &ScriptStreamError{Code: code, Message: se.Message}
	}
	if in.CutAfter != nil {
		if *in.CutAfter < 0 {
			return e, errors.New("negative cut_after")
		}
		e.CutAfter = *in.CutAfter
	} else if in.Reset {
		return e, errors.New("reset needs cut_after")
	}
	if in.StallAfter != nil {
		switch {
		case *in.StallAfter < 0:
			return e, errors.New("negative stall_after")
		case in.CutAfter != nil:
			return e, errors.New("stall_after and cut_after exclude each other")
		}
		e.StallAfter = *in.StallAfter
	}
	e.Reset = in.Reset
	e.NoFinish = in.NoFinish
	return e, nil
}

// unknownKey words encoding/json's error for a key a script should not have.
func unknownKey(err error) error {
	if key, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fmt.Errorf("unknown key %s", key)
	}
	return err
}

// scriptBody is the body an error entry sends: a JSON string is sent as its text (so a
// script can give a body that is not JSON), anything else as its JSON.
func scriptBody(raw json.RawMessage) []byte {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []byte(s)
	}
	return bytes.TrimSpace(raw)
}

func mapSet(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[k] = v
	return m
}

// Next takes the entry for the next request, counting the request: request N plays entry
// N-1, and the last entry repeats. Mock servers use it to play a script over HTTP.
func (s *Script) Next() *ScriptResponse {
	_, e := s.next()
	return e
}

// next takes the entry for the next request and the request's number.
func (s *Script) next() (int, *ScriptResponse) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	return s.n, &s.entries[min(s.n, len(s.entries))-1]
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
	var recErr error
	if s.RecordTo != nil {
		_, recErr = s.RecordTo.Write(scriptRecordLine(req))
	}
	s.mu.Unlock()
	if recErr != nil {
		return fmt.Errorf("script: recording request: %w", recErr)
	}
	n, e := s.next()
	if err := e.Error(); err != nil {
		return err
	}

	emit(Event{Kind: Metadata, ResponseID: "script-" + strconv.Itoa(n)})
	block, chunks := 0, 0
	cut := func() error {
		if e.Reset {
			return CutOff(syscall.ECONNRESET)
		}
		return CutOff(nil)
	}
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
			if chunks == e.CutAfter {
				return cut()
			}
			if chunks == e.StallAfter {
				return scriptStall(ctx)
			}
			chunks++
			if err := scriptPause(ctx, e.Delay); err != nil {
				return err
			}
			emit(Event{Kind: BlockDelta, Block: block, Delta: p})
		}
		emit(Event{Kind: BlockEnd, Block: block})
		block++
		return nil
	}
	if err := play(Event{BlockKind: "thinking"}, e.Thinking); err != nil {
		return err
	}
	text := e.Text
	if e.QuoteToolResult {
		text = append(text[:len(text):len(text)], lastToolResultText(req.Messages))
	}
	if err := play(Event{BlockKind: "text"}, text); err != nil {
		return err
	}
	for _, tc := range e.ToolCalls {
		if err := play(Event{BlockKind: "toolCall", ToolCallID: tc.ID, ToolName: tc.Name}, tc.Args); err != nil {
			return err
		}
	}
	switch {
	case chunks == e.CutAfter:
		return cut()
	case chunks == e.StallAfter:
		return scriptStall(ctx)
	case e.StreamError != nil:
		return StreamError(e.StreamError.Code, e.StreamError.Message)
	case e.NoFinish:
		return NoFinish()
	}
	usage := e.Usage
	usage.Cost = CostOf(usage, req.Model.Cost)
	emit(Event{Kind: Done, StopReason: e.FinalStop(), Usage: usage, HasUsage: true})
	return nil
}

// lastToolResultText is the text of the last tool result among messages, "" without one.
func lastToolResultText(messages []codec.Message) string {
	for i := len(messages) - 1; i >= 0; i-- {
		if r, ok := messages[i].(*codec.ToolResultMessage); ok {
			var b strings.Builder
			for _, c := range r.Content {
				if t, ok := c.(*codec.TextContent); ok {
					b.WriteString(t.Text)
				}
			}
			return b.String()
		}
	}
	return ""
}

// CostOf computes the cost of a usage at per-million-token prices.
func CostOf(u codec.Usage, p Prices) codec.Cost {
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

// scriptStall plays a server that stopped sending: nothing more until the run gives up.
func scriptStall(ctx context.Context) error {
	<-ctx.Done()
	return ctx.Err()
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
