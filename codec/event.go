package codec

import "encoding/json"

// Event is one line of the stream.
type Event interface {
	Encoder
	EventType() string
}

// Event type names.
const (
	TypeSession             = "session"
	TypeAgentStart          = "agent_start"
	TypeAgentEnd            = "agent_end"
	TypeTurnStart           = "turn_start"
	TypeTurnEnd             = "turn_end"
	TypeMessageStart        = "message_start"
	TypeMessageUpdate       = "message_update"
	TypeMessageEnd          = "message_end"
	TypeToolExecutionStart  = "tool_execution_start"
	TypeToolExecutionUpdate = "tool_execution_update"
	TypeToolExecutionEnd    = "tool_execution_end"
	TypeSessionActionUpdate = "session_action_update"
	TypeCompactionStart     = "compaction_start"
	TypeCompactionEnd       = "compaction_end"
	TypeAutoRetryStart      = "auto_retry_start"
	TypeAutoRetryEnd        = "auto_retry_end"
	TypeMCPServerStatus     = "mcp_server_status"
)

// Header is the session header, the first line of the stream and of the session file.
type Header struct {
	Version       int64    `json:"version" kind:"number" const:"3" doc:"format version of the stream"`
	ID            string   `json:"id" doc:"session id"`
	Timestamp     string   `json:"timestamp" doc:"ISO-8601 UTC time the session was created"`
	Cwd           string   `json:"cwd" doc:"working directory of the session"`
	ParentSession string   `json:"parentSession,omitempty" doc:"session file this one was forked from"`
	Sandbox       *Sandbox `json:"sandbox,omitempty" doc:"the sandbox the run's tools run under (--sandbox); absent when off. On the stream only, not in the session file"`
}

// Sandbox is the header's account of the sandbox of a run.
type Sandbox struct {
	Mode          string   `json:"mode" doc:"best-effort, workspace-write or read-only"`
	WritableRoots []string `json:"writableRoots,omitempty" doc:"the folders the tools may write in: the working directory, each --add-dir, the run's TMPDIR"`
	Network       bool     `json:"network,omitempty" doc:"true with --sandbox-network: TCP is allowed"`
	NotEnforced   []string `json:"notEnforced,omitempty" doc:"best-effort: what this kernel could not enforce"`
}

// AgentStart opens one run of the agent loop.
type AgentStart struct{}

// AgentEnd closes it; Messages holds every message the run added.
type AgentEnd struct {
	Messages []Message `json:"messages" doc:"every message the run added"`
}

// TurnStart opens one turn.
type TurnStart struct{}

// TurnEnd closes a turn with its assistant message and tool results.
type TurnEnd struct {
	Message     Message              `json:"message"`
	ToolResults []*ToolResultMessage `json:"toolResults"`
}

// MessageStart and MessageEnd carry a full message. MessageID is set (non-zero) in the
// delta form on assistant messages only.
type MessageStart struct {
	MessageID int64   `json:"messageId,omitempty" form:"deltas,optional" kind:"integer" doc:"delta form, assistant messages only: number of the message in the stream, from 1"`
	Message   Message `json:"message"`
}

// MessageEnd: see MessageStart.
type MessageEnd struct {
	MessageID int64   `json:"messageId,omitempty" form:"deltas,optional" kind:"integer" doc:"delta form, assistant messages only: the number of its message_start"`
	Message   Message `json:"message"`
}

// MessageUpdate is one streaming update of an assistant message. In the full form Message
// is the snapshot (and Update.Partial the same); in the delta form both are nil and
// MessageID is set.
type MessageUpdate struct {
	MessageID int64                  `json:"messageId,omitempty" form:"deltas" kind:"integer" doc:"delta form: the number of the message's message_start"`
	Update    *AssistantMessageEvent `json:"assistantMessageEvent"`
	Message   *AssistantMessage      `json:"message,omitempty" form:"full" doc:"full form: the message so far"`
}

// Streaming update types.
const (
	UpdateTextStart     = "text_start"
	UpdateTextDelta     = "text_delta"
	UpdateTextEnd       = "text_end"
	UpdateThinkingStart = "thinking_start"
	UpdateThinkingDelta = "thinking_delta"
	UpdateThinkingEnd   = "thinking_end"
	UpdateToolCallStart = "toolcall_start"
	UpdateToolCallDelta = "toolcall_delta"
	UpdateToolCallEnd   = "toolcall_end"
)

// AssistantMessageEvent is the nested update of a message_update. Which of Delta, Content and
// ToolCall is written depends on Type; ToolCall on a toolcall_start is written only in the
// delta form (Partial nil), as {id, name}.
type AssistantMessageEvent struct {
	Type         string            `json:"type"`
	ContentIndex int64             `json:"contentIndex" kind:"integer" doc:"index of the block in the message's content"`
	Delta        string            `json:"delta" when:"text_delta,thinking_delta,toolcall_delta"`
	Content      string            `json:"content" when:"text_end,thinking_end" doc:"the block's final text"`
	ToolCall     *ToolCall         `json:"toolCall" when:"toolcall_end" doc:"the finished tool call"`
	Partial      *AssistantMessage `json:"partial,omitempty" form:"full" doc:"full form: the message so far, as message"`
}

// ToolResult is a tool's result or partial result as tool execution events carry it.
type ToolResult struct {
	Content []Content       `json:"content" blocks:"text,image"`
	Details json.RawMessage `json:"details,omitempty"`
}

// ToolExecutionStart: a tool call begins to run.
type ToolExecutionStart struct {
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Args       json.RawMessage `json:"args" default:"{}" doc:"the call's arguments"`
}

// ToolExecutionUpdate: output so far of a running tool.
type ToolExecutionUpdate struct {
	ToolCallID    string          `json:"toolCallId"`
	ToolName      string          `json:"toolName"`
	Args          json.RawMessage `json:"args" default:"{}"`
	PartialResult ToolResult      `json:"partialResult"`
}

// ToolExecutionEnd: a tool call finished.
type ToolExecutionEnd struct {
	ToolCallID string     `json:"toolCallId"`
	ToolName   string     `json:"toolName"`
	Result     ToolResult `json:"result"`
	IsError    bool       `json:"isError"`
}

// ActiveAction is the scheduler's current work.
type ActiveAction struct {
	Kind  string `json:"kind" enum:"turn,session_command"`
	Phase string `json:"phase" enum:"preparing,committing,running"`
	Label string `json:"label,omitempty"`
}

// SessionActions is the projection of queued and active actions.
type SessionActions struct {
	QueuedCount int64         `json:"queuedCount" kind:"number"`
	Steering    []string      `json:"steering"`
	FollowUps   []string      `json:"followUps"`
	Active      *ActiveAction `json:"active,omitempty"`
}

// SessionActionUpdate reports a change of queued or active actions.
type SessionActionUpdate struct {
	Actions SessionActions `json:"actions"`
}

// CompactionResult describes a finished compaction.
type CompactionResult struct {
	Summary          string          `json:"summary"`
	FirstKeptEntryID string          `json:"firstKeptEntryId"`
	TokensBefore     int64           `json:"tokensBefore" kind:"number"`
	Details          json.RawMessage `json:"details,omitempty"`
}

// CompactionStart opens a compaction.
type CompactionStart struct {
	Reason string `json:"reason" enum:"manual,threshold,overflow"`
}

// CompactionEnd closes it; Result is nil when it failed.
type CompactionEnd struct {
	Reason       string            `json:"reason" enum:"manual,threshold,overflow"`
	Result       *CompactionResult `json:"result,omitempty"`
	Aborted      bool              `json:"aborted"`
	WillRetry    bool              `json:"willRetry"`
	ErrorMessage string            `json:"errorMessage,omitempty"`
}

// AutoRetryStart announces a retry after a transient failure.
type AutoRetryStart struct {
	Attempt      int64  `json:"attempt" kind:"number"`
	MaxAttempts  int64  `json:"maxAttempts" kind:"number"`
	DelayMs      int64  `json:"delayMs" kind:"number"`
	ErrorMessage string `json:"errorMessage"`
}

// AutoRetryEnd closes a retry sequence.
type AutoRetryEnd struct {
	Success    bool   `json:"success"`
	Attempt    int64  `json:"attempt" kind:"number"`
	FinalError string `json:"finalError,omitempty"`
}

// MCPServerStatus says how the start of one configured MCP server went: one per server,
// after the session header and before the first agent_start.
type MCPServerStatus struct {
	Name      string `json:"name" doc:"the server's name in the configuration"`
	Status    string `json:"status" enum:"connected,failed,disabled" doc:"connected: its tools are offered; failed: it could not start (see error); disabled: enabled is false"`
	Transport string `json:"transport" enum:"stdio,http" doc:"how it is reached: a command (stdio) or a URL (streamable HTTP)"`
	Tools     int64  `json:"tools" kind:"integer" doc:"the tools of the server offered to the model"`
	Error     string `json:"error,omitempty" doc:"why it failed"`
}

func (*Header) EventType() string              { return TypeSession }
func (*AgentStart) EventType() string          { return TypeAgentStart }
func (*AgentEnd) EventType() string            { return TypeAgentEnd }
func (*TurnStart) EventType() string           { return TypeTurnStart }
func (*TurnEnd) EventType() string             { return TypeTurnEnd }
func (*MessageStart) EventType() string        { return TypeMessageStart }
func (*MessageUpdate) EventType() string       { return TypeMessageUpdate }
func (*MessageEnd) EventType() string          { return TypeMessageEnd }
func (*ToolExecutionStart) EventType() string  { return TypeToolExecutionStart }
func (*ToolExecutionUpdate) EventType() string { return TypeToolExecutionUpdate }
func (*ToolExecutionEnd) EventType() string    { return TypeToolExecutionEnd }
func (*SessionActionUpdate) EventType() string { return TypeSessionActionUpdate }
func (*CompactionStart) EventType() string     { return TypeCompactionStart }
func (*CompactionEnd) EventType() string       { return TypeCompactionEnd }
func (*AutoRetryStart) EventType() string      { return TypeAutoRetryStart }
func (*AutoRetryEnd) EventType() string        { return TypeAutoRetryEnd }
func (*MCPServerStatus) EventType() string     { return TypeMCPServerStatus }

func appendStrings(dst []byte, ss []string) []byte {
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, s)
	}
	return append(dst, ']')
}
