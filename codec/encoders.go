package codec

import (
	"sync"
	"unsafe"
)

// The plans of the described types, compiled from the description at the first use of any
// (a command that codes no event, as most filters on most lines, does not pay for them): a
// type's AppendJSON is its plan's encode (plan.go), and the stream's decoders find a
// variant's plan by the value of its discriminator.
type streamPlans struct {
	header              *plan
	agentStart          *plan
	agentEnd            *plan
	turnStart           *plan
	turnEnd             *plan
	messageStart        *plan
	messageUpdate       *plan
	messageEnd          *plan
	update              *plan
	toolResult          *plan
	toolExecutionStart  *plan
	toolExecutionUpdate *plan
	toolExecutionEnd    *plan
	sessionActionUpdate *plan
	compactionStart     *plan
	compactionEnd       *plan
	autoRetryStart      *plan
	autoRetryEnd        *plan
	mcpServerStatus     *plan
	text                *plan
	thinking            *plan
	image               *plan
	toolCall            *plan
	user                *plan
	assistant           *plan
	toolResultMessage   *plan
	bashExecution       *plan
	custom              *plan
	branchSummary       *plan
	compactionSummary   *plan
	usage               *plan

	messages, contents, events map[string]*plan // the variants, by discriminator value
}

var (
	plansOnce sync.Once
	plans     streamPlans
)

// planned is the plans, made at the first call.
func planned() *streamPlans {
	plansOnce.Do(makePlans)
	return &plans
}

func makePlans() {
	plans = streamPlans{
		header:              planFor[Header](),
		agentStart:          planFor[AgentStart](),
		agentEnd:            planFor[AgentEnd](),
		turnStart:           planFor[TurnStart](),
		turnEnd:             planFor[TurnEnd](),
		messageStart:        planFor[MessageStart](),
		messageUpdate:       planFor[MessageUpdate](),
		messageEnd:          planFor[MessageEnd](),
		update:              planFor[AssistantMessageEvent](),
		toolResult:          planFor[ToolResult](),
		toolExecutionStart:  planFor[ToolExecutionStart](),
		toolExecutionUpdate: planFor[ToolExecutionUpdate](),
		toolExecutionEnd:    planFor[ToolExecutionEnd](),
		sessionActionUpdate: planFor[SessionActionUpdate](),
		compactionStart:     planFor[CompactionStart](),
		compactionEnd:       planFor[CompactionEnd](),
		autoRetryStart:      planFor[AutoRetryStart](),
		autoRetryEnd:        planFor[AutoRetryEnd](),
		mcpServerStatus:     planFor[MCPServerStatus](),
		text:                planFor[TextContent](),
		thinking:            planFor[ThinkingContent](),
		image:               planFor[ImageContent](),
		toolCall:            planFor[ToolCall](),
		user:                planFor[UserMessage](),
		assistant:           planFor[AssistantMessage](),
		toolResultMessage:   planFor[ToolResultMessage](),
		bashExecution:       planFor[BashExecutionMessage](),
		custom:              planFor[CustomMessage](),
		branchSummary:       planFor[BranchSummaryMessage](),
		compactionSummary:   planFor[CompactionSummaryMessage](),
		usage:               planFor[Usage](),

		messages: variantPlans(messageTable),
		contents: variantPlans(contentTable),
		events:   variantPlans(eventTable),
	}
}

func (v *Header) AppendJSON(dst []byte) []byte {
	return planned().header.encode(dst, unsafe.Pointer(v))
}

func (v *AgentStart) AppendJSON(dst []byte) []byte {
	return planned().agentStart.encode(dst, unsafe.Pointer(v))
}

func (v *AgentEnd) AppendJSON(dst []byte) []byte {
	return planned().agentEnd.encode(dst, unsafe.Pointer(v))
}

func (v *TurnStart) AppendJSON(dst []byte) []byte {
	return planned().turnStart.encode(dst, unsafe.Pointer(v))
}

func (v *TurnEnd) AppendJSON(dst []byte) []byte {
	return planned().turnEnd.encode(dst, unsafe.Pointer(v))
}

func (v *MessageStart) AppendJSON(dst []byte) []byte {
	return planned().messageStart.encode(dst, unsafe.Pointer(v))
}

func (v *MessageUpdate) AppendJSON(dst []byte) []byte {
	return planned().messageUpdate.encode(dst, unsafe.Pointer(v))
}

func (v *MessageEnd) AppendJSON(dst []byte) []byte {
	return planned().messageEnd.encode(dst, unsafe.Pointer(v))
}

func (v *AssistantMessageEvent) AppendJSON(dst []byte) []byte {
	return planned().update.encode(dst, unsafe.Pointer(v))
}

func (v *ToolResult) AppendJSON(dst []byte) []byte {
	return planned().toolResult.encode(dst, unsafe.Pointer(v))
}

func (v *ToolExecutionStart) AppendJSON(dst []byte) []byte {
	return planned().toolExecutionStart.encode(dst, unsafe.Pointer(v))
}

func (v *ToolExecutionUpdate) AppendJSON(dst []byte) []byte {
	return planned().toolExecutionUpdate.encode(dst, unsafe.Pointer(v))
}

func (v *ToolExecutionEnd) AppendJSON(dst []byte) []byte {
	return planned().toolExecutionEnd.encode(dst, unsafe.Pointer(v))
}

func (v *SessionActionUpdate) AppendJSON(dst []byte) []byte {
	return planned().sessionActionUpdate.encode(dst, unsafe.Pointer(v))
}

func (v *CompactionStart) AppendJSON(dst []byte) []byte {
	return planned().compactionStart.encode(dst, unsafe.Pointer(v))
}

func (v *CompactionEnd) AppendJSON(dst []byte) []byte {
	return planned().compactionEnd.encode(dst, unsafe.Pointer(v))
}

func (v *AutoRetryStart) AppendJSON(dst []byte) []byte {
	return planned().autoRetryStart.encode(dst, unsafe.Pointer(v))
}

func (v *AutoRetryEnd) AppendJSON(dst []byte) []byte {
	return planned().autoRetryEnd.encode(dst, unsafe.Pointer(v))
}

func (v *MCPServerStatus) AppendJSON(dst []byte) []byte {
	return planned().mcpServerStatus.encode(dst, unsafe.Pointer(v))
}

func (v *TextContent) AppendJSON(dst []byte) []byte {
	return planned().text.encode(dst, unsafe.Pointer(v))
}

func (v *ThinkingContent) AppendJSON(dst []byte) []byte {
	return planned().thinking.encode(dst, unsafe.Pointer(v))
}

func (v *ImageContent) AppendJSON(dst []byte) []byte {
	return planned().image.encode(dst, unsafe.Pointer(v))
}

func (v *ToolCall) AppendJSON(dst []byte) []byte {
	return planned().toolCall.encode(dst, unsafe.Pointer(v))
}

func (v *UserMessage) AppendJSON(dst []byte) []byte {
	return planned().user.encode(dst, unsafe.Pointer(v))
}

func (v *AssistantMessage) AppendJSON(dst []byte) []byte {
	return planned().assistant.encode(dst, unsafe.Pointer(v))
}

func (v *ToolResultMessage) AppendJSON(dst []byte) []byte {
	return planned().toolResultMessage.encode(dst, unsafe.Pointer(v))
}

func (v *BashExecutionMessage) AppendJSON(dst []byte) []byte {
	return planned().bashExecution.encode(dst, unsafe.Pointer(v))
}

func (v *CustomMessage) AppendJSON(dst []byte) []byte {
	return planned().custom.encode(dst, unsafe.Pointer(v))
}

func (v *BranchSummaryMessage) AppendJSON(dst []byte) []byte {
	return planned().branchSummary.encode(dst, unsafe.Pointer(v))
}

func (v *CompactionSummaryMessage) AppendJSON(dst []byte) []byte {
	return planned().compactionSummary.encode(dst, unsafe.Pointer(v))
}

func (v *Usage) AppendJSON(dst []byte) []byte {
	return planned().usage.encode(dst, unsafe.Pointer(v))
}
