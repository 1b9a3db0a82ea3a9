// Package provider holds the model side of the agent: what a request is, the stream of
// events a provider answers with, and the providers themselves (one file per wire protocol).
// The agent loop knows only this vocabulary, so a new protocol is a new file here.
package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/basecontext/base-context/codec"
)

// Prices are dollars per million tokens.
type Prices struct {
	Input, Output, CacheRead, CacheWrite float64
}

// Model is one model a provider serves.
type Model struct {
	ID            string
	Name          string
	Provider      string // the configured provider name, e.g. "script", "anthropic"
	API           string // the wire protocol, e.g. "script", "anthropic-messages"
	ContextWindow int64
	MaxTokens     int64
	Reasoning     bool
	// AdaptiveThinking: the model decides how much to think from an effort level
	// (Anthropic's thinking {type: adaptive} with output_config.effort) instead of a budget.
	AdaptiveThinking bool
	// Images: the model takes image content as input (models.json "input": ["text", "image"]).
	Images bool
	Cost   Prices
}

// ToolSpec is a tool as the model sees it.
type ToolSpec struct {
	Name        string
	Description string
	Parameters  json.RawMessage // JSON schema of the arguments object
}

// Request is one model call.
type Request struct {
	Model         Model
	SystemPrompt  string
	Messages      []codec.Message
	Tools         []ToolSpec
	ThinkingLevel string
}

// EventKind tells the kinds of stream events apart.
type EventKind int

const (
	// BlockStart opens a content block. Block is the provider's own number for it; blocks
	// are placed in the message in the order they start. Kind is "text", "thinking" or
	// "toolCall" (with ToolCallID and ToolName).
	BlockStart EventKind = iota + 1
	// BlockDelta adds Delta to an open block: text, thinking, or a raw JSON fragment of the
	// tool-call arguments.
	BlockDelta
	// BlockEnd closes a block; Signature carries a thinking or text signature if any.
	BlockEnd
	// Metadata reports ResponseID and/or Usage as soon as the provider sends them.
	Metadata
	// Done ends the response with StopReason (and final Usage when HasUsage).
	Done
)

// Event is one item of a provider's response stream.
type Event struct {
	Kind       EventKind
	Block      int
	BlockKind  string
	ToolCallID string
	ToolName   string
	Delta      string
	Signature  string
	Redacted   bool // on BlockStart of a thinking block whose content the provider sent encrypted
	ResponseID string
	Usage      codec.Usage
	HasUsage   bool
	StopReason string
}

// Provider streams one response for a request. It calls emit for each event in order and
// returns nil after a Done event, or an error (an *Error for provider failures) when the
// response failed; the loop turns either into the assistant message. It must not retry by
// itself: retries are the loop's, and visible in the stream.
type Provider interface {
	Stream(ctx context.Context, req Request, emit func(Event)) error
}

// Error is a failed request as the provider reported it.
type Error struct {
	Status    int    // HTTP status, 0 when there is none (connection errors, errors inside a stream)
	Message   string // the provider's own message, with its code when it gave one
	Retryable bool   // transient: 408, 409, 429, 5xx, 529, overloaded, rate limit, resets, timeouts
	// RetryAfter is the delay the provider asked for before the next attempt (0: none).
	RetryAfter time.Duration
	// Overflow: the request did not fit the model's context window.
	Overflow bool
}

// Error formats as the stream's errorMessage: "<status> <message>".
func (e *Error) Error() string {
	if e.Status == 0 {
		return e.Message
	}
	return fmt.Sprintf("%d %s", e.Status, e.Message)
}

// RetryableStatus reports whether an HTTP status is transient.
func RetryableStatus(status int) bool {
	return status == 408 || status == 409 || status == 429 || status >= 500
}
