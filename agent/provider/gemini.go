package provider

// The Google Gemini protocol (api "google-generative-ai"): generativelanguage.googleapis.com's
// streamGenerateContent, on the official Go SDK (google.golang.org/genai) with its own
// retries and its automatic stream continuation off: the agent loop is the only one that
// retries, visibly.
//
// The stream is a list of GenerateContentResponse chunks. Text parts and thought parts
// ("thought": true) alternate in one open block, as on Chat Completions; a function call
// comes whole in one part and is a tool call block at once (several in one chunk are
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
// 16384, 32768 tokens; at most 24576 on Flash models, and below the model's maximum output); both with includeThoughts so that the thinking is shown. off sends
// no thinking config: the model's default, its thoughts not shown.
//
// Usage: input is promptTokenCount (plus toolUsePromptTokenCount) less the cached tokens,
// output is candidatesTokenCount plus thoughtsTokenCount, cacheRead is
// cachedContentTokenCount, totalTokens is the server's totalTokenCount.
//
// Finishes: STOP → stop (toolUse when the response called tools), MAX_TOKENS → length; a
// prompt blocked (promptFeedback.blockReason) and a response stopped for safety, recitation
// or any other reason are errors with the provider's reason and message. Errors: a failing
// status is read from its body (nested {"error":{code,message,status}}, a list of those, or
// flat), with Retry-After or the RetryInfo delay of its details; an error object inside a
// stream that began with HTTP 200 is a stream error.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"google.golang.org/genai"

	"github.com/basecontext/base-context/codec"
)

type geminiProvider struct {
	ep Endpoint

	once   sync.Once
	client *genai.Client
	err    error
}

// NewGemini returns the provider speaking the Gemini API at ep. ep.BaseURL may end with the
// API version (https://generativelanguage.googleapis.com/v1beta); "" is Google's endpoint.
func NewGemini(ep Endpoint) Provider { return &geminiProvider{ep: ep} }

// geminiVersion is an API version path segment: v1, v1beta, v1alpha.
var geminiVersion = regexp.MustCompile(`^v\d+[a-z0-9]*$`)

// geminiCapture keeps the status, headers and (for a failing status) the body of one
// request's response, which the SDK's error does not carry in full: Retry-After and the
// body's exact words are read from here. It travels in the request's context.
type geminiCapture struct {
	status int
	header http.Header
	body   []byte
	// readErr is the error that ended reading a streamed body. The SDK sees a clean end
	// instead: it would print the error with the standard logger, on our stderr.
	readErr error
}

type geminiCaptureKey struct{}

// geminiBody is a streamed body whose read errors are kept aside and read as its end.
type geminiBody struct {
	io.ReadCloser
	capture *geminiCapture
}

func (b geminiBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		b.capture.readErr = err
		err = io.EOF
	}
	return n, err
}

// geminiTransport fills the capture of the request's context.
type geminiTransport struct{ base http.RoundTripper }

func (t geminiTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := t.base.RoundTrip(req)
	c, _ := req.Context().Value(geminiCaptureKey{}).(*geminiCapture)
	if err != nil || res == nil || c == nil {
		return res, err
	}
	c.status, c.header = res.StatusCode, res.Header
	if res.StatusCode >= 400 {
		body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		res.Body.Close()
		c.body = body
		res.Body = io.NopCloser(bytes.NewReader(body))
	} else {
		res.Body = geminiBody{res.Body, c}
	}
	return res, nil
}

// sdk is the provider's SDK client, built once: the SDK reads the environment when a client
// is built (and says so on stderr when both GOOGLE_API_KEY and GEMINI_API_KEY are set).
func (p *geminiProvider) sdk() (*genai.Client, error) {
	p.once.Do(func() { p.client, p.err = p.newClient() })
	return p.client, p.err
}

func (p *geminiProvider) newClient() (*genai.Client, error) {
	base := p.ep.client()
	hc := *base
	hc.Transport = geminiTransport{base: base.Transport}
	if base.Transport == nil {
		hc.Transport = geminiTransport{base: http.DefaultTransport}
	}
	opts := genai.HTTPOptions{Headers: http.Header{}}
	if p.ep.BaseURL != "" {
		u, err := url.Parse(p.ep.BaseURL)
		if err != nil {
			return nil, fmt.Errorf("base URL %q: %w", p.ep.BaseURL, err)
		}
		path := strings.TrimSuffix(u.Path, "/")
		if i := strings.LastIndex(path, "/"); i >= 0 && geminiVersion.MatchString(path[i+1:]) {
			opts.APIVersion = path[i+1:]
			u.Path = path[:i]
		}
		opts.BaseURL = strings.TrimSuffix(u.String(), "/") + "/"
	}
	for k, v := range p.ep.Headers {
		opts.Headers.Set(k, v)
	}
	key := p.ep.APIKey
	if key == "" {
		// The SDK insists on a key, and would read GOOGLE_API_KEY itself: a server that
		// needs none gets a placeholder instead.
		key = "none"
	}
	// HTTPOptions.RetryOptions stays nil: the SDK then sends each request once.
	return genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: key, Backend: genai.BackendGeminiAPI, HTTPClient: &hc, HTTPOptions: opts})
}

// Stream sends one request and maps the streamed chunks to events.
func (p *geminiProvider) Stream(ctx context.Context, req Request, emit func(Event)) error {
	contents, config, err := geminiParams(req)
	if err != nil {
		return TransportError(err)
	}
	client, err := p.sdk()
	if err != nil {
		return TransportError(err)
	}
	capture := &geminiCapture{}
	ctx = context.WithValue(ctx, geminiCaptureKey{}, capture)
	st := geminiState{emit: emit, open: -1, prices: req.Model.Cost}
	for chunk, err := range client.Models.GenerateContentStream(ctx, req.Model.ID, contents, config) {
		if err != nil {
			st.closeOpen()
			st.keepUsage()
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if capture.readErr != nil {
				err = capture.readErr // a line cut in the middle is not the server's JSON
			}
			return geminiFailure(err, capture, st.started)
		}
		st.started = true
		if ferr := st.chunk(chunk); ferr != nil {
			st.closeOpen()
			st.keepUsage()
			return ferr
		}
	}
	if ctx.Err() != nil {
		st.closeOpen() // an aborted answer's thinking keeps its signature too
		return ctx.Err()
	}
	if capture.readErr != nil {
		st.closeOpen()
		st.keepUsage()
		return geminiFailure(capture.readErr, capture, true)
	}
	return st.end()
}

// geminiFailure turns the SDK's error into ours.
func geminiFailure(err error, capture *geminiCapture, started bool) error {
	if capture.status >= 400 {
		e := HTTPError(capture.status, capture.header, capture.body)
		if e.RetryAfter == 0 {
			e.RetryAfter = geminiRetryDelay(capture.body)
		}
		return e
	}
	var apiErr genai.APIError
	if errors.As(err, &apiErr) {
		// An error object inside a stream that began with HTTP 200.
		code := apiErr.Status
		e := StreamError(code, apiErr.Message)
		e.Retryable = e.Retryable || RetryableStatus(apiErr.Code) || geminiTransientStatus(code)
		return e
	}
	if started || capture.status == http.StatusOK {
		return BodyReadError(err)
	}
	return TransportError(err)
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
	emit    func(Event)
	prices  Prices
	started bool
	next    int

	open     int    // the open text or thinking block, -1 when none
	openKind string // "text" or "thinking"
	openSig  string // its signature, base64

	calls      int
	responseID string
	usage      codec.Usage
	hasUsage   bool
	finish     genai.FinishReason
	finishMsg  string
}

func (s *geminiState) chunk(c *genai.GenerateContentResponse) error {
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
		return &Error{Message: string(f.BlockReason) + ": " + msg}
	}
	if len(c.Candidates) == 0 || c.Candidates[0] == nil {
		return nil
	}
	cand := c.Candidates[0] // we ask for one candidate
	if cand.Content != nil {
		for _, part := range cand.Content.Parts {
			if part != nil {
				s.part(part)
			}
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

func (s *geminiState) part(p *genai.Part) {
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
	case "", genai.FinishReasonUnspecified:
		s.keepUsage()
		return NoFinish()
	case genai.FinishReasonStop:
	case genai.FinishReasonMaxTokens:
		stop = codec.StopReasonLength
	default: // SAFETY, RECITATION, PROHIBITED_CONTENT, BLOCKLIST, SPII, MALFORMED_FUNCTION_CALL, OTHER...
		s.keepUsage()
		msg := s.finishMsg
		if msg == "" {
			msg = "the provider stopped the response"
		}
		return &Error{Message: string(s.finish) + ": " + msg}
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
func geminiBlockedCategories(ratings []*genai.SafetyRating) string {
	var cats []string
	for _, r := range ratings {
		if r != nil && r.Blocked {
			cats = append(cats, string(r.Category))
		}
	}
	if len(cats) == 0 {
		return ""
	}
	return "blocked for " + strings.Join(cats, ", ")
}

func geminiUsage(u *genai.GenerateContentResponseUsageMetadata) codec.Usage {
	prompt := int64(u.PromptTokenCount) + int64(u.ToolUsePromptTokenCount)
	cached := int64(u.CachedContentTokenCount)
	out := codec.Usage{
		Input:     max(prompt-cached, 0),
		Output:    int64(u.CandidatesTokenCount) + int64(u.ThoughtsTokenCount),
		CacheRead: cached,
	}
	out.TotalTokens = out.Input + out.Output + out.CacheRead
	if u.TotalTokenCount > 0 {
		out.TotalTokens = int64(u.TotalTokenCount)
	}
	return out
}

// geminiBudgets and geminiLevels map thinking levels for earlier and Gemini 3 models.
var (
	geminiBudgets = map[string]int32{"minimal": 1024, "low": 4096, "medium": 8192, "high": 16384, "xhigh": 32768}
	geminiLevels  = map[string]genai.ThinkingLevel{"minimal": genai.ThinkingLevelMinimal, "low": genai.ThinkingLevelLow,
		"medium": genai.ThinkingLevelMedium, "high": genai.ThinkingLevelHigh, "xhigh": genai.ThinkingLevelHigh}
	gemini3 = regexp.MustCompile(`^gemini-([3-9]|\d\d)`)
)

// geminiFlashMaxBudget is the largest thinkingBudget the 2.5 Flash models take.
const geminiFlashMaxBudget = 24576

// geminiThinking is the thinking config of a level, nil for none.
func geminiThinking(m Model, level string) *genai.ThinkingConfig {
	if !m.Reasoning {
		return nil
	}
	id := strings.ToLower(m.ID)
	if gemini3.MatchString(id) {
		l, ok := geminiLevels[level]
		if !ok {
			return nil
		}
		if l == genai.ThinkingLevelMinimal && strings.Contains(id, "-pro") {
			l = genai.ThinkingLevelLow
		}
		return &genai.ThinkingConfig{IncludeThoughts: true, ThinkingLevel: l}
	}
	b, ok := geminiBudgets[level]
	if !ok {
		return nil
	}
	if strings.Contains(id, "flash") {
		b = min(b, geminiFlashMaxBudget) // Flash models reject larger budgets
	}
	if m.MaxTokens > 0 {
		b = min(b, int32(min(m.MaxTokens, 1<<30)))
	}
	return &genai.ThinkingConfig{IncludeThoughts: true, ThinkingBudget: &b}
}

// geminiParams builds the contents and the config of a request.
func geminiParams(req Request) ([]*genai.Content, *genai.GenerateContentConfig, error) {
	off := false
	config := &genai.GenerateContentConfig{
		AutomaticContinuation: &off, // a resumed stream would be a retry the loop cannot see
		ThinkingConfig:        geminiThinking(req.Model, req.ThinkingLevel),
	}
	if req.Model.MaxTokens > 0 {
		config.MaxOutputTokens = int32(min(req.Model.MaxTokens, 1<<30))
	}
	if req.SystemPrompt != "" {
		config.SystemInstruction = &genai.Content{Parts: []*genai.Part{{Text: req.SystemPrompt}}}
	}
	if len(req.Tools) > 0 {
		var decls []*genai.FunctionDeclaration
		for _, t := range req.Tools {
			var schema any = map[string]any{"type": "object", "properties": map[string]any{}}
			if len(bytes.TrimSpace(t.Parameters)) > 0 {
				if err := json.Unmarshal(t.Parameters, &schema); err != nil {
					return nil, nil, fmt.Errorf("tool %s: parameters are not a JSON object: %w", t.Name, err)
				}
			}
			decls = append(decls, &genai.FunctionDeclaration{Name: t.Name, Description: t.Description, ParametersJsonSchema: schema})
		}
		config.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
	}
	return geminiContents(req), config, nil
}

// geminiContents converts the conversation. The results of one turn's tool calls go back
// together in one user turn, their images in a user turn after it.
func geminiContents(req Request) []*genai.Content {
	var out []*genai.Content
	var images []*genai.Part
	flushImages := func() {
		if len(images) > 0 {
			out = append(out, &genai.Content{Role: "user", Parts: append([]*genai.Part{{Text: ToolImagesIntro}}, images...)})
			images = nil
		}
	}
	eachContextMessage(req.Messages, flushImages, func(m codec.Message) {
		switch m := m.(type) {
		case *codec.UserMessage:
			var parts []*genai.Part
			if m.Blocks == nil {
				parts = append(parts, &genai.Part{Text: m.Text})
			}
			for _, c := range m.Blocks {
				if p := geminiUserPart(c); p != nil {
					parts = append(parts, p)
				}
			}
			if len(parts) > 0 {
				out = append(out, &genai.Content{Role: "user", Parts: parts})
			}
		case *codec.AssistantMessage:
			if parts := geminiAssistantParts(m, req.Model); len(parts) > 0 {
				out = append(out, &genai.Content{Role: "model", Parts: parts})
			}
		case *codec.ToolResultMessage:
			text, imgs := toolResultParts(m)
			for _, c := range imgs {
				if p := geminiUserPart(c); p != nil {
					images = append(images, p)
				}
			}
			key := "output"
			if m.IsError {
				key = "error"
			}
			part := &genai.Part{FunctionResponse: &genai.FunctionResponse{Name: m.ToolName,
				Response: map[string]any{key: text}}}
			if last := len(out) - 1; last >= 0 && out[last].Role == "user" && geminiHasResponses(out[last]) {
				out[last].Parts = append(out[last].Parts, part)
			} else {
				out = append(out, &genai.Content{Role: "user", Parts: []*genai.Part{part}})
			}
		}
	})
	return out
}

func geminiHasResponses(c *genai.Content) bool {
	for _, p := range c.Parts {
		if p.FunctionResponse != nil {
			return true
		}
	}
	return false
}

func geminiUserPart(c codec.Content) *genai.Part {
	switch c := c.(type) {
	case *codec.TextContent:
		return &genai.Part{Text: c.Text}
	case *codec.ImageContent:
		data, err := base64.StdEncoding.DecodeString(c.Data)
		if err != nil {
			return nil
		}
		return &genai.Part{InlineData: &genai.Blob{MIMEType: c.MimeType, Data: data}}
	}
	return nil
}

// geminiAssistantParts converts an assistant message. Thinking and signatures go back only
// to the model that produced them: another model cannot read them.
func geminiAssistantParts(m *codec.AssistantMessage, model Model) []*genai.Part {
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
	var parts []*genai.Part
	for _, c := range m.Content {
		switch c := c.(type) {
		case *codec.TextContent:
			if c.Text != "" || sig(c.TextSignature) != nil {
				parts = append(parts, &genai.Part{Text: c.Text, ThoughtSignature: sig(c.TextSignature)})
			}
		case *codec.ThinkingContent:
			if same && !c.Redacted && (c.Thinking != "" || c.ThinkingSignature != "") {
				parts = append(parts, &genai.Part{Text: c.Thinking, Thought: true, ThoughtSignature: sig(c.ThinkingSignature)})
			}
		case *codec.ToolCall:
			args := map[string]any{}
			if len(c.Arguments) > 0 {
				json.Unmarshal(c.Arguments, &args)
			}
			parts = append(parts, &genai.Part{FunctionCall: &genai.FunctionCall{Name: c.Name, Args: args},
				ThoughtSignature: sig(c.ThoughtSignature)})
		}
	}
	return parts
}
