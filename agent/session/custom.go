package session

import (
	"github.com/tidwall/gjson"

	"github.com/basecontext/base-context/codec"
)

// TypeCustom is the entry type of the original format for what an application records
// beside the conversation; readers that do not know its customType ignore it, and it is
// never part of the context.
//
//	{"type":"custom",…,"customType":…,"data":{…}}
const TypeCustom = "custom"

// The custom entries of base-context.
const (
	// CustomStopped records that a run was stopped (Ctrl-C, SIGTERM, `stop`) at a point
	// where its last message does not show it: during its tools. No data.
	CustomStopped = "base-context.stopped"
	// CustomFailed records that a run failed where its last message does not show it: its
	// stream could not be written (a full disk, a file size limit), which stopped it.
	// Data: {"error"}.
	CustomFailed = "base-context.failed"
	// CustomUndelivered is a message sent to a run (`send`) that the run could not deliver
	// before it ended; the next resume delivers it. Data: {"kind":"steer"|"followUp","text"}.
	CustomUndelivered = "base-context.undelivered"
)

// Kinds of an undelivered message, as `send` names them.
const (
	KindSteer    = "steer"
	KindFollowUp = "followUp"
)

// CustomFields are the members of a custom entry, for Store.AppendEntry; data is a JSON
// value or nil.
func CustomFields(customType string, data []byte) []byte {
	b := []byte(`{"customType":`)
	b = codec.AppendString(b, customType)
	if len(data) > 0 {
		b = append(b, `,"data":`...)
		b = append(b, data...)
	}
	return append(b, '}')
}

// FailedFields are the members of a CustomFailed entry.
func FailedFields(reason string) []byte {
	return CustomFields(CustomFailed, append(codec.AppendString([]byte(`{"error":`), reason), '}'))
}

// UndeliveredFields are the members of a CustomUndelivered entry.
func UndeliveredFields(kind, text string) []byte {
	d := []byte(`{"kind":`)
	d = codec.AppendString(d, kind)
	d = append(d, `,"text":`...)
	d = codec.AppendString(d, text)
	return CustomFields(CustomUndelivered, append(d, '}'))
}

// Undelivered is a message a run accepted but did not deliver.
type Undelivered struct {
	Kind, Text string
}

// Undelivered returns the messages the session's last run left undelivered, in the order
// they were sent: the CustomUndelivered entries on the chain after its last message. A run
// that delivers them appends messages after them, so they are delivered once.
func (l *Loaded) Undelivered() []Undelivered {
	var out []Undelivered
	for i := len(l.Chain) - 1; i >= 0; i-- {
		e := l.Chain[i]
		if e.Type == TypeMessage {
			break
		}
		if e.Type != TypeCustom {
			continue
		}
		v := gjson.ParseBytes(e.Raw)
		if v.Get("customType").Str != CustomUndelivered {
			continue
		}
		d := v.Get("data")
		out = append(out, Undelivered{Kind: d.Get("kind").Str, Text: d.Get("text").Str})
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// UnansweredCalls returns the tool calls of the last assistant message of msgs that no
// tool result after it answers: what a run killed during its tools leaves. Providers
// refuse a conversation with such calls. A failed or aborted message's calls do not count:
// they are never sent.
func UnansweredCalls(msgs []codec.Message) []*codec.ToolCall {
	answered := map[string]bool{}
	for i := len(msgs) - 1; i >= 0; i-- {
		switch m := msgs[i].(type) {
		case *codec.ToolResultMessage:
			answered[m.ToolCallID] = true
		case *codec.AssistantMessage:
			if m.StopReason == codec.StopReasonError || m.StopReason == codec.StopReasonAborted {
				continue
			}
			var out []*codec.ToolCall
			for _, c := range m.ToolCalls() {
				if !answered[c.ID] {
					out = append(out, c)
				}
			}
			return out
		}
	}
	return nil
}
