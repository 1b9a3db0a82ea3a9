package agent

import (
	"strings"
	"unicode/utf8"

	"github.com/basecontext/base-context/agent/provider"
	"github.com/basecontext/base-context/codec"
)

// assembler builds one assistant message from a provider's stream events and emits the
// message_update events of the stream. The message it builds is live: each update's
// snapshot is a pointer to it, which is right because the output chain encodes every event
// before emit returns. Snapshots change only in their content while the message streams:
// response id, usage, stop reason and signatures are kept aside and land in the final
// message, so that a snapshot is exactly the message_start message plus the content so far
// (the delta form relies on it: `filter expand` rebuilds snapshots that way).
type assembler struct {
	msg    *codec.AssistantMessage
	emit   func(codec.Event)
	index  map[int]int   // provider block number → content index
	blocks []*blockState // by content index

	responseID string
	usage      codec.Usage
	hasUsage   bool
	stopReason string
	done       bool
}

// blockState is what the assembler keeps for one content block while it streams.
type blockState struct {
	text strings.Builder // text or thinking so far; the block's string is a view of it
	open bool
	sig  string // a signature, set on the block only in the final message
	// redacted: a thinking block the provider sent encrypted; like the signature it is
	// marked only in the final message, so snapshots stay what their deltas make.
	redacted bool
}

func newAssembler(msg *codec.AssistantMessage, emit func(codec.Event)) *assembler {
	return &assembler{msg: msg, emit: emit, index: map[int]int{}}
}

func (a *assembler) update(ev *codec.AssistantMessageEvent) {
	ev.Partial = a.msg
	a.emit(&codec.MessageUpdate{Update: ev, Message: a.msg})
}

// handle takes one provider event.
func (a *assembler) handle(e provider.Event) {
	switch e.Kind {
	case provider.BlockStart:
		idx := len(a.msg.Content)
		a.index[e.Block] = idx
		a.blocks = append(a.blocks, &blockState{open: true, redacted: e.Redacted})
		switch e.BlockKind {
		case "thinking":
			a.msg.Content = append(a.msg.Content, &codec.ThinkingContent{})
			a.update(&codec.AssistantMessageEvent{Type: codec.UpdateThinkingStart, ContentIndex: int64(idx)})
		case "toolCall":
			tc := &codec.ToolCall{ID: e.ToolCallID, Name: e.ToolName, ArgsSoFar: []byte{}}
			a.msg.Content = append(a.msg.Content, tc)
			a.update(&codec.AssistantMessageEvent{Type: codec.UpdateToolCallStart, ContentIndex: int64(idx), ToolCall: tc})
		default:
			a.msg.Content = append(a.msg.Content, &codec.TextContent{})
			a.update(&codec.AssistantMessageEvent{Type: codec.UpdateTextStart, ContentIndex: int64(idx)})
		}
	case provider.BlockDelta:
		idx, ok := a.index[e.Block]
		if !ok || !a.blocks[idx].open {
			return
		}
		if !utf8.ValidString(e.Delta) {
			// Each delta is escaped on its own in the delta form, so each must be valid
			// UTF-8 on its own for the deltas to add up to the block.
			e.Delta = strings.ToValidUTF8(e.Delta, "\uFFFD")
		}
		switch c := a.msg.Content[idx].(type) {
		case *codec.TextContent:
			b := &a.blocks[idx].text
			b.WriteString(e.Delta)
			c.Text = b.String() // a view of the builder: no copy, so no quadratic cost
			a.update(&codec.AssistantMessageEvent{Type: codec.UpdateTextDelta, ContentIndex: int64(idx), Delta: e.Delta})
		case *codec.ThinkingContent:
			b := &a.blocks[idx].text
			b.WriteString(e.Delta)
			c.Thinking = b.String()
			a.update(&codec.AssistantMessageEvent{Type: codec.UpdateThinkingDelta, ContentIndex: int64(idx), Delta: e.Delta})
		case *codec.ToolCall:
			c.ArgsSoFar = append(c.ArgsSoFar, e.Delta...)
			a.update(&codec.AssistantMessageEvent{Type: codec.UpdateToolCallDelta, ContentIndex: int64(idx), Delta: e.Delta})
		}
	case provider.BlockEnd:
		idx, ok := a.index[e.Block]
		if !ok || !a.blocks[idx].open {
			return
		}
		a.endBlock(idx)
		a.blocks[idx].sig = e.Signature
	case provider.Metadata:
		if e.ResponseID != "" {
			a.responseID = e.ResponseID
		}
		if e.HasUsage {
			a.usage, a.hasUsage = e.Usage, true
		}
	case provider.Done:
		if e.HasUsage {
			a.usage, a.hasUsage = e.Usage, true
		}
		if e.ResponseID != "" {
			a.responseID = e.ResponseID
		}
		a.stopReason = e.StopReason
		a.done = true
	}
}

func (a *assembler) endBlock(idx int) {
	a.blocks[idx].open = false
	switch c := a.msg.Content[idx].(type) {
	case *codec.TextContent:
		a.update(&codec.AssistantMessageEvent{Type: codec.UpdateTextEnd, ContentIndex: int64(idx), Content: c.Text})
	case *codec.ThinkingContent:
		a.update(&codec.AssistantMessageEvent{Type: codec.UpdateThinkingEnd, ContentIndex: int64(idx), Content: c.Thinking})
	case *codec.ToolCall:
		c.Arguments = codec.PartialObject(string(c.ArgsSoFar))
		c.ArgsSoFar = nil
		a.update(&codec.AssistantMessageEvent{Type: codec.UpdateToolCallEnd, ContentIndex: int64(idx), ToolCall: c})
	}
}

// finish closes blocks still open and gives the final message its metadata. err is the
// provider's error, if the response failed; aborted says the run was interrupted.
func (a *assembler) finish(err error, aborted bool) {
	for idx, b := range a.blocks {
		if b.open {
			a.endBlock(idx)
		}
		// The final message gets the signatures, and owns its text (detached from the
		// builders, which are dropped with the assembler).
		switch c := a.msg.Content[idx].(type) {
		case *codec.TextContent:
			c.Text, c.TextSignature = strings.Clone(c.Text), b.sig
		case *codec.ThinkingContent:
			c.Thinking, c.ThinkingSignature, c.Redacted = strings.Clone(c.Thinking), b.sig, b.redacted
		case *codec.ToolCall:
			c.ThoughtSignature = b.sig
		}
	}
	a.msg.ResponseID = a.responseID
	if a.hasUsage {
		a.msg.Usage = a.usage
	}
	switch {
	case aborted:
		a.msg.StopReason = codec.StopReasonAborted
		a.msg.ErrorMessage = "Request was aborted"
	case err != nil:
		a.msg.StopReason = codec.StopReasonError
		a.msg.ErrorMessage = err.Error()
	case !a.done:
		a.msg.StopReason = codec.StopReasonError
		a.msg.ErrorMessage = "the response ended without a finish reason"
	default:
		a.msg.StopReason = a.stopReason
		if a.stopReason == "" {
			a.msg.StopReason = codec.StopReasonStop
		}
	}
}
