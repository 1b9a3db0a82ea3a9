package session

import (
	"encoding/json"

	"github.com/basecontext/base-context/codec"
)

// Replay emits the session as the event stream a client of its runs would have seen: the
// header, then for the messages on the chain the agent_start … agent_end cycles, turns,
// message events and tool executions around them (docs/stream.md "Orders").
//
// It emits the delta form: assistant messages carry messageId and their updates no
// snapshots, one start, one delta holding the whole block and one end per content block.
// stages.Expand turns that into the full form, with the snapshots a live stream has. What
// a session file does not record is not invented: retry events, session_action_update,
// the order in which concurrent tools finished (they end in call order here), and the end
// of a run that was killed (its stream stops where the file does).
func (l *Loaded) Replay(emit func(codec.Event) error) error {
	r := replayer{emit: emit}
	r.send(&l.Header)
	msgs := l.Messages
	for i := 0; i < len(msgs) && r.err == nil; i++ {
		am, ok := msgs[i].(*codec.AssistantMessage)
		if !ok {
			r.begin()
			r.message(msgs[i])
			continue
		}
		r.begin()
		r.assistant(am)
		calls := am.ToolCalls()
		failed := am.StopReason == codec.StopReasonError || am.StopReason == codec.StopReasonAborted
		results := []*codec.ToolResultMessage{}
		if len(calls) > 0 && !failed {
			for i+1 < len(msgs) {
				tr, ok := msgs[i+1].(*codec.ToolResultMessage)
				if !ok {
					break
				}
				results = append(results, tr)
				i++
			}
			for _, c := range calls {
				r.send(&codec.ToolExecutionStart{ToolCallID: c.ID, ToolName: c.Name, Args: args(c)})
			}
			for _, tr := range results {
				r.send(&codec.ToolExecutionEnd{ToolCallID: tr.ToolCallID, ToolName: tr.ToolName,
					Result: codec.ToolResult{Content: tr.Content, Details: tr.Details}, IsError: tr.IsError})
			}
			for _, tr := range results {
				r.message(tr)
			}
		}
		r.send(&codec.TurnEnd{Message: am, ToolResults: results})
		r.inTurn = false
		if len(calls) == 0 || failed || len(results) == 0 {
			// The assistant stopped (or its run did): the cycle ends here.
			r.send(&codec.AgentEnd{Messages: r.added})
			r.inRun = false
		}
	}
	return r.err
}

type replayer struct {
	emit          func(codec.Event) error
	err           error
	inRun, inTurn bool
	added         []codec.Message // the messages of the current cycle, for its agent_end
	assistants    int64           // messageId of the last assistant message
}

func (r *replayer) send(e codec.Event) {
	if r.err == nil {
		r.err = r.emit(e)
	}
}

// begin opens a cycle and a turn unless they are open.
func (r *replayer) begin() {
	if !r.inRun {
		r.inRun = true
		r.added = nil
		r.send(&codec.AgentStart{})
	}
	if !r.inTurn {
		r.inTurn = true
		r.send(&codec.TurnStart{})
	}
}

func (r *replayer) message(m codec.Message) {
	r.send(&codec.MessageStart{Message: m})
	r.send(&codec.MessageEnd{Message: m})
	r.added = append(r.added, m)
}

// assistant emits an assistant message as it streamed: message_start holds what the agent
// knows before the first update (no content, usage, stop reason, error or response id yet),
// each block streams whole, message_end holds the message.
func (r *replayer) assistant(m *codec.AssistantMessage) {
	r.assistants++
	id := r.assistants
	start := &codec.AssistantMessage{Content: []codec.Content{}, API: m.API, Provider: m.Provider,
		Model: m.Model, StopReason: codec.StopReasonStop, Timestamp: m.Timestamp}
	r.send(&codec.MessageStart{MessageID: id, Message: start})
	update := func(ev *codec.AssistantMessageEvent) {
		r.send(&codec.MessageUpdate{MessageID: id, Update: ev})
	}
	for i, c := range m.Content {
		idx := int64(i)
		switch c := c.(type) {
		case *codec.TextContent:
			update(&codec.AssistantMessageEvent{Type: codec.UpdateTextStart, ContentIndex: idx})
			if c.Text != "" {
				update(&codec.AssistantMessageEvent{Type: codec.UpdateTextDelta, ContentIndex: idx, Delta: c.Text})
			}
			update(&codec.AssistantMessageEvent{Type: codec.UpdateTextEnd, ContentIndex: idx, Content: c.Text})
		case *codec.ThinkingContent:
			update(&codec.AssistantMessageEvent{Type: codec.UpdateThinkingStart, ContentIndex: idx})
			if c.Thinking != "" {
				update(&codec.AssistantMessageEvent{Type: codec.UpdateThinkingDelta, ContentIndex: idx, Delta: c.Thinking})
			}
			update(&codec.AssistantMessageEvent{Type: codec.UpdateThinkingEnd, ContentIndex: idx, Content: c.Thinking})
		case *codec.ToolCall:
			update(&codec.AssistantMessageEvent{Type: codec.UpdateToolCallStart, ContentIndex: idx, ToolCall: c})
			update(&codec.AssistantMessageEvent{Type: codec.UpdateToolCallDelta, ContentIndex: idx, Delta: string(args(c))})
			update(&codec.AssistantMessageEvent{Type: codec.UpdateToolCallEnd, ContentIndex: idx, ToolCall: c})
		}
	}
	r.send(&codec.MessageEnd{MessageID: id, Message: m})
	r.added = append(r.added, m)
}

func args(c *codec.ToolCall) json.RawMessage {
	if len(c.Arguments) == 0 {
		return json.RawMessage(`{}`)
	}
	return c.Arguments
}
