package codec

import (
	"bytes"
	"encoding/json"
)

// Content is one content block of a message: *TextContent, *ThinkingContent,
// *ImageContent or *ToolCall.
type Content interface {
	Encoder
	ContentType() string
}

// TextContent is a text block.
type TextContent struct {
	Text          string `json:"text"`
	TextSignature string `json:"textSignature,omitempty"`
}

// ThinkingContent is a thinking (reasoning) block.
type ThinkingContent struct {
	Thinking          string `json:"thinking"`
	ThinkingSignature string `json:"thinkingSignature,omitempty"`
	Redacted          bool   `json:"redacted,omitempty"`
}

// ImageType is the media type of an image the models take (png, jpeg, gif, webp), known by
// its first bytes; "" for anything else.
func ImageType(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(data, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return "image/gif"
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

// ImageContent is a base64 image block.
type ImageContent struct {
	Data     string `json:"data" doc:"base64"`
	MimeType string `json:"mimeType"`
}

// ToolCall is a tool call block. Arguments is an encoded JSON object. While the call is
// still streaming, Arguments is nil and ArgsSoFar holds the fragments received; the block
// then encodes PartialObject(ArgsSoFar), computed only if the block is encoded at all.
type ToolCall struct {
	ID               string          `json:"id"`
	Name             string          `json:"name"`
	Arguments        json.RawMessage `json:"arguments" kind:"object" hook:"toolCallArguments"`
	ThoughtSignature string          `json:"thoughtSignature,omitempty"`
	ArgsSoFar        []byte          `json:"-"`
}

func (*TextContent) ContentType() string     { return "text" }
func (*ThinkingContent) ContentType() string { return "thinking" }
func (*ImageContent) ContentType() string    { return "image" }
func (*ToolCall) ContentType() string        { return "toolCall" }

// AppendContents appends a JSON array of content blocks.
func AppendContents(dst []byte, cs []Content) []byte {
	dst = append(dst, '[')
	for i, c := range cs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = c.AppendJSON(dst)
	}
	return append(dst, ']')
}

// Message is one AgentMessage, told apart by Role.
type Message interface {
	Encoder
	Role() string
}

// UserMessage is a prompt. Content is a plain string when Blocks is nil.
type UserMessage struct {
	Text      string    `json:"content" kind:"string|array" blocks:"text,image" hook:"userContent"`
	Blocks    []Content `json:"-"`
	Timestamp int64     `json:"timestamp" kind:"number"`
}

// Cost is the price of a Usage in dollars.
type Cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
}

// Usage counts the tokens of one assistant message.
type Usage struct {
	Input       int64 `json:"input" kind:"integer"`
	Output      int64 `json:"output" kind:"integer"`
	CacheRead   int64 `json:"cacheRead" kind:"integer"`
	CacheWrite  int64 `json:"cacheWrite" kind:"integer"`
	TotalTokens int64 `json:"totalTokens" kind:"integer"`
	Cost        Cost  `json:"cost"`
}

// Stop reasons of an assistant message.
const (
	StopReasonStop    = "stop"
	StopReasonLength  = "length"
	StopReasonToolUse = "toolUse"
	StopReasonError   = "error"
	StopReasonAborted = "aborted"
)

// AssistantMessage is a model response.
type AssistantMessage struct {
	Content      []Content `json:"content" blocks:"text,thinking,toolCall"`
	API          string    `json:"api"`
	Provider     string    `json:"provider"`
	Model        string    `json:"model"`
	Usage        Usage     `json:"usage"`
	StopReason   string    `json:"stopReason" enum:"stop,length,toolUse,error,aborted"`
	ErrorMessage string    `json:"errorMessage,omitempty" doc:"present exactly when stopReason is error or aborted"`
	Timestamp    int64     `json:"timestamp" kind:"number"`
	ResponseID   string    `json:"responseId,omitempty" doc:"the provider's id of the response"`
}

// ToolResultMessage carries a tool's result back to the model.
type ToolResultMessage struct {
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Content    []Content       `json:"content" blocks:"text,image"`
	Details    json.RawMessage `json:"details,omitempty"`
	IsError    bool            `json:"isError"`
	Timestamp  int64           `json:"timestamp" kind:"number"`
}

// BashExecutionMessage records a command the user ran directly.
type BashExecutionMessage struct {
	Command            string `json:"command"`
	Output             string `json:"output"`
	ExitCode           *int64 `json:"exitCode,omitempty" kind:"number"`
	Cancelled          bool   `json:"cancelled"`
	Truncated          bool   `json:"truncated"`
	FullOutputPath     string `json:"fullOutputPath,omitempty"`
	ExcludeFromContext *bool  `json:"excludeFromContext,omitempty"`
	Timestamp          int64  `json:"timestamp" kind:"number"`
}

// CustomMessage is an extension-defined message. Content is encoded JSON (string or blocks).
type CustomMessage struct {
	CustomType string          `json:"customType"`
	Content    json.RawMessage `json:"content" kind:"string|array" blocks:"text,image" default:"\"\""`
	Display    bool            `json:"display"`
	Details    json.RawMessage `json:"details,omitempty"`
	Timestamp  int64           `json:"timestamp" kind:"number"`
}

// BranchSummaryMessage summarises an abandoned branch of a session.
type BranchSummaryMessage struct {
	Summary   string `json:"summary"`
	FromID    string `json:"fromId"`
	Timestamp int64  `json:"timestamp" kind:"number"`
}

// CompactionSummaryMessage stands in for the messages a compaction summarised.
type CompactionSummaryMessage struct {
	Summary      string `json:"summary"`
	TokensBefore int64  `json:"tokensBefore" kind:"number"`
	Timestamp    int64  `json:"timestamp" kind:"number"`
}

func (*UserMessage) Role() string      { return "user" }
func (*AssistantMessage) Role() string { return "assistant" }

// ToolCalls returns the message's tool calls, in order.
func (m *AssistantMessage) ToolCalls() []*ToolCall {
	var calls []*ToolCall
	for _, c := range m.Content {
		if tc, ok := c.(*ToolCall); ok {
			calls = append(calls, tc)
		}
	}
	return calls
}
func (*ToolResultMessage) Role() string        { return "toolResult" }
func (*BashExecutionMessage) Role() string     { return "bashExecution" }
func (*CustomMessage) Role() string            { return "custom" }
func (*BranchSummaryMessage) Role() string     { return "branchSummary" }
func (*CompactionSummaryMessage) Role() string { return "compactionSummary" }

// AppendMessages appends a JSON array of messages.
func AppendMessages[M Message](dst []byte, ms []M) []byte {
	dst = append(dst, '[')
	for i, m := range ms {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = m.AppendJSON(dst)
	}
	return append(dst, ']')
}

// PermissionDeniedPrefix begins the error result of a tool call the permission policy
// refused, so that a reader of the stream can count refusals apart from failures.
const PermissionDeniedPrefix = "Permission denied: "

// SandboxDeniedMarker begins the sandbox's account of a refusal in a tool result: the whole
// error of write or edit ("Permission denied (sandbox: workspace-write): /etc/passwd"), a
// note in bash's output. `filter verdict` counts the results that hold it.
const SandboxDeniedMarker = "Permission denied (sandbox: "
