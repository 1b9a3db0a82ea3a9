package provider

// The OpenAI Responses API (api "openai-responses"): POST <base>/responses with stream:true
// and store:false, so every request carries the whole conversation and nothing is kept on
// OpenAI's side.
//
// Thinking levels (only for models with Reasoning; other models get no reasoning fields):
//
//	level     reasoning.effort   reasoning.summary   include
//	off       (not sent)         (not sent)          reasoning.encrypted_content
//	minimal   minimal            auto                reasoning.encrypted_content
//	low       low                auto                reasoning.encrypted_content
//	medium    medium             auto                reasoning.encrypted_content
//	high      high               auto                reasoning.encrypted_content
//	xhigh     xhigh              auto                reasoning.encrypted_content
//
// "off" leaves the effort to the model: gpt-5.1 and later do not reason by default, while
// gpt-5 and the o-series cannot turn reasoning off and reason at their default effort. The
// API has no effort that every model accepts, so sending none is the only choice that never
// fails; a level a model does not support (minimal on gpt-5.1, xhigh on older models) fails
// with the API's own 400 message.
//
// What goes back and forth:
//   - A reasoning item becomes a thinking block whose text is its summary (parts joined by a
//     blank line) and whose thinkingSignature is the item's JSON as the API sent it, with its
//     encrypted_content. With store:false the API keeps nothing, so later requests send that
//     JSON back unchanged as the reasoning item. Thinking from another API, or a reasoning
//     item without encrypted content, cannot be replayed and is left out of later requests.
//   - A message item becomes a text block whose textSignature is the item's id (msg_…); the
//     API wants a replayed reasoning item followed by the item it produced, id included.
//   - A function_call item becomes a tool call whose id is "<call_id>|<item id>": the call id
//     is what function_call_output refers to, the item id is needed to replay the call.
//   - A tool result becomes a function_call_output for the call id. The API has no error
//     flag, so a failed tool's output starts with "Error: ".
//   - Usage: input_tokens include the cached ones; input is reported without them and the
//     cached ones as cacheRead. The API reports no cache writes.
//   - Stop: completed → stop, or toolUse when the response has function calls; incomplete
//     for max_output_tokens → length; incomplete for content_filter, failed and error
//     events → errors.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/basecontext/base-context/codec"
)

// responsesIDSeparator joins a function call's call_id and item id in ToolCall.ID.
const responsesIDSeparator = "|"

// responsesErrorPrefix marks the output of a failed tool: the API has no error flag.
const responsesErrorPrefix = "Error: "

// NewOpenAIResponses returns the provider speaking the OpenAI Responses API at ep.
func NewOpenAIResponses(ep Endpoint) Provider {
	return &responsesProvider{service: responses.NewResponseService(openaiOptions(ep)...)}
}

type responsesProvider struct {
	service responses.ResponseService
}

// Stream sends the request and maps the response's SSE events to provider events.
func (p *responsesProvider) Stream(ctx context.Context, req Request, emit func(Event)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	params, err := responsesParams(req)
	if err != nil {
		return &Error{Message: err.Error()}
	}
	var httpResp *http.Response
	stream := p.service.NewStreaming(ctx, params, option.WithResponseInto(&httpResp))
	defer stream.Close()
	if err := stream.Err(); err != nil {
		return responsesRequestError(ctx, err, httpResp)
	}
	st := responsesStream{emit: emit, blocks: map[int64]*responsesBlock{}, prices: req.Model.Cost}
	for stream.Next() {
		done, err := st.handle(stream.Current())
		if err != nil || done {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := stream.Err(); err != nil {
		return responsesStreamError(err)
	}
	return NoFinish()
}

// responsesRequestError classifies a failure before the stream began: an HTTP error status
// with the body the API sent, or a failed round trip.
func responsesRequestError(ctx context.Context, err error, resp *http.Response) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) && apiErr.Response != nil {
		resp = apiErr.Response
	}
	// The SDK fails to decode bodies that are empty, flat or not JSON, and returns that
	// decoding error instead of its API error: the response it saved still has the body.
	if resp != nil && resp.StatusCode >= 400 {
		var body []byte
		if resp.Body != nil {
			body, _ = io.ReadAll(resp.Body)
		}
		return HTTPError(resp.StatusCode, resp.Header, body)
	}
	return TransportError(err)
}

// responsesStreamError classifies a failure while the stream was read: an event carrying
// an error object, an event that is not JSON, or a body cut off.
func responsesStreamError(err error) error {
	var sse *ssestream.StreamError
	if errors.As(err, &sse) {
		// An event with an "error" member: {"type":"error","error":{"type"|"code","message"}}.
		var ev struct {
			Error struct {
				Type    string `json:"type"`
				Code    any    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(sse.Event.Data, &ev) == nil {
			code := ev.Error.Type
			if c, ok := ev.Error.Code.(string); ok && c != "" {
				code = c
			}
			if ev.Error.Message != "" || code != "" {
				return StreamError(code, ev.Error.Message)
			}
		}
		return StreamError("", BodyMessage(sse.Event.Data))
	}
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syntax) || errors.As(err, &typ) {
		return &Error{Message: "the response stream has an event that is not valid JSON: " + err.Error()}
	}
	return CutOff(err)
}

// responsesBlock is an output item being streamed as a content block.
type responsesBlock struct {
	kind     string // "text", "thinking" or "toolCall"
	open     bool
	streamed bool  // a delta was emitted
	summary  int64 // the reasoning summary part the last delta belonged to
}

// responsesStream turns the SSE events of one response into provider events. Blocks are
// numbered by the items' output_index.
type responsesStream struct {
	emit        func(Event)
	blocks      map[int64]*responsesBlock
	order       []int64 // output indexes in start order
	prices      Prices
	responseID  string
	sawToolCall bool
}

// handle takes one event; done reports the response finished.
func (s *responsesStream) handle(ev responses.ResponseStreamEventUnion) (done bool, err error) {
	switch ev.Type {
	case "response.created", "response.in_progress":
		s.noteID(ev.Response.ID)
	case "response.output_item.added":
		s.start(ev.OutputIndex, ev.Item)
	case "response.output_text.delta", "response.refusal.delta", "response.reasoning_text.delta",
		"response.function_call_arguments.delta":
		s.delta(ev.OutputIndex, ev.Delta)
	case "response.reasoning_summary_text.delta":
		if b := s.blocks[ev.OutputIndex]; b != nil && b.streamed && ev.SummaryIndex != b.summary {
			s.delta(ev.OutputIndex, "\n\n") // summary parts are paragraphs
		}
		if b := s.blocks[ev.OutputIndex]; b != nil {
			b.summary = ev.SummaryIndex
		}
		s.delta(ev.OutputIndex, ev.Delta)
	case "response.output_text.done":
		s.fill(ev.OutputIndex, ev.Text)
	case "response.function_call_arguments.done":
		s.fill(ev.OutputIndex, ev.Arguments)
	case "response.output_item.done":
		s.done(ev.OutputIndex, ev.Item)
	case "response.completed", "response.incomplete":
		return true, s.finish(ev.Response)
	case "response.failed":
		e := ev.Response.Error
		return true, StreamError(string(e.Code), e.Message)
	case "error":
		return true, StreamError(ev.Code, ev.Message)
	}
	return false, nil
}

func (s *responsesStream) noteID(id string) {
	if id != "" && id != s.responseID {
		s.responseID = id
		s.emit(Event{Kind: Metadata, ResponseID: id})
	}
}

// start opens the block of an output item; items of other kinds (hosted tools) are not
// part of the message.
func (s *responsesStream) start(index int64, item responses.ResponseOutputItemUnion) *responsesBlock {
	if b := s.blocks[index]; b != nil {
		return b
	}
	ev := Event{Kind: BlockStart, Block: int(index)}
	switch item.Type {
	case "message":
		ev.BlockKind = "text"
	case "reasoning":
		ev.BlockKind = "thinking"
	case "function_call":
		ev.BlockKind = "toolCall"
		ev.ToolCallID = responsesToolCallID(item.CallID, item.ID)
		ev.ToolName = item.Name
		s.sawToolCall = true
	default:
		return nil
	}
	b := &responsesBlock{kind: ev.BlockKind, open: true}
	s.blocks[index] = b
	s.order = append(s.order, index)
	s.emit(ev)
	return b
}

func (s *responsesStream) delta(index int64, d string) {
	b := s.blocks[index]
	if b == nil || !b.open || d == "" {
		return
	}
	b.streamed = true
	s.emit(Event{Kind: BlockDelta, Block: int(index), Delta: d})
}

// fill emits a block's whole content when the server sent it only at the end, without
// deltas (some compatible servers do).
func (s *responsesStream) fill(index int64, whole string) {
	if b := s.blocks[index]; b != nil && !b.streamed {
		s.delta(index, whole)
	}
}

// done closes an item's block with its signature: the reasoning item's JSON, the message's
// id.
func (s *responsesStream) done(index int64, item responses.ResponseOutputItemUnion) {
	b := s.start(index, item)
	if b == nil || !b.open {
		return
	}
	sig := ""
	switch item.Type {
	case "message":
		var text strings.Builder
		for _, c := range item.Content {
			text.WriteString(c.Text)
			text.WriteString(c.Refusal)
		}
		s.fill(index, text.String())
		sig = item.ID
	case "reasoning":
		var parts []string
		for _, p := range item.Summary {
			parts = append(parts, p.Text)
		}
		s.fill(index, strings.Join(parts, "\n\n"))
		sig = item.RawJSON()
	case "function_call":
		s.fill(index, item.Arguments.OfString)
	}
	b.open = false
	s.emit(Event{Kind: BlockEnd, Block: int(index), Signature: sig})
}

// finish ends a completed or incomplete response with its stop reason and usage.
func (s *responsesStream) finish(r responses.Response) error {
	s.noteID(r.ID)
	stop := codec.StopReasonStop
	if s.sawToolCall {
		stop = codec.StopReasonToolUse
	}
	if r.Status == "incomplete" || r.IncompleteDetails.Reason != "" {
		if r.IncompleteDetails.Reason == "content_filter" {
			return StreamError("content_filter", "the response was stopped by the content filter")
		}
		stop = codec.StopReasonLength // max_output_tokens
	}
	for _, index := range s.order {
		if b := s.blocks[index]; b.open {
			b.open = false
			s.emit(Event{Kind: BlockEnd, Block: int(index)})
		}
	}
	u := r.Usage
	cached := u.InputTokensDetails.CachedTokens
	usage := codec.Usage{Input: u.InputTokens - cached, Output: u.OutputTokens, CacheRead: cached}
	usage.TotalTokens = usage.Input + usage.Output + usage.CacheRead
	usage.Cost = CostOf(usage, s.prices)
	s.emit(Event{Kind: Done, StopReason: stop, Usage: usage, HasUsage: true})
	return nil
}

// responsesToolCallID joins a call id and an item id into a ToolCall.ID.
func responsesToolCallID(callID, itemID string) string {
	if itemID == "" {
		return callID
	}
	return callID + responsesIDSeparator + itemID
}

// responsesSplitID splits a ToolCall.ID into the call id and the item id ("" when the id
// has none: a call from another API).
func responsesSplitID(id string) (callID, itemID string) {
	callID, itemID, _ = strings.Cut(id, responsesIDSeparator)
	return callID, itemID
}

// responsesEfforts maps thinking levels to reasoning.effort; "off" and unknown levels send
// none.
var responsesEfforts = map[string]shared.ReasoningEffort{
	"minimal": shared.ReasoningEffortMinimal,
	"low":     shared.ReasoningEffortLow,
	"medium":  shared.ReasoningEffortMedium,
	"high":    shared.ReasoningEffortHigh,
	"xhigh":   shared.ReasoningEffortXhigh,
}

// responsesParams is the request body for req.
func responsesParams(req Request) (responses.ResponseNewParams, error) {
	params := responses.ResponseNewParams{
		Model: req.Model.ID,
		Store: openai.Bool(false),
	}
	if req.SystemPrompt != "" {
		params.Instructions = openai.String(req.SystemPrompt)
	}
	if req.Model.MaxTokens > 0 {
		params.MaxOutputTokens = openai.Int(req.Model.MaxTokens)
	}
	if req.Model.Reasoning {
		// Without store, reasoning can only be carried to the next turn encrypted.
		params.Include = []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}
		if effort, ok := responsesEfforts[req.ThinkingLevel]; ok {
			params.Reasoning = shared.ReasoningParam{Effort: effort, Summary: shared.ReasoningSummaryAuto}
		}
	}
	for _, t := range req.Tools {
		schema := map[string]any{}
		if len(bytes.TrimSpace(t.Parameters)) > 0 {
			if err := json.Unmarshal(t.Parameters, &schema); err != nil {
				return params, fmt.Errorf("tool %s: parameters are not a JSON object: %v", t.Name, err)
			}
		} else {
			schema = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		fn := &responses.FunctionToolParam{Name: t.Name, Parameters: schema, Strict: openai.Bool(false)}
		if t.Description != "" {
			fn.Description = openai.String(t.Description)
		}
		params.Tools = append(params.Tools, responses.ToolUnionParam{OfFunction: fn})
	}
	var input responses.ResponseInputParam
	for _, m := range req.Messages {
		input = responsesAppendMessage(input, m)
	}
	params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input}
	return params, nil
}

// responsesAppendMessage appends the input items of one conversation message.
func responsesAppendMessage(input responses.ResponseInputParam, m codec.Message) responses.ResponseInputParam {
	switch m := AsUserMessage(m).(type) {
	case *codec.UserMessage:
		if m.Blocks == nil {
			return responsesAppendUser(input, []codec.Content{&codec.TextContent{Text: m.Text}})
		}
		return responsesAppendUser(input, m.Blocks)
	case *codec.AssistantMessage:
		return responsesAppendAssistant(input, m)
	case *codec.ToolResultMessage:
		return append(input, responsesToolResult(m))
	}
	return input
}

// responsesAppendUser appends a user message of text and images.
func responsesAppendUser(input responses.ResponseInputParam, blocks []codec.Content) responses.ResponseInputParam {
	var parts responses.ResponseInputMessageContentListParam
	for _, c := range blocks {
		switch c := c.(type) {
		case *codec.TextContent:
			parts = append(parts, responses.ResponseInputContentUnionParam{OfInputText: &responses.ResponseInputTextParam{Text: c.Text}})
		case *codec.ImageContent:
			parts = append(parts, responses.ResponseInputContentUnionParam{OfInputImage: &responses.ResponseInputImageParam{
				Detail: responses.ResponseInputImageDetailAuto, ImageURL: openai.String(responsesDataURL(c))}})
		}
	}
	if len(parts) == 0 {
		return input
	}
	return append(input, responses.ResponseInputItemUnionParam{OfMessage: &responses.EasyInputMessageParam{
		Role: responses.EasyInputMessageRoleUser, Content: responses.EasyInputMessageContentUnionParam{OfInputItemContentList: parts}}})
}

func responsesDataURL(img *codec.ImageContent) string {
	return "data:" + img.MimeType + ";base64," + img.Data
}

// responsesAppendAssistant appends an assistant message's items in content order:
// reasoning items (replayed from their signatures), messages and function calls.
func responsesAppendAssistant(input responses.ResponseInputParam, m *codec.AssistantMessage) responses.ResponseInputParam {
	own := m.API == APIOpenAIResponses
	for _, c := range m.Content {
		switch c := c.(type) {
		case *codec.ThinkingContent:
			if item, ok := responsesReasoningItem(c, own); ok {
				input = append(input, item)
			}
		case *codec.TextContent:
			if c.Text == "" {
				continue
			}
			if own && c.TextSignature != "" {
				input = append(input, responses.ResponseInputItemUnionParam{OfOutputMessage: &responses.ResponseOutputMessageParam{
					ID:     c.TextSignature,
					Status: responses.ResponseOutputMessageStatusCompleted,
					Content: []responses.ResponseOutputMessageContentUnionParam{{OfOutputText: &responses.ResponseOutputTextParam{
						Text: c.Text, Annotations: []responses.ResponseOutputTextAnnotationUnionParam{}}}},
				}})
				continue
			}
			input = append(input, responses.ResponseInputItemUnionParam{OfMessage: &responses.EasyInputMessageParam{
				Role: responses.EasyInputMessageRoleAssistant, Content: responses.EasyInputMessageContentUnionParam{OfString: openai.String(c.Text)}}})
		case *codec.ToolCall:
			callID, itemID := responsesSplitID(c.ID)
			args := string(c.Arguments)
			if args == "" {
				args = "{}"
			}
			call := &responses.ResponseFunctionToolCallParam{CallID: callID, Name: c.Name, Arguments: args}
			if own && itemID != "" {
				call.ID = openai.String(itemID)
			}
			input = append(input, responses.ResponseInputItemUnionParam{OfFunctionCall: call})
		}
	}
	return input
}

// responsesReasoningItem is the reasoning item a thinking block came from, as its
// signature holds it; ok is false when there is none to replay.
func responsesReasoningItem(c *codec.ThinkingContent, own bool) (responses.ResponseInputItemUnionParam, bool) {
	if !own || c.ThinkingSignature == "" {
		return responses.ResponseInputItemUnionParam{}, false
	}
	var item struct {
		Type             string `json:"type"`
		EncryptedContent string `json:"encrypted_content"`
	}
	if json.Unmarshal([]byte(c.ThinkingSignature), &item) != nil || item.Type != "reasoning" || item.EncryptedContent == "" {
		return responses.ResponseInputItemUnionParam{}, false
	}
	raw := param.Override[responses.ResponseReasoningItemParam](json.RawMessage(c.ThinkingSignature))
	return responses.ResponseInputItemUnionParam{OfReasoning: &raw}, true
}

// responsesToolResult is the function_call_output of a tool result: its text, or text and
// images as a list.
func responsesToolResult(m *codec.ToolResultMessage) responses.ResponseInputItemUnionParam {
	callID, _ := responsesSplitID(m.ToolCallID)
	text, images := toolResultParts(m)
	if m.IsError {
		text = responsesErrorPrefix + text
	}
	out := responses.ResponseInputItemFunctionCallOutputOutputUnionParam{}
	if len(images) == 0 {
		out.OfString = openai.String(text)
	} else {
		if text != "" {
			out.OfResponseFunctionCallOutputItemArray = append(out.OfResponseFunctionCallOutputItemArray,
				responses.ResponseFunctionCallOutputItemUnionParam{OfInputText: &responses.ResponseInputTextContentParam{Text: text}})
		}
		for _, img := range images {
			out.OfResponseFunctionCallOutputItemArray = append(out.OfResponseFunctionCallOutputItemArray,
				responses.ResponseFunctionCallOutputItemUnionParam{OfInputImage: &responses.ResponseInputImageContentParam{
					Detail: responses.ResponseInputImageContentDetailAuto, ImageURL: openai.String(responsesDataURL(img))}})
		}
	}
	return responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
		CallID: openai.String(callID), Output: out}}
}
