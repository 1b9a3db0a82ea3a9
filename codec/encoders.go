package codec

import "unsafe"

// The encoders of the described types, in one place: a type's AppendJSON is its plan's
// encode (plan.go), the plan compiled from the description once, when the package is
// initialised.
var (
	headerPlan              = planFor[Header]()
	agentStartPlan          = planFor[AgentStart]()
	agentEndPlan            = planFor[AgentEnd]()
	turnStartPlan           = planFor[TurnStart]()
	turnEndPlan             = planFor[TurnEnd]()
	messageStartPlan        = planFor[MessageStart]()
	messageUpdatePlan       = planFor[MessageUpdate]()
	messageEndPlan          = planFor[MessageEnd]()
	updatePlan              = planFor[AssistantMessageEvent]()
	toolResultPlan          = planFor[ToolResult]()
	toolExecutionStartPlan  = planFor[ToolExecutionStart]()
	toolExecutionUpdatePlan = planFor[ToolExecutionUpdate]()
	toolExecutionEndPlan    = planFor[ToolExecutionEnd]()
	sessionActionUpdatePlan = planFor[SessionActionUpdate]()
	compactionStartPlan     = planFor[CompactionStart]()
	compactionEndPlan       = planFor[CompactionEnd]()
	autoRetryStartPlan      = planFor[AutoRetryStart]()
	autoRetryEndPlan        = planFor[AutoRetryEnd]()
	textPlan                = planFor[TextContent]()
	thinkingPlan            = planFor[ThinkingContent]()
	imagePlan               = planFor[ImageContent]()
	toolCallPlan            = planFor[ToolCall]()
	userPlan                = planFor[UserMessage]()
	assistantPlan           = planFor[AssistantMessage]()
	toolResultMessagePlan   = planFor[ToolResultMessage]()
	bashExecutionPlan       = planFor[BashExecutionMessage]()
	customPlan              = planFor[CustomMessage]()
	branchSummaryPlan       = planFor[BranchSummaryMessage]()
	compactionSummaryPlan   = planFor[CompactionSummaryMessage]()
	usagePlan               = planFor[Usage]()
)

func (v *Header) AppendJSON(dst []byte) []byte {
	return headerPlan.encode(dst, unsafe.Pointer(v))
}

func (v *AgentStart) AppendJSON(dst []byte) []byte {
	return agentStartPlan.encode(dst, unsafe.Pointer(v))
}

func (v *AgentEnd) AppendJSON(dst []byte) []byte {
	return agentEndPlan.encode(dst, unsafe.Pointer(v))
}

func (v *TurnStart) AppendJSON(dst []byte) []byte {
	return turnStartPlan.encode(dst, unsafe.Pointer(v))
}

func (v *TurnEnd) AppendJSON(dst []byte) []byte {
	return turnEndPlan.encode(dst, unsafe.Pointer(v))
}

func (v *MessageStart) AppendJSON(dst []byte) []byte {
	return messageStartPlan.encode(dst, unsafe.Pointer(v))
}

func (v *MessageUpdate) AppendJSON(dst []byte) []byte {
	return messageUpdatePlan.encode(dst, unsafe.Pointer(v))
}

func (v *MessageEnd) AppendJSON(dst []byte) []byte {
	return messageEndPlan.encode(dst, unsafe.Pointer(v))
}

func (v *AssistantMessageEvent) AppendJSON(dst []byte) []byte {
	return updatePlan.encode(dst, unsafe.Pointer(v))
}

func (v *ToolResult) AppendJSON(dst []byte) []byte {
	return toolResultPlan.encode(dst, unsafe.Pointer(v))
}

func (v *ToolExecutionStart) AppendJSON(dst []byte) []byte {
	return toolExecutionStartPlan.encode(dst, unsafe.Pointer(v))
}

func (v *ToolExecutionUpdate) AppendJSON(dst []byte) []byte {
	return toolExecutionUpdatePlan.encode(dst, unsafe.Pointer(v))
}

func (v *ToolExecutionEnd) AppendJSON(dst []byte) []byte {
	return toolExecutionEndPlan.encode(dst, unsafe.Pointer(v))
}

func (v *SessionActionUpdate) AppendJSON(dst []byte) []byte {
	return sessionActionUpdatePlan.encode(dst, unsafe.Pointer(v))
}

func (v *CompactionStart) AppendJSON(dst []byte) []byte {
	return compactionStartPlan.encode(dst, unsafe.Pointer(v))
}

func (v *CompactionEnd) AppendJSON(dst []byte) []byte {
	return compactionEndPlan.encode(dst, unsafe.Pointer(v))
}

func (v *AutoRetryStart) AppendJSON(dst []byte) []byte {
	return autoRetryStartPlan.encode(dst, unsafe.Pointer(v))
}

func (v *AutoRetryEnd) AppendJSON(dst []byte) []byte {
	return autoRetryEndPlan.encode(dst, unsafe.Pointer(v))
}

func (v *TextContent) AppendJSON(dst []byte) []byte {
	return textPlan.encode(dst, unsafe.Pointer(v))
}

func (v *ThinkingContent) AppendJSON(dst []byte) []byte {
	return thinkingPlan.encode(dst, unsafe.Pointer(v))
}

func (v *ImageContent) AppendJSON(dst []byte) []byte {
	return imagePlan.encode(dst, unsafe.Pointer(v))
}

func (v *ToolCall) AppendJSON(dst []byte) []byte {
	return toolCallPlan.encode(dst, unsafe.Pointer(v))
}

func (v *UserMessage) AppendJSON(dst []byte) []byte {
	return userPlan.encode(dst, unsafe.Pointer(v))
}

func (v *AssistantMessage) AppendJSON(dst []byte) []byte {
	return assistantPlan.encode(dst, unsafe.Pointer(v))
}

func (v *ToolResultMessage) AppendJSON(dst []byte) []byte {
	return toolResultMessagePlan.encode(dst, unsafe.Pointer(v))
}

func (v *BashExecutionMessage) AppendJSON(dst []byte) []byte {
	return bashExecutionPlan.encode(dst, unsafe.Pointer(v))
}

func (v *CustomMessage) AppendJSON(dst []byte) []byte {
	return customPlan.encode(dst, unsafe.Pointer(v))
}

func (v *BranchSummaryMessage) AppendJSON(dst []byte) []byte {
	return branchSummaryPlan.encode(dst, unsafe.Pointer(v))
}

func (v *CompactionSummaryMessage) AppendJSON(dst []byte) []byte {
	return compactionSummaryPlan.encode(dst, unsafe.Pointer(v))
}

func (v *Usage) AppendJSON(dst []byte) []byte {
	return usagePlan.encode(dst, unsafe.Pointer(v))
}
