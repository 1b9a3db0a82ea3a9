package telemetry

// The names of spans, events and attributes (docs/telemetry.md has them as a table, and
// TestDocsNameEveryAttribute holds the table to this list): the OpenTelemetry GenAI semantic
// conventions' where they have one, a base_context. prefix where they do not.
const (
	AgentName    = "base-context"
	GateToolName = "gate" // the tool name of the gates' executions in the stream

	OpInvokeAgent = "invoke_agent"
	OpChat        = "chat"
	OpExecuteTool = "execute_tool"

	SpanRoot       = OpInvokeAgent + " " + AgentName
	SpanGate       = "gate"
	SpanCompaction = "compaction"

	EventPrompt   = "gen_ai.user.message"
	EventRetry    = "base_context.retry"
	EventRetryEnd = "base_context.retry.end"

	ErrorToolFailed  = "tool_error"
	ErrorToolRefused = "refused"
)

// Attribute keys.
const (
	AttrOperationName       = "gen_ai.operation.name"
	AttrAgentName           = "gen_ai.agent.name"
	AttrConversationID      = "gen_ai.conversation.id"
	AttrProviderName        = "gen_ai.provider.name"
	AttrRequestModel        = "gen_ai.request.model"
	AttrResponseModel       = "gen_ai.response.model"
	AttrResponseID          = "gen_ai.response.id"
	AttrFinishReasons       = "gen_ai.response.finish_reasons"
	AttrInputTokens         = "gen_ai.usage.input_tokens"
	AttrOutputTokens        = "gen_ai.usage.output_tokens"
	AttrCacheReadTokens     = "gen_ai.usage.cache_read.input_tokens"
	AttrCacheCreationTokens = "gen_ai.usage.cache_creation.input_tokens"
	AttrToolName            = "gen_ai.tool.name"
	AttrToolCallID          = "gen_ai.tool.call.id"
	AttrToolType            = "gen_ai.tool.type"
	AttrToolArguments       = "gen_ai.tool.call.arguments"
	AttrToolResult          = "gen_ai.tool.call.result"
	AttrInputMessages       = "gen_ai.input.messages"
	AttrOutputMessages      = "gen_ai.output.messages"
	AttrErrorType           = "error.type"
	AttrExitStatus          = "process.exit.code"

	AttrCwd                    = "base_context.cwd"
	AttrParentSession          = "base_context.parent_session"
	AttrAPI                    = "base_context.api"
	AttrCost                   = "base_context.usage.cost"
	AttrModelCalls             = "base_context.model_calls"
	AttrToolCalls              = "base_context.tool_calls"
	AttrRetries                = "base_context.retries"
	AttrRunStatus              = "base_context.run.status"
	AttrStopReason             = "base_context.stop_reason"
	AttrGateCommand            = "base_context.gate.command"
	AttrCompactionReason       = "base_context.compaction.reason"
	AttrCompactionTokensBefore = "base_context.compaction.tokens_before"
	AttrCompactionAborted      = "base_context.compaction.aborted"
	AttrCompactionWillRetry    = "base_context.compaction.will_retry"
	AttrRetryAttempt           = "base_context.retry.attempt"
	AttrRetryMaxAttempts       = "base_context.retry.max_attempts"
	AttrRetryDelayMs           = "base_context.retry.delay_ms"
	AttrRetrySuccess           = "base_context.retry.success"
	AttrErrorMessage           = "base_context.error.message"
)
