package provider

// The OpenAI Chat Completions protocol (api "openai-completions"): OpenAI's
// /v1/chat/completions, and what OpenAI-compatible servers speak (Ollama, vLLM, llama.cpp,
// OpenRouter, Groq, DeepSeek...). Those servers differ in small ways, so the stream is read
// leniently: reasoning arrives as `reasoning_content`, `reasoning` or `reasoning_text`
// deltas; usage may be missing; a tool call's id and name may come only in its first
// fragment, or in every one; a call may have no id at all. Mistral's reasoning models send
// `delta.content` as an array of typed parts ({"type":"thinking","thinking":[{"type":"text",
// "text":…}]}, {"type":"text","text":…}): they become thinking and text, and a part of a
// type we do not know is skipped with a warning. Usage comes in two conventions, told apart
// by the numbers (see completionsUsage). Usage sent in an error chunk (OpenRouter) is kept
// on the failed message. A stream that ends without usage keeps its answer but warns that
// the usage is missing.
//
// Thinking levels (--thinking) map to the request like this, and only for models marked
// `reasoning`; other models get no reasoning field at all:
//
//	| level     | request field                                   |
//	|-----------|-------------------------------------------------|
//	| off, ""   | none: the model's own default                   |
//	| minimal   | "reasoning_effort": "minimal"                   |
//	| low       | "reasoning_effort": "low"                       |
//	| medium    | "reasoning_effort": "medium"                    |
//	| high      | "reasoning_effort": "high"                      |
//	| xhigh     | "reasoning_effort": "xhigh"                     |
//
// "off" sends nothing rather than "none", because reasoning models that cannot switch
// reasoning off reject "none".
//
// Reasoning text is kept as a thinking block whose signature is the name of the field it
// came in; on later turns it goes back to the server in that same field of the assistant
// message, which is what servers that want their reasoning echoed (DeepSeek, vLLM) read.
// Thinking blocks of other protocols (an Anthropic signature, a Responses reasoning item)
// mean nothing to this server and are not sent.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"

	"github.com/basecontext/base-context/codec"
)

// completionsReasoningFields are the delta fields OpenAI-compatible servers stream
// reasoning in, in the order they are looked for.
var completionsReasoningFields = []string{"reasoning_content", "reasoning", "reasoning_text"}

// completionsEfforts maps a thinking level to reasoning_effort ("" sends none).
var completionsEfforts = map[string]shared.ReasoningEffort{
	"minimal": shared.ReasoningEffortMinimal,
	"low":     shared.ReasoningEffortLow,
	"medium":  shared.ReasoningEffortMedium,
	"high":    shared.ReasoningEffortHigh,
	"xhigh":   shared.ReasoningEffortXhigh,
}

type completionsProvider struct {
	svc openai.ChatCompletionService
	ep  Endpoint
	// official: the endpoint is OpenAI's own API, which takes fields other servers may
	// reject (store).
	official bool
}

// NewOpenAICompletions returns the provider speaking Chat Completions at ep. ep.BaseURL
// includes the version path (https://api.openai.com/v1, http://localhost:11434/v1); ""
// is OpenAI's API. The SDK's own retries are off, and it reads no environment variables:
// the endpoint says everything.
func NewOpenAICompletions(ep Endpoint) Provider {
	official := true
	if ep.BaseURL != "" {
		u, err := url.Parse(ep.BaseURL)
		official = err == nil && u.Hostname() == "api.openai.com"
	}
	return &completionsProvider{svc: openai.NewChatCompletionService(openaiOptions(ep)...), ep: ep, official: official}
}

// openaiOptions are the SDK options of both OpenAI APIs. The services are built without the
// SDK's environment defaults (OPENAI_BASE_URL, OPENAI_API_KEY, …): the endpoint alone says
// where requests go and how they are signed, an empty key sends no Authorization header (a
// local server needs none), and the SDK's retries are off: our loop retries, visibly.
func openaiOptions(ep Endpoint) []option.RequestOption {
	opts := []option.RequestOption{
		option.WithEnvironmentProduction(),
		option.WithHTTPClient(ep.client()),
		option.WithMaxRetries(0),
	}
	if ep.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(ep.BaseURL))
	}
	if ep.APIKey != "" {
		opts = append(opts, option.WithAPIKey(ep.APIKey))
	}
	for k, v := range ep.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	return opts
}

// Stream sends one request and maps the streamed chunks to events.
func (p *completionsProvider) Stream(ctx context.Context, req Request, emit func(Event)) error {
	params, err := completionsParams(req, p.official)
	if err != nil {
		return TransportError(err)
	}
	var res *http.Response
	st := completionsState{emit: emit, warn: p.ep.warn, byIndex: map[int64]*completionsCall{}, open: -1}
	watchDone := func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		res, err := next(r)
		if err == nil && res != nil && res.StatusCode < 300 {
			res.Body = &completionsDoneWatch{ReadCloser: res.Body, seen: &st.sawDone}
		}
		return res, err
	}
	stream := p.svc.NewStreaming(ctx, params, option.WithResponseInto(&res), option.WithMiddleware(watchDone))
	defer stream.Close()
	for stream.Next() {
		st.chunk(stream.Current())
	}
	if ctx.Err() != nil {
		st.closeOpen() // an aborted answer's thinking keeps its signature too
		return ctx.Err()
	}
	if err := stream.Err(); err != nil {
		st.failed(err, req)
		return completionsFailure(err, res)
	}
	return st.end(req)
}

// failed closes the open text or thinking block of a failed response, so that its
// signature is set as on success, and keeps the usage the server reported, in an error
// chunk (OpenRouter reports what the failed attempt cost) or before.
func (s *completionsState) failed(err error, req Request) {
	s.closeOpen()
	var streamErr *ssestream.StreamError
	if errors.As(err, &streamErr) {
		var ev struct {
			Usage *openai.CompletionUsage `json:"usage"`
		}
		if json.Unmarshal(streamErr.Event.Data, &ev) == nil && ev.Usage != nil && ev.Usage.JSON.PromptTokens.Valid() {
			s.usage, s.hasUsage = completionsUsage(*ev.Usage), true
		}
	}
	s.keepUsage(req)
}

// keepUsage reports the usage of a response that failed, with its cost: it is real.
func (s *completionsState) keepUsage(req Request) {
	if s.hasUsage {
		u := s.usage
		u.Cost = CostOf(u, req.Model.Cost)
		s.emit(Event{Kind: Metadata, Usage: u, HasUsage: true})
	}
}

// completionsFailure turns the SDK's error into ours: a failing HTTP status, an error
// event inside the stream, a body cut off after HTTP 200, or a failed round trip.
func completionsFailure(err error, res *http.Response) error {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) && apiErr.Response != nil {
		res = apiErr.Response
	}
	if res != nil && res.StatusCode >= 400 {
		// The SDK has read the body and put it back for us; it is in memory.
		body, _ := io.ReadAll(res.Body)
		return HTTPError(res.StatusCode, res.Header, body)
	}
	var streamErr *ssestream.StreamError
	if errors.As(err, &streamErr) {
		return completionsStreamError(streamErr.Event.Data)
	}
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &syntaxErr) || errors.As(err, &typeErr) {
		return TransportError(fmt.Errorf("the response stream held a chunk that is not a chat completion chunk: %w", err))
	}
	if res != nil {
		// HTTP 200 was received, so the error came from reading the body. A reset is
		// reported as such, without the addresses of the connection.
		var errno syscall.Errno
		if errors.As(err, &errno) {
			return CutOff(errno)
		}
		return CutOff(err)
	}
	return TransportError(err)
}

// completionsStreamError reads an error event, {"error":{"message","code"|"type"}} or
// {"error":"message"}.
func completionsStreamError(data []byte) *Error {
	var ev struct {
		Error json.RawMessage `json:"error"`
	}
	json.Unmarshal(data, &ev)
	var msg string
	if json.Unmarshal(ev.Error, &msg) == nil {
		return StreamError("", msg)
	}
	var obj struct {
		Message string `json:"message"`
		Code    any    `json:"code"`
		Type    string `json:"type"`
	}
	if json.Unmarshal(ev.Error, &obj) != nil {
		return StreamError("", string(bytes.TrimSpace(data)))
	}
	code := obj.Type
	switch c := obj.Code.(type) {
	case string:
		if c != "" {
			code = c
		}
	case float64:
		code = strconv.FormatFloat(c, 'f', -1, 64)
	}
	return StreamError(code, obj.Message)
}

// completionsState turns chunks into events. Text and thinking alternate in one open
// block at a time; tool calls stay open until the response ends, because the fragments
// of parallel calls may interleave.
type completionsState struct {
	emit func(Event)
	warn func(format string, args ...any)
	next int // the next block number

	open     int    // the open text or thinking block, -1 when none
	openKind string // "text" or "thinking"
	openSig  string // the reasoning field of an open thinking block

	calls   []*completionsCall
	byIndex map[int64]*completionsCall

	responseID string
	usage      codec.Usage
	hasUsage   bool
	finish     string
	// skipped: the content part types already warned about in this response.
	skipped map[string]bool
	// sawDone: the stream's "data: [DONE]" went by.
	sawDone bool
}

// completionsDoneMark is how a Chat Completions stream says it is over.
var completionsDoneMark = []byte("data: [DONE]")

// completionsDoneWatch is a response body that notes whether the end mark went by (the SDK
// does not say whether a stream ended with it or was cut short).
type completionsDoneWatch struct {
	io.ReadCloser
	tail []byte // the last bytes read, for a mark split between reads
	seen *bool
}

func (w *completionsDoneWatch) Read(p []byte) (int, error) {
	n, err := w.ReadCloser.Read(p)
	if n > 0 && !*w.seen {
		keep := len(completionsDoneMark) - 1
		head := append(w.tail, p[:min(n, keep)]...)
		if bytes.Contains(head, completionsDoneMark) || bytes.Contains(p[:n], completionsDoneMark) {
			*w.seen = true
		}
		if n >= keep {
			w.tail = append(w.tail[:0], p[n-keep:n]...)
		} else {
			w.tail = append(w.tail[:0], head[max(len(head)-keep, 0):]...)
		}
	}
	return n, err
}

// completionsCall is one tool call of the response. Its block starts once its name is
// known; argument fragments that come before are held until then.
type completionsCall struct {
	block   int
	id      string
	name    string
	started bool
	pending []string
}

func (s *completionsState) chunk(c openai.ChatCompletionChunk) {
	if s.responseID == "" && c.ID != "" {
		s.responseID = c.ID
		s.emit(Event{Kind: Metadata, ResponseID: c.ID})
	}
	if c.JSON.Usage.Valid() {
		s.usage, s.hasUsage = completionsUsage(c.Usage), true
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue // we ask for one choice; a server sending more gets the first one read
		}
		d := ch.Delta
		for _, f := range completionsReasoningFields {
			// The SDK marks fields it does not know as not Valid; the raw text is there.
			if raw, ok := d.JSON.ExtraFields[f]; ok {
				var text string
				if json.Unmarshal([]byte(raw.Raw()), &text) == nil && text != "" {
					s.part("thinking", f, text)
					break
				}
			}
		}
		if raw := d.JSON.Content.Raw(); !d.JSON.Content.Valid() && strings.HasPrefix(raw, "[") {
			s.contentParts(raw)
		} else {
			s.part("text", "", d.Content)
		}
		s.part("text", "", d.Refusal)
		for _, tc := range d.ToolCalls {
			s.toolFragment(tc)
		}
		if ch.FinishReason != "" {
			s.finish = ch.FinishReason
		}
	}
}

// completionsPart is one typed part of a content array: {"type":"text","text":…} or
// {"type":"thinking","thinking":[{"type":"text","text":…}]} (Mistral's reasoning models).
type completionsPart struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Thinking json.RawMessage `json:"thinking"`
}

// contentParts reads delta.content sent as an array of typed parts. A part of a type we do
// not know is skipped (never pasted into the answer as JSON), with one warning per type and
// response.
func (s *completionsState) contentParts(raw string) {
	var parts []completionsPart
	if err := json.Unmarshal([]byte(raw), &parts); err != nil {
		s.skip("content array that is not a list of parts")
		return
	}
	for _, p := range parts {
		switch p.Type {
		case "text":
			s.part("text", "", p.Text)
		case "thinking":
			// The thinking is a list of text parts, or (leniently) a plain string.
			var text string
			if json.Unmarshal(p.Thinking, &text) == nil {
				s.part("thinking", "", text)
				continue
			}
			var inner []completionsPart
			json.Unmarshal(p.Thinking, &inner)
			for _, in := range inner {
				if in.Type == "text" {
					s.part("thinking", "", in.Text)
				} else {
					s.skip("thinking part of type " + strconv.Quote(in.Type))
				}
			}
		default:
			s.skip("content part of type " + strconv.Quote(p.Type))
		}
	}
}

func (s *completionsState) skip(what string) {
	if s.skipped[what] {
		return
	}
	if s.skipped == nil {
		s.skipped = map[string]bool{}
	}
	s.skipped[what] = true
	s.warn("response %s: skipped a %s, which base-context does not read", s.responseID, what)
}

// part adds text or thinking, opening a block of that kind when another kind is open.
func (s *completionsState) part(kind, sig, delta string) {
	if delta == "" {
		return
	}
	if s.open < 0 || s.openKind != kind {
		s.closeOpen()
		s.open, s.openKind, s.openSig = s.next, kind, sig
		s.next++
		s.emit(Event{Kind: BlockStart, Block: s.open, BlockKind: kind})
	}
	s.emit(Event{Kind: BlockDelta, Block: s.open, Delta: delta})
}

func (s *completionsState) closeOpen() {
	if s.open < 0 {
		return
	}
	s.emit(Event{Kind: BlockEnd, Block: s.open, Signature: s.openSig})
	s.open = -1
}

func (s *completionsState) toolFragment(tc openai.ChatCompletionChunkChoiceDeltaToolCall) {
	c := s.byIndex[tc.Index]
	// A different id at the same index is a new call: some servers number every call 0.
	if c == nil || (tc.ID != "" && c.id != "" && tc.ID != c.id) {
		c = &completionsCall{}
		s.byIndex[tc.Index] = c
		s.calls = append(s.calls, c)
	}
	if c.id == "" {
		c.id = tc.ID
	}
	if c.name == "" {
		c.name = tc.Function.Name
	}
	if !c.started && c.name != "" {
		s.startCall(c)
	}
	if args := tc.Function.Arguments; args != "" {
		if c.started {
			s.emit(Event{Kind: BlockDelta, Block: c.block, Delta: args})
		} else {
			c.pending = append(c.pending, args)
		}
	}
}

func (s *completionsState) startCall(c *completionsCall) {
	s.closeOpen()
	if c.id == "" {
		// Servers that give no ids still need one for the result to refer to.
		c.id = fmt.Sprintf("call_%s_%d", s.responseID, len(s.calls))
	}
	c.block, c.started = s.next, true
	s.next++
	s.emit(Event{Kind: BlockStart, Block: c.block, BlockKind: "toolCall", ToolCallID: c.id, ToolName: c.name})
	for _, a := range c.pending {
		s.emit(Event{Kind: BlockDelta, Block: c.block, Delta: a})
	}
	c.pending = nil
}

// end finishes a stream that ended cleanly: without a finish reason it is incomplete.
func (s *completionsState) end(req Request) error {
	s.closeOpen()
	fail := func(err *Error) error {
		s.keepUsage(req)
		return err
	}
	stop := codec.StopReasonStop
	switch s.finish {
	case "":
		return fail(NoFinish())
	case "length", "max_tokens":
		stop = codec.StopReasonLength
	case "tool_calls", "function_call":
		stop = codec.StopReasonToolUse
	case "content_filter":
		return fail(StreamError("content_filter", "the response was stopped by the provider's content filter"))
	case "error":
		return fail(StreamError("", `the provider ended the response with finish_reason "error"`))
	default: // "stop", and the "eos", "end_turn"... of some servers
		if len(s.calls) > 0 {
			// Some servers say "stop" after tool calls; the calls are what counts.
			stop = codec.StopReasonToolUse
		}
	}
	for _, c := range s.calls {
		if !c.started {
			s.startCall(c) // a call whose name never came
		}
	}
	for _, c := range s.calls {
		s.emit(Event{Kind: BlockEnd, Block: c.block})
	}
	done := Event{Kind: Done, StopReason: stop}
	if s.hasUsage {
		done.Usage, done.HasUsage = s.usage, true
		done.Usage.Cost = CostOf(s.usage, req.Model.Cost)
	} else {
		// We always ask for usage (stream_options.include_usage). The answer is whole; its
		// zeros are not real counts.
		why := "the stream stopped after its finish reason, before the usage chunk and [DONE]"
		if s.sawDone {
			why = "the server sent none, though stream_options.include_usage asked for it"
		}
		s.warn("response %s of %s came without usage (%s): its tokens and cost are unknown and counted as 0",
			s.responseID, req.Model.ID, why)
	}
	s.emit(done)
	return nil
}

// completionsUsage maps usage. OpenAI's prompt_tokens counts cached and cache-written tokens
// too, and completion_tokens the reasoning tokens (total_tokens = prompt + completion); some
// compatible servers count the cache's tokens apart (total = prompt + completion + cached +
// written: input is prompt_tokens itself), others the reasoning tokens (xAI: total = prompt
// + completion + reasoning: output adds them). The numbers tell the conventions apart:
// total_tokens when the server sends one, else cached tokens that do not fit in
// prompt_tokens. Input is never negative, nor zero by subtracting tokens prompt_tokens did
// not count, and totalTokens is the server's own total when it sends one. DeepSeek reports
// its cache hits in a field of its own.
func completionsUsage(u openai.CompletionUsage) codec.Usage {
	cached := u.PromptTokensDetails.CachedTokens
	if hit, ok := u.JSON.ExtraFields["prompt_cache_hit_tokens"]; ok && cached == 0 {
		n, _ := strconv.ParseInt(hit.Raw(), 10, 64)
		cached = n
	}
	write := u.PromptTokensDetails.CacheWriteTokens
	reasoning := u.CompletionTokensDetails.ReasoningTokens
	prompt, completion, total := u.PromptTokens, u.CompletionTokens, u.TotalTokens
	cache := cached + write
	var cacheApart, reasoningApart bool
	switch extra := total - prompt - completion; {
	case total <= 0:
		cacheApart = cache > 0 && cache >= prompt
	case extra == 0:
	case cache > 0 && extra == cache:
		cacheApart = true
	case reasoning > 0 && extra == reasoning:
		reasoningApart = true
	case cache > 0 && reasoning > 0 && extra == cache+reasoning:
		cacheApart, reasoningApart = true, true
	default: // a total of another convention: trust prompt_tokens as far as it goes
		cacheApart = cache > 0 && cache >= prompt
	}
	out := codec.Usage{Input: prompt, Output: completion, CacheRead: cached, CacheWrite: write}
	if !cacheApart {
		out.Input = max(prompt-cache, 0)
	}
	if reasoningApart {
		out.Output += reasoning
	}
	out.TotalTokens = out.Input + out.Output + out.CacheRead + out.CacheWrite
	if total > 0 {
		out.TotalTokens = total
	}
	return out
}

// completionsParams builds the request body.
func completionsParams(req Request, official bool) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{
		Model:         req.Model.ID,
		Messages:      completionsMessages(req),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	if official {
		p.Store = openai.Bool(false)
	}
	if req.Model.MaxTokens > 0 {
		p.MaxCompletionTokens = openai.Int(req.Model.MaxTokens)
	}
	if req.Model.Reasoning {
		if effort, ok := completionsEfforts[req.ThinkingLevel]; ok {
			p.ReasoningEffort = effort
		}
	}
	for _, t := range req.Tools {
		schema := shared.FunctionParameters{"type": "object", "properties": map[string]any{}}
		if len(bytes.TrimSpace(t.Parameters)) > 0 {
			schema = nil
			if err := json.Unmarshal(t.Parameters, &schema); err != nil {
				return p, fmt.Errorf("tool %s: parameters are not a JSON object: %w", t.Name, err)
			}
		}
		fn := shared.FunctionDefinitionParam{Name: t.Name, Parameters: schema, Strict: openai.Bool(false)}
		if t.Description != "" {
			fn.Description = openai.String(t.Description)
		}
		p.Tools = append(p.Tools, openai.ChatCompletionToolUnionParam{OfFunction: &openai.ChatCompletionFunctionToolParam{Function: fn}})
	}
	return p, nil
}

// completionsMessages converts the conversation. Tool messages carry text only, so the
// images of a run of tool results follow it in one user message. A tool message has no
// error flag either: a failed tool's text says what failed (the agent writes it so).
func completionsMessages(req Request) []openai.ChatCompletionMessageParamUnion {
	var out []openai.ChatCompletionMessageParamUnion
	if req.SystemPrompt != "" {
		out = append(out, openai.ChatCompletionMessageParamUnion{OfSystem: &openai.ChatCompletionSystemMessageParam{
			Content: openai.ChatCompletionSystemMessageParamContentUnion{OfString: openai.String(req.SystemPrompt)}}})
	}
	var toolImages []openai.ChatCompletionContentPartUnionParam
	flushImages := func() {
		if len(toolImages) == 0 {
			return
		}
		parts := append([]openai.ChatCompletionContentPartUnionParam{completionsTextPart(ToolImagesIntro)}, toolImages...)
		out = append(out, completionsUser(parts))
		toolImages = nil
	}
	eachContextMessage(req.Messages, flushImages, func(m codec.Message) {
		switch m := m.(type) {
		case *codec.UserMessage:
			if m.Blocks == nil {
				out = append(out, completionsUserText(m.Text))
			} else {
				out = append(out, completionsUser(completionsParts(m.Blocks)))
			}
		case *codec.AssistantMessage:
			if a, ok := completionsAssistant(m); ok {
				out = append(out, a)
			}
		case *codec.ToolResultMessage:
			text, images := toolResultParts(m)
			for _, c := range images {
				toolImages = append(toolImages, completionsImagePart(c))
			}
			out = append(out, openai.ChatCompletionMessageParamUnion{OfTool: &openai.ChatCompletionToolMessageParam{
				ToolCallID: m.ToolCallID,
				Content:    openai.ChatCompletionToolMessageParamContentUnion{OfString: openai.String(text)},
			}})
		}
	})
	return out
}

// completionsAssistant converts an assistant message: its text as one string (null when it
// only calls tools), its tool calls, and its reasoning in the field it came in. A message
// with none of these is left out: the API rejects an empty assistant message.
func completionsAssistant(m *codec.AssistantMessage) (openai.ChatCompletionMessageParamUnion, bool) {
	var text strings.Builder
	hasText := false
	reasoning := map[string]*strings.Builder{}
	var calls []openai.ChatCompletionMessageToolCallUnionParam
	for _, c := range m.Content {
		switch c := c.(type) {
		case *codec.TextContent:
			text.WriteString(c.Text)
			hasText = hasText || c.Text != ""
		case *codec.ThinkingContent:
			if c.Redacted || c.Thinking == "" || !completionsIsReasoningField(c.ThinkingSignature) {
				continue
			}
			b := reasoning[c.ThinkingSignature]
			if b == nil {
				b = &strings.Builder{}
				reasoning[c.ThinkingSignature] = b
			} else {
				b.WriteString("\n")
			}
			b.WriteString(c.Thinking)
		case *codec.ToolCall:
			args := string(c.Arguments)
			if len(c.Arguments) == 0 {
				args = "{}"
			}
			calls = append(calls, openai.ChatCompletionMessageToolCallUnionParam{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
				ID:       c.ID,
				Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: args},
			}})
		}
	}
	if !hasText && len(calls) == 0 && len(reasoning) == 0 {
		return openai.ChatCompletionMessageParamUnion{}, false
	}
	a := &openai.ChatCompletionAssistantMessageParam{ToolCalls: calls}
	switch {
	case hasText:
		a.Content.OfString = openai.String(text.String())
	case len(calls) > 0:
		a.Content.OfString = param.Null[string]()
	default:
		a.Content.OfString = openai.String("")
	}
	if len(reasoning) > 0 {
		extra := map[string]any{}
		for f, b := range reasoning {
			extra[f] = b.String()
		}
		a.SetExtraFields(extra)
	}
	return openai.ChatCompletionMessageParamUnion{OfAssistant: a}, true
}

func completionsIsReasoningField(sig string) bool {
	for _, f := range completionsReasoningFields {
		if sig == f {
			return true
		}
	}
	return false
}

func completionsParts(blocks []codec.Content) []openai.ChatCompletionContentPartUnionParam {
	parts := []openai.ChatCompletionContentPartUnionParam{}
	for _, c := range blocks {
		switch c := c.(type) {
		case *codec.TextContent:
			parts = append(parts, completionsTextPart(c.Text))
		case *codec.ImageContent:
			parts = append(parts, completionsImagePart(c))
		}
	}
	return parts
}

func completionsTextPart(s string) openai.ChatCompletionContentPartUnionParam {
	return openai.ChatCompletionContentPartUnionParam{OfText: &openai.ChatCompletionContentPartTextParam{Text: s}}
}

func completionsImagePart(c *codec.ImageContent) openai.ChatCompletionContentPartUnionParam {
	return openai.ChatCompletionContentPartUnionParam{OfImageURL: &openai.ChatCompletionContentPartImageParam{
		ImageURL: openai.ChatCompletionContentPartImageImageURLParam{URL: "data:" + c.MimeType + ";base64," + c.Data}}}
}

func completionsUser(parts []openai.ChatCompletionContentPartUnionParam) openai.ChatCompletionMessageParamUnion {
	if len(parts) == 0 {
		return completionsUserText("")
	}
	return openai.ChatCompletionMessageParamUnion{OfUser: &openai.ChatCompletionUserMessageParam{
		Content: openai.ChatCompletionUserMessageParamContentUnion{OfArrayOfContentParts: parts}}}
}

func completionsUserText(s string) openai.ChatCompletionMessageParamUnion {
	return openai.ChatCompletionMessageParamUnion{OfUser: &openai.ChatCompletionUserMessageParam{
		Content: openai.ChatCompletionUserMessageParamContentUnion{OfString: openai.String(s)}}}
}
