package provider

// The Google Gemini protocol (api "google-generative-ai"): generativelanguage.googleapis.com's
// streamGenerateContent?alt=sse, spoken directly over net/http: one POST per call, never
// retried or resumed here (the agent loop is the only one that retries, visibly). The key
// goes in x-goog-api-key. Our own client and not google.golang.org/genai: the SDK brought
// grpc, protobuf, opencensus and Google Cloud auth into the binary, initialised at every
// start, even of a filter, for one streamed POST (the figures are in the design notes
// of docs/design.md).
//
// The stream is server-sent events, each a GenerateContentResponse chunk. Text parts and
// thought parts ("thought": true) alternate in one open block, as on Chat Completions; a
// function call comes whole in one part and is a tool call block at once (several in one chunk are
// parallel calls). A part may carry a thoughtSignature (bytes, base64 on the wire): on a
// thought part it is the thinking block's thinkingSignature, on a text part the text block's
// textSignature (an empty text part carrying only a signature still makes a block, so the
// signature is not lost), on a function call the tool call's thoughtSignature. All three go
// back unchanged on later turns to the same model, which Gemini 3 requires; other models'
// signatures and thinking are not sent. Function calls without an id get one.
//
// Thinking levels (--thinking, only for models marked reasoning): Gemini 3 models take a
// thinkingLevel (minimal → MINIMAL, or LOW on Pro models, which have no minimal; low → LOW;
// medium → MEDIUM; high and xhigh → HIGH), earlier models a thinkingBudget (1024, 4096, 8192,
// 16384, 32768 tokens; at most 24576 on Flash models, and below the model's maximum
// output); both with includeThoughts so that the thinking is shown. off sends no thinking
// config: the model's default, its thoughts not shown.
//
// Usage: input is promptTokenCount (plus toolUsePromptTokenCount) less the cached tokens,
// output is candidatesTokenCount plus thoughtsTokenCount, cacheRead is
// cachedContentTokenCount, totalTokens is the server's totalTokenCount.
//
// Finishes: STOP → stop (toolUse when the response called tools), MAX_TOKENS → length; a
// prompt blocked (promptFeedback.blockReason) and a response stopped for safety, recitation
// or any other reason are errors with the provider's reason and message (the candidate's
// finishMessage, else the safety categories that blocked it). Errors: a failing
// status is read from its body (nested {"error":{code,message,status}}, a list of those, or
// flat), with Retry-After or the RetryInfo delay of its details; an error object inside a
// stream that began with HTTP 200 (an event, or a bare line) is a stream error. Tool call
// ids are not sent back: a function call and its response are matched by their order.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/basecontext/base-context/codec"
)

type geminiProvider struct{ ep Endpoint }

// NewGemini returns the provider speaking the Gemini API at ep. ep.BaseURL may end with the
// API version (https://generativelanguage.googleapis.com/v1beta); without one it is v1beta,
// and "" is Google's endpoint.
func NewGemini(ep Endpoint) Provider { return &geminiProvider{ep: ep} }

// geminiVersion is an API version path segment: v1, v1beta, v1alpha.
var geminiVersion = lazyRegexp(`^v\d+[a-z0-9]*$`)

const (
	geminiDefaultBase    = "https://generativelanguage.googleapis.com"
	geminiDefaultVersion = "v1beta"
)

// target is the URL of a model's streamGenerateContent: the base URL (its version, if it
// ends with one, else v1beta), the model's resource name (models/<id> unless the id names
// its collection), the method, and alt=sse for a stream of server-sent events.
func (p *geminiProvider) target(model string) (string, error) {
	if model == "" || strings.Contains(model, "?") || strings.Contains(model, "&") || strings.Contains(model, "..") {
		// It would change the request's path or query: another method, another resource.
		return "", fmt.Errorf("model %q is not a Gemini model name", model)
	}
	base := p.ep.BaseURL
	if base == "" {
		base = geminiDefaultBase
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("base URL %q: %w", base, err)
	}
	version := geminiDefaultVersion
	path := strings.TrimSuffix(u.Path, "/")
	if i := strings.LastIndex(path, "/"); i >= 0 && geminiVersion().MatchString(path[i+1:]) {
		version, u.Path, u.RawPath = path[i+1:], path[:i], ""
	}
	name := model
	if !strings.HasPrefix(name, "models/") && !strings.HasPrefix(name, "tunedModels/") {
		name = "models/" + name
	}
	u = u.JoinPath(version, name+":streamGenerateContent")
	u.RawQuery = "alt=sse"
	return u.String(), nil
}

// Stream sends one request and maps the streamed chunks to events.
func (p *geminiProvider) Stream(ctx context.Context, req Request, emit func(Event)) error {
	body, err := geminiBody(req)
	if err != nil {
		return TransportError(err)
	}
	target, err := p.target(req.Model.ID)
	if err != nil {
		return TransportError(err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return TransportError(err)
	}
	for k, v := range p.ep.Headers {
		hreq.Header.Set(k, v)
	}
	hreq.Header.Set("Content-Type", "application/json")
	if p.ep.APIKey != "" {
		hreq.Header.Set("x-goog-api-key", p.ep.APIKey)
	}
	res, err := p.ep.client().Do(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return TransportError(err)
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		e := HTTPError(res.StatusCode, res.Header, body)
		if e.RetryAfter == 0 {
			e.RetryAfter = geminiRetryDelay(body)
		}
		return e
	}
	st := geminiState{emit: emit, open: -1, prices: req.Model.Cost}
	err = geminiEvents(res.Body, func(data []byte, ended bool) error {
		var chunk geminiResponse
		err := json.Unmarshal(data, &chunk)
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			if !ended {
				return CutOff(nil) // the body ended in the middle of its last event
			}
			return fmt.Errorf("a stream event is not JSON (%v): %s", err, geminiQuote(data))
		}
		if e := geminiStreamError(chunk.Error); e != nil {
			return e
		}
		if err != nil {
			return fmt.Errorf("a stream event does not read as a Gemini response (%v): %s", err, geminiQuote(data))
		}
		return st.chunk(&chunk)
	})
	if err != nil {
		st.closeOpen() // an aborted answer's thinking keeps its signature too
		if ctx.Err() != nil {
			return ctx.Err()
		}
		st.keepUsage()
		var perr *Error
		if errors.As(err, &perr) {
			return perr
		}
		return BodyReadError(err)
	}
	if ctx.Err() != nil {
		st.closeOpen()
		return ctx.Err()
	}
	return st.end()
}

// geminiStreamError is the error object that came in place of a chunk, nil when there is
// none. An object of the usual shape keeps its status name and code; any other says what
// it can.
func geminiStreamError(raw json.RawMessage) *Error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var apiErr geminiAPIError
	if json.Unmarshal(raw, &apiErr) != nil {
		return StreamError("", BodyMessage(raw))
	}
	e := StreamError(apiErr.Status, apiErr.Message)
	e.Retryable = e.Retryable || RetryableStatus(apiErr.Code) || geminiTransientStatus(apiErr.Status)
	return e
}

// geminiQuote quotes the start of an event for an error message.
func geminiQuote(data []byte) string {
	const max = 200
	if len(data) > max {
		return fmt.Sprintf("%q… (%d bytes)", data[:max], len(data))
	}
	return fmt.Sprintf("%q", data)
}

// geminiMaxEvent bounds one event of the stream (an image part can be large): past it, the
// stream is not read further.
const geminiMaxEvent = 256 << 20

// geminiEvents reads a stream of server-sent events and calls each with the data of every
// event (its "data:" lines joined), ended false for a last event the body ended in the
// middle of, without the blank line that ends an event. Comments and the other fields
// (event, id, retry) are skipped. A line that is no field at all is a failure, unless it is
// an error object: Google has sent those bare, in place of an event. It returns the first
// error of each or of reading the body (the part of a line read before it is dropped).
func geminiEvents(body io.Reader, each func(data []byte, ended bool) error) error {
	r := bufio.NewReaderSize(body, 64<<10)
	var data, line []byte
	pending := false
	for {
		line = line[:0]
		var err error
		for {
			var frag []byte
			frag, err = r.ReadSlice('\n')
			line = append(line, frag...)
			if err != bufio.ErrBufferFull {
				break
			}
			if len(line) > geminiMaxEvent {
				return fmt.Errorf("a stream event is longer than %d MB", geminiMaxEvent>>20)
			}
		}
		if err != nil && err != io.EOF {
			return err
		}
		atEOF := err == io.EOF
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		field, value, found := bytes.Cut(line, []byte(":"))
		switch {
		case len(line) == 0:
			if pending {
				if err := each(data, true); err != nil {
					return err
				}
				data, pending = data[:0], false
			}
		case line[0] == ':': // a comment
		case found && string(field) == "data":
			value = bytes.TrimPrefix(value, []byte(" "))
			if pending {
				data = append(data, '\n')
			}
			data, pending = append(data, value...), true
			if len(data) > geminiMaxEvent {
				return fmt.Errorf("a stream event is longer than %d MB", geminiMaxEvent>>20)
			}
		case found && (string(field) == "event" || string(field) == "id" || string(field) == "retry"):
		default:
			var bare struct{ Error json.RawMessage }
			if json.Unmarshal(line, &bare) == nil {
				if e := geminiStreamError(bare.Error); e != nil {
					return e
				}
			}
			return fmt.Errorf("a stream line is not a server-sent event: %s", geminiQuote(line))
		}
		if atEOF {
			if pending {
				// Ended by the body, not by a blank line: whole if it reads, cut if not.
				return each(data, false)
			}
			return nil
		}
	}
}

// geminiTransientStatus: Google's status names of transient failures.
func geminiTransientStatus(s string) bool {
	return s == "UNAVAILABLE" || s == "RESOURCE_EXHAUSTED" || s == "INTERNAL" || s == "DEADLINE_EXCEEDED"
}

// geminiRetryDelay reads the google.rpc.RetryInfo delay ("retryDelay":"23s") of an error
// body's details, 0 when there is none.
func geminiRetryDelay(body []byte) time.Duration {
	var doc struct {
		Error struct {
			Details []struct {
				Type       string `json:"@type"`
				RetryDelay string `json:"retryDelay"`
			} `json:"details"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &doc) != nil {
		return 0
	}
	for _, d := range doc.Error.Details {
		if strings.HasSuffix(d.Type, "google.rpc.RetryInfo") {
			if delay, err := time.ParseDuration(d.RetryDelay); err == nil && delay > 0 {
				return delay
			}
		}
	}
	return 0
}

// geminiState turns chunks into events.
type geminiState struct {
	emit   func(Event)
	prices Prices
	next   int

	open     int    // the open text or thinking block, -1 when none
	openKind string // "text" or "thinking"
	openSig  string // its signature, base64

	calls      int
	responseID string
	usage      codec.Usage
	hasUsage   bool
	finish     string
	finishMsg  string
}

func (s *geminiState) chunk(c *geminiResponse) error {
	if s.responseID == "" && c.ResponseID != "" {
		s.responseID = c.ResponseID
		s.emit(Event{Kind: Metadata, ResponseID: c.ResponseID})
	}
	if u := c.UsageMetadata; u != nil {
		s.usage, s.hasUsage = geminiUsage(u), true
	}
	if f := c.PromptFeedback; f != nil && f.BlockReason != "" {
		msg := f.BlockReasonMessage
		if msg == "" {
			msg = "the prompt was blocked by the provider's safety filters"
		}
		return &Error{Message: f.BlockReason + ": " + msg}
	}
	if len(c.Candidates) == 0 {
		return nil
	}
	cand := &c.Candidates[0] // we ask for one candidate
	if cand.Content != nil {
		for i := range cand.Content.Parts {
			s.part(&cand.Content.Parts[i])
		}
	}
	if cand.FinishReason != "" {
		s.finish, s.finishMsg = cand.FinishReason, cand.FinishMessage
		if cand.FinishMessage == "" {
			s.finishMsg = geminiBlockedCategories(cand.SafetyRatings)
		}
	}
	return nil
}

func (s *geminiState) part(p *geminiPart) {
	sig := ""
	if len(p.ThoughtSignature) > 0 {
		sig = base64.StdEncoding.EncodeToString(p.ThoughtSignature)
	}
	switch {
	case p.FunctionCall != nil:
		s.closeOpen()
		fc := p.FunctionCall
		s.calls++
		id := fc.ID
		if id == "" {
			id = fmt.Sprintf("call_%s_%d", s.responseID, s.calls)
		}
		args := "{}"
		if len(fc.Args) > 0 {
			var b strings.Builder
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false) // "&&" stays "&&" in a command
			enc.Encode(fc.Args)
			args = strings.TrimSuffix(b.String(), "\n")
		}
		b := s.next
		s.next++
		s.emit(Event{Kind: BlockStart, Block: b, BlockKind: "toolCall", ToolCallID: id, ToolName: fc.Name})
		s.emit(Event{Kind: BlockDelta, Block: b, Delta: args})
		s.emit(Event{Kind: BlockEnd, Block: b, Signature: sig})
	case p.Text != "" || sig != "" && p.InlineData == nil && p.FileData == nil:
		kind := "text"
		if p.Thought {
			kind = "thinking"
		}
		if s.open < 0 || s.openKind != kind {
			s.closeOpen()
			s.open, s.openKind, s.openSig = s.next, kind, ""
			s.next++
			s.emit(Event{Kind: BlockStart, Block: s.open, BlockKind: kind})
		}
		if p.Text != "" {
			s.emit(Event{Kind: BlockDelta, Block: s.open, Delta: p.Text})
		}
		if sig != "" {
			s.openSig = sig // the last one a block's parts carry
		}
	}
}

func (s *geminiState) closeOpen() {
	if s.open < 0 {
		return
	}
	s.emit(Event{Kind: BlockEnd, Block: s.open, Signature: s.openSig})
	s.open = -1
}

// keepUsage reports the usage of a failed response: what it cost is real.
func (s *geminiState) keepUsage() {
	if s.hasUsage {
		u := s.usage
		u.Cost = CostOf(u, s.prices)
		s.emit(Event{Kind: Metadata, Usage: u, HasUsage: true})
	}
}

// end finishes a stream that closed cleanly.
func (s *geminiState) end() error {
	s.closeOpen()
	stop := codec.StopReasonStop
	switch s.finish {
	case "", "FINISH_REASON_UNSPECIFIED":
		s.keepUsage()
		return NoFinish()
	case "STOP":
	case "MAX_TOKENS":
		stop = codec.StopReasonLength
	default: // SAFETY, RECITATION, PROHIBITED_CONTENT, BLOCKLIST, SPII, MALFORMED_FUNCTION_CALL, OTHER...
		s.keepUsage()
		msg := s.finishMsg
		if msg == "" {
			msg = "the provider stopped the response"
		}
		return &Error{Message: s.finish + ": " + msg}
	}
	if s.calls > 0 {
		stop = codec.StopReasonToolUse
	}
	done := Event{Kind: Done, StopReason: stop}
	if s.hasUsage {
		done.Usage, done.HasUsage = s.usage, true
		done.Usage.Cost = CostOf(s.usage, s.prices)
	}
	s.emit(done)
	return nil
}

// geminiBlockedCategories names the safety categories a response was blocked for.
func geminiBlockedCategories(ratings []geminiSafetyRating) string {
	var cats []string
	for _, r := range ratings {
		if r.Blocked {
			cats = append(cats, r.Category)
		}
	}
	if len(cats) == 0 {
		return ""
	}
	return "blocked for " + strings.Join(cats, ", ")
}

func geminiUsage(u *geminiUsageMetadata) codec.Usage {
	prompt := u.PromptTokenCount + u.ToolUsePromptTokenCount
	cached := u.CachedContentTokenCount
	out := codec.Usage{
		Input:     max(prompt-cached, 0),
		Output:    u.CandidatesTokenCount + u.ThoughtsTokenCount,
		CacheRead: cached,
	}
	out.TotalTokens = out.Input + out.Output + out.CacheRead
	if u.TotalTokenCount > 0 {
		out.TotalTokens = u.TotalTokenCount
	}
	return out
}

// geminiBudgets and geminiLevels map thinking levels for earlier and Gemini 3 models.
var (
	geminiBudgets = map[string]int64{"minimal": 1024, "low": 4096, "medium": 8192, "high": 16384, "xhigh": 32768}
	geminiLevels  = map[string]string{"minimal": "MINIMAL", "low": "LOW", "medium": "MEDIUM", "high": "HIGH", "xhigh": "HIGH"}
	gemini3       = lazyRegexp(`^gemini-([3-9]|\d\d)`)
)

// geminiFlashMaxBudget is the largest thinkingBudget the 2.5 Flash models take.
const geminiFlashMaxBudget = 24576

// geminiMaxTokens bounds the numbers we send from a model's maximum output: Google's are
// 32-bit.
const geminiMaxTokens = 1 << 30

// geminiThinking is the thinking config of a level, nil for none.
func geminiThinking(m Model, level string) *geminiThinkingConfig {
	if !m.Reasoning {
		return nil
	}
	id := strings.ToLower(m.ID)
	if gemini3().MatchString(id) {
		l, ok := geminiLevels[level]
		if !ok {
			return nil
		}
		if l == "MINIMAL" && strings.Contains(id, "-pro") {
			l = "LOW"
		}
		return &geminiThinkingConfig{IncludeThoughts: true, ThinkingLevel: l}
	}
	b, ok := geminiBudgets[level]
	if !ok {
		return nil
	}
	if strings.Contains(id, "flash") {
		b = min(b, geminiFlashMaxBudget) // Flash models reject larger budgets
	}
	if m.MaxTokens > 0 {
		b = min(b, m.MaxTokens, geminiMaxTokens)
	}
	return &geminiThinkingConfig{IncludeThoughts: true, ThinkingBudget: &b}
}

// geminiBody encodes the request: the contents, the system instruction, the tools and the
// generation config.
func geminiBody(req Request) ([]byte, error) {
	body := geminiRequest{
		Contents:         geminiContents(req),
		GenerationConfig: geminiGenerationConfig{ThinkingConfig: geminiThinking(req.Model, req.ThinkingLevel)},
	}
	if req.Model.MaxTokens > 0 {
		body.GenerationConfig.MaxOutputTokens = min(req.Model.MaxTokens, geminiMaxTokens)
	}
	if req.SystemPrompt != "" {
		// The role is the one the SDK gave a system instruction without one.
		body.SystemInstruction = &geminiContent{Parts: []geminiPart{{Text: req.SystemPrompt}}, Role: "user"}
	}
	if len(req.Tools) > 0 {
		var decls []geminiFunctionDeclaration
		for _, t := range req.Tools {
			var schema any = map[string]any{"type": "object", "properties": map[string]any{}}
			if len(bytes.TrimSpace(t.Parameters)) > 0 {
				if err := json.Unmarshal(t.Parameters, &schema); err != nil {
					return nil, fmt.Errorf("tool %s: parameters are not a JSON object: %w", t.Name, err)
				}
			}
			decls = append(decls, geminiFunctionDeclaration{Name: t.Name, Description: t.Description, ParametersJsonSchema: schema})
		}
		body.Tools = []geminiTool{{FunctionDeclarations: decls}}
	}
	return json.Marshal(body)
}

// geminiContents converts the conversation. The results of one turn's tool calls go back
// together in one user turn, their images in a user turn after it.
func geminiContents(req Request) []geminiContent {
	var out []geminiContent
	var images []geminiPart
	flushImages := func() {
		if len(images) > 0 {
			out = append(out, geminiContent{Role: "user", Parts: append([]geminiPart{{Text: ToolImagesIntro}}, images...)})
			images = nil
		}
	}
	eachContextMessage(req.Messages, flushImages, func(m codec.Message) {
		switch m := m.(type) {
		case *codec.UserMessage:
			var parts []geminiPart
			if m.Blocks == nil {
				parts = append(parts, geminiPart{Text: m.Text})
			}
			for _, c := range m.Blocks {
				if p, ok := geminiUserPart(c); ok {
					parts = append(parts, p)
				}
			}
			if len(parts) > 0 {
				out = append(out, geminiContent{Role: "user", Parts: parts})
			}
		case *codec.AssistantMessage:
			if parts := geminiAssistantParts(m, req.Model); len(parts) > 0 {
				out = append(out, geminiContent{Role: "model", Parts: parts})
			}
		case *codec.ToolResultMessage:
			text, imgs := toolResultParts(m)
			for _, c := range imgs {
				if p, ok := geminiUserPart(c); ok {
					images = append(images, p)
				}
			}
			key := "output"
			if m.IsError {
				key = "error"
			}
			part := geminiPart{FunctionResponse: &geminiFunctionResponse{Name: m.ToolName, Response: map[string]any{key: text}}}
			if last := len(out) - 1; last >= 0 && out[last].Role == "user" && geminiHasResponses(out[last]) {
				out[last].Parts = append(out[last].Parts, part)
			} else {
				out = append(out, geminiContent{Role: "user", Parts: []geminiPart{part}})
			}
		}
	})
	return out
}

func geminiHasResponses(c geminiContent) bool {
	for _, p := range c.Parts {
		if p.FunctionResponse != nil {
			return true
		}
	}
	return false
}

// geminiUserPart is a user's text or image; an image whose data is not base64 is left out.
func geminiUserPart(c codec.Content) (geminiPart, bool) {
	switch c := c.(type) {
	case *codec.TextContent:
		return geminiPart{Text: c.Text}, true
	case *codec.ImageContent:
		data, err := base64.StdEncoding.DecodeString(c.Data)
		if err != nil {
			return geminiPart{}, false
		}
		return geminiPart{InlineData: &geminiBlob{MIMEType: c.MimeType, Data: data}}, true
	}
	return geminiPart{}, false
}

// geminiAssistantParts converts an assistant message. Thinking and signatures go back only
// to the model that produced them: another model cannot read them.
func geminiAssistantParts(m *codec.AssistantMessage, model Model) []geminiPart {
	same := m.API == APIGemini && m.Provider == model.Provider && m.Model == model.ID
	sig := func(s string) []byte {
		if !same || s == "" {
			return nil
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil
		}
		return b
	}
	var parts []geminiPart
	for _, c := range m.Content {
		switch c := c.(type) {
		case *codec.TextContent:
			if c.Text != "" || sig(c.TextSignature) != nil {
				parts = append(parts, geminiPart{Text: c.Text, ThoughtSignature: sig(c.TextSignature)})
			}
		case *codec.ThinkingContent:
			if same && !c.Redacted && (c.Thinking != "" || c.ThinkingSignature != "") {
				parts = append(parts, geminiPart{Text: c.Thinking, Thought: true, ThoughtSignature: sig(c.ThinkingSignature)})
			}
		case *codec.ToolCall:
			args := map[string]any{}
			if len(c.Arguments) > 0 {
				json.Unmarshal(c.Arguments, &args)
			}
			parts = append(parts, geminiPart{FunctionCall: &geminiFunctionCall{Name: c.Name, Args: args},
				ThoughtSignature: sig(c.ThoughtSignature)})
		}
	}
	return parts
}
