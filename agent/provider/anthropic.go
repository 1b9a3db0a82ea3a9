package provider

// The Anthropic Messages protocol (api "anthropic-messages"), on the official Go SDK with its
// retries off: the agent loop is the only one that retries, visibly.
//
// Thinking levels (applied only when the model has Reasoning set):
//
//	level          request
//	off, ""        no "thinking" field (the API's default: no thinking)
//	minimal        thinking {type:enabled, budget_tokens:1024,  display:summarized}
//	low            thinking {type:enabled, budget_tokens:4096,  display:summarized}
//	medium         thinking {type:enabled, budget_tokens:8192,  display:summarized}
//	high           thinking {type:enabled, budget_tokens:16384, display:summarized}
//	xhigh          thinking {type:enabled, budget_tokens:32768, display:summarized}
//
// Models with adaptive thinking (Model.AdaptiveThinking) get thinking {type:adaptive,
// display:summarized} and output_config {effort}: minimal and low → low, medium, high and
// xhigh as named; off sends neither (the model's default).
//
// The budget must be at least 1024 and below max_tokens (the model's MaxTokens, 16384 when
// the model does not say): it is capped at max_tokens-1024 so that the answer keeps room,
// and thinking is left off when even 1024 does not fit. With thinking on, the request also
// carries the "anthropic-beta: interleaved-thinking-2025-05-14" header so the model can
// think between tool calls.
//
// Stop reasons: end_turn, stop_sequence → stop; max_tokens, model_context_window_exceeded
// → length; tool_use → toolUse; pause_turn → stop (a paused server-tool turn: we use no
// server tools, and what arrived is kept and can be continued with a new prompt); refusal →
// error "refusal: …" with the provider's stop_details (its explanation and category, e.g.
// "refusal: cyber: This request triggered restrictions…"; a generic text only when it sent
// none), not retried: the content so far is kept, but the answer was withheld,
// so the run must not look successful); any other reason the API adds later → stop.
//
// Caching: the system prompt, the last tool and the last user message carry
// cache_control {type:ephemeral}, so each turn reads the previous turn's prefix from the cache.

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/basecontext/base-context/codec"
)

const (
	anthropicDefaultMaxTokens = 16384
	anthropicMinThinking      = 1024 // the API's smallest budget_tokens
	anthropicInterleavedBeta  = "interleaved-thinking-2025-05-14"
	// anthropicRedactedText stands in for the text of a redacted thinking block, whose
	// content arrives encrypted (kept as the block's signature, to be sent back as it is).
	anthropicRedactedText = "[Reasoning redacted]"
)

// anthropicEfforts maps a thinking level to the effort of a model with adaptive thinking.
var anthropicEfforts = map[string]anthropic.OutputConfigEffort{
	"minimal": anthropic.OutputConfigEffortLow,
	"low":     anthropic.OutputConfigEffortLow,
	"medium":  anthropic.OutputConfigEffortMedium,
	"high":    anthropic.OutputConfigEffortHigh,
	"xhigh":   anthropic.OutputConfigEffortXhigh,
}

// anthropicThinkingBudgets maps a thinking level to budget_tokens (see the table above).
var anthropicThinkingBudgets = map[string]int64{
	"minimal": 1024,
	"low":     4096,
	"medium":  8192,
	"high":    16384,
	"xhigh":   32768,
}

type anthropicProvider struct {
	client anthropic.Client
}

// NewAnthropic returns the provider speaking the Anthropic Messages API at ep. An empty
// BaseURL is the public API; a base URL ending in /v1 is accepted as well as one without
// (the SDK adds /v1/messages). The key is sent as x-api-key. Nothing is read from the
// environment: the caller resolved the key and the URL.
func NewAnthropic(ep Endpoint) Provider {
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithMaxRetries(0),
		option.WithHTTPClient(ep.client()),
	}
	if base := anthropicBaseURL(ep.BaseURL); base != "" {
		opts = append(opts, option.WithBaseURL(base))
	}
	if ep.APIKey != "" {
		opts = append(opts, option.WithHeader("x-api-key", ep.APIKey))
	}
	for k, v := range ep.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	return &anthropicProvider{client: anthropic.NewClient(opts...)}
}

// anthropicBaseURL drops a trailing /v1 from a configured base URL: the SDK appends
// v1/messages itself, and OpenAI-style configurations name the /v1 root.
func anthropicBaseURL(base string) string {
	base = strings.TrimRight(base, "/")
	return strings.TrimSuffix(base, "/v1")
}

// Stream sends one Messages request and maps its SSE stream to events.
func (p *anthropicProvider) Stream(ctx context.Context, req Request, emit func(Event)) error {
	params, opts := anthropicParams(req)
	stream := p.client.Messages.NewStreaming(ctx, params, opts...)
	defer stream.Close()
	st := anthropicStream{emit: emit, blocks: map[int64]*anthropicBlock{}, prices: req.Model.Cost}
	for stream.Next() {
		st.handle(stream.Current())
	}
	if err := stream.Err(); err != nil {
		return anthropicError(ctx, err, st.started)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return st.finish(req.Model.Cost)
}

// anthropicParams builds the request body and the per-request options.
func anthropicParams(req Request) (anthropic.MessageNewParams, []option.RequestOption) {
	maxTokens := req.Model.MaxTokens
	if maxTokens <= 0 {
		maxTokens = anthropicDefaultMaxTokens
	}
	params := anthropic.MessageNewParams{
		Model:     anthropic.Model(req.Model.ID),
		MaxTokens: maxTokens,
		Messages:  anthropicMessages(req.Messages),
	}
	if req.SystemPrompt != "" {
		params.System = []anthropic.TextBlockParam{{Text: req.SystemPrompt, CacheControl: anthropic.NewCacheControlEphemeralParam()}}
	}
	for i, t := range req.Tools {
		schema := t.Parameters
		if len(schema) == 0 || string(schema) == "null" {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		tool := &anthropic.ToolParam{
			Name:        t.Name,
			InputSchema: param.Override[anthropic.ToolInputSchemaParam](schema),
			// Argument fragments as they are generated, not after the whole call.
			EagerInputStreaming: anthropic.Bool(true),
		}
		if t.Description != "" {
			tool.Description = anthropic.String(t.Description)
		}
		if i == len(req.Tools)-1 {
			tool.CacheControl = anthropic.NewCacheControlEphemeralParam()
		}
		params.Tools = append(params.Tools, anthropic.ToolUnionParam{OfTool: tool})
	}
	var opts []option.RequestOption
	if effort, ok := anthropicEfforts[req.ThinkingLevel]; ok && req.Model.Reasoning && req.Model.AdaptiveThinking {
		params.Thinking = anthropic.ThinkingConfigParamUnion{OfAdaptive: &anthropic.ThinkingConfigAdaptiveParam{
			Display: anthropic.ThinkingConfigAdaptiveDisplaySummarized,
		}}
		params.OutputConfig = anthropic.OutputConfigParam{Effort: effort}
	} else if budget, ok := anthropicThinkingBudget(req.Model, req.ThinkingLevel, maxTokens); ok && !req.Model.AdaptiveThinking {
		params.Thinking = anthropic.ThinkingConfigParamUnion{OfEnabled: &anthropic.ThinkingConfigEnabledParam{
			BudgetTokens: budget,
			Display:      "summarized",
		}}
		opts = append(opts, option.WithHeaderAdd("anthropic-beta", anthropicInterleavedBeta))
	}
	return params, opts
}

// anthropicThinkingBudget is the budget_tokens for a level, false when thinking stays off.
func anthropicThinkingBudget(m Model, level string, maxTokens int64) (int64, bool) {
	if !m.Reasoning || level == "" || level == "off" {
		return 0, false
	}
	budget, ok := anthropicThinkingBudgets[level]
	if !ok {
		budget = anthropicThinkingBudgets["medium"]
	}
	budget = min(budget, maxTokens-anthropicMinThinking)
	if budget < anthropicMinThinking {
		if maxTokens <= anthropicMinThinking {
			return 0, false
		}
		budget = anthropicMinThinking
	}
	return budget, true
}

// anthropicMessages converts the conversation. Consecutive tool results go into one user
// message (the API wants every result of an assistant turn in the next user turn); the last
// user message carries the cache breakpoint.
func anthropicMessages(msgs []codec.Message) []anthropic.MessageParam {
	var out []anthropic.MessageParam
	var results []anthropic.ContentBlockParamUnion // tool results not yet sent
	flush := func() {
		if len(results) > 0 {
			out = append(out, anthropic.NewUserMessage(results...))
			results = nil
		}
	}
	user := func(blocks []anthropic.ContentBlockParamUnion) {
		flush()
		if len(blocks) > 0 {
			out = append(out, anthropic.NewUserMessage(blocks...))
		}
	}
	for _, m := range msgs {
		switch m := AsUserMessage(m).(type) {
		case *codec.UserMessage:
			if m.Blocks == nil {
				user(anthropicText(m.Text))
			} else {
				user(anthropicUserBlocks(m.Blocks))
			}
		case *codec.AssistantMessage:
			flush()
			if blocks := anthropicAssistantBlocks(m); len(blocks) > 0 {
				out = append(out, anthropic.NewAssistantMessage(blocks...))
			}
		case *codec.ToolResultMessage:
			results = append(results, anthropicToolResult(m))
		}
	}
	flush()
	for i := len(out) - 1; i >= 0; i-- {
		if u := out[i].OfUser; u != nil {
			anthropicCacheLast(u.Content)
			break
		}
	}
	return out
}

// anthropicCacheLast puts the cache breakpoint on the last block of a user message.
func anthropicCacheLast(blocks []anthropic.ContentBlockParamUnion) {
	if len(blocks) == 0 {
		return
	}
	cc := anthropic.NewCacheControlEphemeralParam()
	switch b := blocks[len(blocks)-1]; {
	case b.OfText != nil:
		b.OfText.CacheControl = cc
	case b.OfImage != nil:
		b.OfImage.CacheControl = cc
	case b.OfToolResult != nil:
		b.OfToolResult.CacheControl = cc
	}
}

// anthropicText is a text block, or nothing for empty text (the API rejects empty blocks).
func anthropicText(s string) []anthropic.ContentBlockParamUnion {
	if s == "" {
		return nil
	}
	return []anthropic.ContentBlockParamUnion{anthropic.NewTextBlock(s)}
}

func anthropicImage(img *codec.ImageContent) anthropic.ContentBlockParamUnion {
	return anthropic.ContentBlockParamUnion{OfImage: &anthropic.ImageBlockParam{
		Source: anthropic.ImageBlockParamSourceUnion{OfBase64: &anthropic.Base64ImageSourceParam{
			Data: img.Data, MediaType: anthropic.Base64ImageSourceMediaType(img.MimeType),
		}},
	}}
}

func anthropicUserBlocks(cs []codec.Content) []anthropic.ContentBlockParamUnion {
	var out []anthropic.ContentBlockParamUnion
	for _, c := range cs {
		switch c := c.(type) {
		case *codec.TextContent:
			out = append(out, anthropicText(c.Text)...)
		case *codec.ImageContent:
			out = append(out, anthropicImage(c))
		}
	}
	return out
}

// anthropicAssistantBlocks converts a previous answer. Thinking blocks go back with their
// signatures unchanged, redacted ones as redacted_thinking with their data; thinking that
// has no signature, or came from another API (whose signatures Anthropic cannot verify),
// goes back as plain text so that the model still sees it.
func anthropicAssistantBlocks(m *codec.AssistantMessage) []anthropic.ContentBlockParamUnion {
	own := m.API == APIAnthropicMessages
	var out []anthropic.ContentBlockParamUnion
	for _, c := range m.Content {
		switch c := c.(type) {
		case *codec.TextContent:
			out = append(out, anthropicText(c.Text)...)
		case *codec.ThinkingContent:
			// A redacted block streams as thinking with a placeholder text, flagged redacted,
			// its encrypted data as the signature.
			redacted := c.Redacted
			switch {
			case redacted && own:
				out = append(out, anthropic.NewRedactedThinkingBlock(c.ThinkingSignature))
			case redacted:
				// Another API's encrypted reasoning: nothing Anthropic can read.
			case own && c.ThinkingSignature != "":
				out = append(out, anthropic.NewThinkingBlock(c.ThinkingSignature, c.Thinking))
			default:
				out = append(out, anthropicText(c.Thinking)...)
			}
		case *codec.ToolCall:
			args := c.Arguments
			if !json.Valid(args) {
				args = json.RawMessage(`{}`)
			}
			out = append(out, anthropic.NewToolUseBlock(anthropicToolID(c.ID), args, c.Name))
		}
	}
	return out
}

func anthropicToolResult(m *codec.ToolResultMessage) anthropic.ContentBlockParamUnion {
	res := &anthropic.ToolResultBlockParam{ToolUseID: anthropicToolID(m.ToolCallID), IsError: anthropic.Bool(m.IsError)}
	for _, c := range m.Content {
		switch c := c.(type) {
		case *codec.TextContent:
			if c.Text != "" {
				res.Content = append(res.Content, anthropic.ToolResultBlockParamContentUnion{OfText: &anthropic.TextBlockParam{Text: c.Text}})
			}
		case *codec.ImageContent:
			img := anthropicImage(c)
			res.Content = append(res.Content, anthropic.ToolResultBlockParamContentUnion{OfImage: img.OfImage})
		}
	}
	return anthropic.ContentBlockParamUnion{OfToolResult: res}
}

// anthropicToolID makes a tool call id acceptable to the API (letters, digits, _ and -, at
// most 64 characters): ids from other APIs may hold other characters. The same id maps to
// the same result in the call and in its result.
func anthropicToolID(id string) string {
	b := []byte(id)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	if len(b) == 0 {
		return "tool_call"
	}
	return string(b)
}

// anthropicStream maps the SSE events of one response to provider events.
type anthropicStream struct {
	emit    func(Event)
	prices  Prices
	started bool // an event arrived: a failure from now on cut the stream off
	blocks  map[int64]*anthropicBlock

	usage      codec.Usage
	stopReason string // the API's, "" until message_delta says
	// refusalCategory and refusalExplanation: the stop_details of a refusal, as the API
	// gave them ("" when it gave none).
	refusalCategory, refusalExplanation string
}

// anthropicBlock is an open content block: thinking signatures arrive in pieces, and a
// tool call whose input came whole in its start event (some compatible servers do that)
// gets it as its one fragment.
type anthropicBlock struct {
	kind      string
	signature strings.Builder
	input     string // the tool_use input of the start event
	deltas    int
}

func (s *anthropicStream) handle(ev anthropic.MessageStreamEventUnion) {
	s.started = true
	idx := int(ev.Index)
	switch ev.Type {
	case "message_start":
		s.mergeUsage(ev.Message.Usage.InputTokens, ev.Message.Usage.OutputTokens,
			ev.Message.Usage.CacheReadInputTokens, ev.Message.Usage.CacheCreationInputTokens, true, true, true, true)
		// With its cost: a response that fails from here on keeps this usage.
		u := s.usage
		u.Cost = CostOf(u, s.prices)
		s.emit(Event{Kind: Metadata, ResponseID: ev.Message.ID, Usage: u, HasUsage: true})
	case "content_block_start":
		cb := ev.ContentBlock
		b := &anthropicBlock{}
		switch cb.Type {
		case "text":
			b.kind = "text"
			s.emit(Event{Kind: BlockStart, Block: idx, BlockKind: "text"})
			s.startText(idx, b, cb.Text)
		case "thinking":
			b.kind = "thinking"
			b.signature.WriteString(cb.Signature)
			s.emit(Event{Kind: BlockStart, Block: idx, BlockKind: "thinking"})
			s.startText(idx, b, cb.Thinking)
		case "redacted_thinking":
			b.kind = "thinking"
			b.signature.WriteString(cb.Data)
			s.emit(Event{Kind: BlockStart, Block: idx, BlockKind: "thinking", Redacted: true})
			s.startText(idx, b, anthropicRedactedText)
		case "tool_use":
			b.kind = "toolCall"
			if raw := strings.TrimSpace(cb.JSON.Input.Raw()); raw != "" && raw != "{}" && raw != "null" {
				b.input = raw
			}
			s.emit(Event{Kind: BlockStart, Block: idx, BlockKind: "toolCall", ToolCallID: cb.ID, ToolName: cb.Name})
		default:
			return // server tools and their results: not requested, not shown
		}
		s.blocks[ev.Index] = b
	case "content_block_delta":
		b := s.blocks[ev.Index]
		if b == nil {
			return
		}
		switch d := ev.Delta; d.Type {
		case "text_delta":
			s.delta(idx, b, d.Text)
		case "thinking_delta":
			s.delta(idx, b, d.Thinking)
		case "input_json_delta":
			s.delta(idx, b, d.PartialJSON)
		case "signature_delta":
			b.signature.WriteString(d.Signature)
		}
	case "content_block_stop":
		b := s.blocks[ev.Index]
		if b == nil {
			return
		}
		if b.kind == "toolCall" && b.deltas == 0 && b.input != "" {
			s.emit(Event{Kind: BlockDelta, Block: idx, Delta: b.input})
		}
		s.emit(Event{Kind: BlockEnd, Block: idx, Signature: b.signature.String()})
		delete(s.blocks, ev.Index)
	case "message_delta":
		u := ev.Usage
		s.mergeUsage(u.InputTokens, u.OutputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens,
			u.JSON.InputTokens.Valid(), u.JSON.OutputTokens.Valid(), u.JSON.CacheReadInputTokens.Valid(),
			u.JSON.CacheCreationInputTokens.Valid())
		if r := string(ev.Delta.StopReason); r != "" {
			s.stopReason = r
		}
		if d := ev.Delta.StopDetails; ev.Delta.JSON.StopDetails.Valid() {
			s.refusalCategory, s.refusalExplanation = string(d.Category), d.Explanation
		}
	}
	// message_stop ends the stream; unknown events are ignored, as the API asks.
}

func (s *anthropicStream) delta(idx int, b *anthropicBlock, text string) {
	b.deltas++
	s.emit(Event{Kind: BlockDelta, Block: idx, Delta: text})
}

// startText emits the text a start event carries, which is usually empty: an empty one is
// not worth an update.
func (s *anthropicStream) startText(idx int, b *anthropicBlock, text string) {
	if text != "" {
		s.delta(idx, b, text)
	}
}

// mergeUsage takes the counts the event has: message_delta counts are cumulative and
// replace the earlier ones; a count it leaves out stays.
func (s *anthropicStream) mergeUsage(in, out, cacheRead, cacheWrite int64, hasIn, hasOut, hasRead, hasWrite bool) {
	if hasIn {
		s.usage.Input = in
	}
	if hasOut {
		s.usage.Output = out
	}
	if hasRead {
		s.usage.CacheRead = cacheRead
	}
	if hasWrite {
		s.usage.CacheWrite = cacheWrite
	}
	s.usage.TotalTokens = s.usage.Input + s.usage.Output + s.usage.CacheRead + s.usage.CacheWrite
}

// finish ends a stream that closed cleanly: with the finish the API reported, or as an
// error when it reported none.
func (s *anthropicStream) finish(prices Prices) error {
	usage := s.usage
	usage.Cost = CostOf(usage, prices)
	var stop string
	switch s.stopReason {
	case "":
		return NoFinish()
	case "max_tokens", "model_context_window_exceeded":
		stop = codec.StopReasonLength
	case "tool_use":
		stop = codec.StopReasonToolUse
	case "refusal":
		s.emit(Event{Kind: Metadata, Usage: usage, HasUsage: true})
		msg := s.refusalExplanation
		if msg == "" {
			msg = "the model declined to answer"
		}
		if s.refusalCategory != "" {
			msg = s.refusalCategory + ": " + msg
		}
		return StreamError("refusal", msg)
	default: // end_turn, stop_sequence, pause_turn and reasons added later
		stop = codec.StopReasonStop
	}
	s.emit(Event{Kind: Done, StopReason: stop, Usage: usage, HasUsage: true})
	return nil
}

// anthropicError classifies a failure of the request or of its stream. started says events
// had arrived: a broken connection then cut the answer off.
func anthropicError(ctx context.Context, err error, started bool) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	var aerr *anthropic.Error
	if errors.As(err, &aerr) {
		if aerr.StatusCode >= 400 {
			var body []byte
			var header http.Header
			if aerr.Response != nil {
				header = aerr.Response.Header
				if aerr.Response.Body != nil {
					body, _ = io.ReadAll(aerr.Response.Body)
				}
			}
			if body == nil {
				body = []byte(aerr.RawJSON())
			}
			return HTTPError(aerr.StatusCode, header, body)
		}
		// An error event inside a stream that began with HTTP 200.
		var ev struct {
			Error struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal([]byte(aerr.RawJSON()), &ev) != nil || ev.Error.Message == "" && ev.Error.Type == "" {
			return StreamError("", aerr.RawJSON())
		}
		return StreamError(ev.Error.Type, ev.Error.Message)
	}
	if started {
		return BodyReadError(err)
	}
	return TransportError(err)
}
