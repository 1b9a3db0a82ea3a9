package provider

import "encoding/json"

// The Gemini API's JSON, only the members we send or read. Members are in alphabetical
// order, and what we send is encoded by encoding/json: the request bodies are byte for
// byte what google.golang.org/genai sent (it encoded maps, whose keys come out sorted),
// which TestGeminiRequestBodies holds us to.

// geminiRequest is a models/{model}:streamGenerateContent request body.
type geminiRequest struct {
	Contents []geminiContent `json:"contents,omitempty"`
	// GenerationConfig is always sent, even empty, as the SDK did.
	GenerationConfig  geminiGenerationConfig `json:"generationConfig"`
	SystemInstruction *geminiContent         `json:"systemInstruction,omitempty"`
	Tools             []geminiTool           `json:"tools,omitempty"`
}

// geminiContent is one turn: role "user" or "model".
type geminiContent struct {
	Parts []geminiPart `json:"parts,omitempty"`
	Role  string       `json:"role,omitempty"`
}

// geminiPart is one part of a turn; exactly one of its kinds is set. ThoughtSignature is
// bytes, base64 on the wire (encoding/json's []byte), and may come with any kind.
type geminiPart struct {
	FileData         *struct{}               `json:"fileData,omitempty"` // read only to tell a signed empty text part from a file
	FunctionCall     *geminiFunctionCall     `json:"functionCall,omitempty"`
	FunctionResponse *geminiFunctionResponse `json:"functionResponse,omitempty"`
	InlineData       *geminiBlob             `json:"inlineData,omitempty"`
	Text             string                  `json:"text,omitempty"`
	Thought          bool                    `json:"thought,omitempty"`
	ThoughtSignature []byte                  `json:"thoughtSignature,omitempty"`
}

type geminiBlob struct {
	Data     []byte `json:"data,omitempty"`
	MIMEType string `json:"mimeType,omitempty"`
}

// geminiFunctionCall: Args is a map, so that arguments come out with their keys sorted, as
// they did through the SDK. ID is read, never sent (we send no call ids back).
type geminiFunctionCall struct {
	Args map[string]any `json:"args,omitempty"`
	ID   string         `json:"id,omitempty"`
	Name string         `json:"name,omitempty"`
}

type geminiFunctionResponse struct {
	Name     string         `json:"name,omitempty"`
	Response map[string]any `json:"response,omitempty"`
}

type geminiGenerationConfig struct {
	MaxOutputTokens int64                 `json:"maxOutputTokens,omitempty"`
	ThinkingConfig  *geminiThinkingConfig `json:"thinkingConfig,omitempty"`
}

type geminiThinkingConfig struct {
	IncludeThoughts bool   `json:"includeThoughts,omitempty"`
	ThinkingBudget  *int64 `json:"thinkingBudget,omitempty"`
	ThinkingLevel   string `json:"thinkingLevel,omitempty"` // MINIMAL, LOW, MEDIUM, HIGH
}

type geminiTool struct {
	FunctionDeclarations []geminiFunctionDeclaration `json:"functionDeclarations,omitempty"`
}

type geminiFunctionDeclaration struct {
	Description string `json:"description,omitempty"`
	Name        string `json:"name,omitempty"`
	// ParametersJsonSchema is the tool's schema decoded, so that it is re-encoded with its
	// keys sorted, as the SDK sent it.
	ParametersJsonSchema any `json:"parametersJsonSchema,omitempty"`
}

// geminiResponse is one chunk of the stream (a GenerateContentResponse), or an error object
// in its place: Error is kept raw and read apart (geminiStreamError).
type geminiResponse struct {
	Candidates     []geminiCandidate     `json:"candidates"`
	Error          json.RawMessage       `json:"error"`
	PromptFeedback *geminiPromptFeedback `json:"promptFeedback"`
	ResponseID     string                `json:"responseId"`
	UsageMetadata  *geminiUsageMetadata  `json:"usageMetadata"`
}

type geminiCandidate struct {
	Content       *geminiContent       `json:"content"`
	FinishMessage string               `json:"finishMessage"`
	FinishReason  string               `json:"finishReason"` // STOP, MAX_TOKENS, SAFETY, RECITATION...
	SafetyRatings []geminiSafetyRating `json:"safetyRatings"`
}

type geminiSafetyRating struct {
	Blocked  bool   `json:"blocked"`
	Category string `json:"category"`
}

type geminiPromptFeedback struct {
	BlockReason        string `json:"blockReason"`
	BlockReasonMessage string `json:"blockReasonMessage"`
}

type geminiUsageMetadata struct {
	CachedContentTokenCount int64 `json:"cachedContentTokenCount"`
	CandidatesTokenCount    int64 `json:"candidatesTokenCount"`
	PromptTokenCount        int64 `json:"promptTokenCount"`
	ThoughtsTokenCount      int64 `json:"thoughtsTokenCount"`
	ToolUsePromptTokenCount int64 `json:"toolUsePromptTokenCount"`
	TotalTokenCount         int64 `json:"totalTokenCount"`
}

// geminiAPIError is Google's error object, {"error":{code,message,status}}, in a failing
// response's body or in place of a chunk.
type geminiAPIError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status"`
}
