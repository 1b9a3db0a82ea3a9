package stages_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/basecontext/base-context/codec"
	"github.com/basecontext/base-context/stages"
)

// cutStream is what a client sees of a run it joined late (attach --from-now) or of a stream
// cut before a message_start: assistant messages whose start, or whose updates too, are
// missing, among whole ones. want lists the messageId each event gets in the delta form (0:
// none, the event is not an assistant message event).
func cutStream() (events []codec.Event, want []int64) {
	snapshot := func(blocks ...codec.Content) *codec.AssistantMessage {
		return &codec.AssistantMessage{Content: blocks, API: "a", Provider: "p", Model: "m", StopReason: "stop", Timestamp: 1}
	}
	add := func(id int64, e codec.Event) {
		events = append(events, e)
		want = append(want, id)
	}
	update := func(id int64, msg *codec.AssistantMessage, u codec.AssistantMessageEvent) {
		u.Partial = msg
		add(id, &codec.MessageUpdate{Update: &u, Message: msg})
	}
	user := &codec.UserMessage{Text: "go on", Timestamp: 1}

	// Joined in the middle of a message: its updates and end are message 1.
	first := snapshot(&codec.TextContent{Text: "abc"})
	update(1, first, codec.AssistantMessageEvent{Type: codec.UpdateTextDelta, Delta: "b"})
	update(1, first, codec.AssistantMessageEvent{Type: codec.UpdateTextDelta, Delta: "c"})
	add(1, &codec.MessageEnd{Message: first})
	// Other messages take no number and close nothing.
	add(0, &codec.MessageStart{Message: user})
	add(0, &codec.MessageEnd{Message: user})
	// A whole message is the next one.
	call := &codec.ToolCall{ID: "call_1", Name: "bash", ArgsSoFar: []byte(`{"command":"ls"`)}
	second := snapshot(&codec.TextContent{Text: "x"}, call)
	add(2, &codec.MessageStart{Message: snapshot()})
	update(2, second, codec.AssistantMessageEvent{Type: codec.UpdateToolCallStart, ContentIndex: 1, ToolCall: call})
	update(2, second, codec.AssistantMessageEvent{Type: codec.UpdateToolCallDelta, ContentIndex: 1, Delta: `{"command":"ls"`})
	add(2, &codec.MessageEnd{Message: second})
	// Cut again: an update after an end opens the next message...
	third := snapshot(&codec.ThinkingContent{Thinking: "hm"})
	update(3, third, codec.AssistantMessageEvent{Type: codec.UpdateThinkingDelta, Delta: "m"})
	add(3, &codec.MessageEnd{Message: third})
	// ...and so does an end alone.
	add(4, &codec.MessageEnd{Message: snapshot(&codec.TextContent{Text: "alone"})})
	add(5, &codec.MessageStart{Message: snapshot()})
	add(5, &codec.MessageEnd{Message: snapshot(&codec.TextContent{Text: "last"})})
	return events, want
}

func messageIDs(t *testing.T, out []byte) []int64 {
	t.Helper()
	var ids []int64
	for _, l := range lines(out) {
		ids = append(ids, codec.Find(l, "messageId").Int(l))
	}
	return ids
}

// Assistant messages without a message_start are numbered as the spec's delta form asks,
// both by `filter deltas` (encoded lines) and in process (typed events, --json-deltas), which
// agree byte for byte, a delta-form toolcall_start's {id, name} included.
func TestDeltasNumbersMessagesWithoutStart(t *testing.T) {
	events, want := cutStream()
	var full bytes.Buffer
	w := codec.NewLineWriter(&full)
	for _, e := range events {
		if err := w.WriteEncoded(e); err != nil {
			t.Fatal(err)
		}
	}
	filtered := deltas(t, full.Bytes())

	var typed bytes.Buffer
	tw := codec.NewLineWriter(&typed)
	st := stages.NewDeltas()
	for _, e := range events {
		if err := st.Push(stages.EventFrame(e), func(f *stages.Frame) error { return f.WriteLine(tw) }); err != nil {
			t.Fatal(err)
		}
	}

	for name, out := range map[string][]byte{"filter": filtered, "in process": typed.Bytes()} {
		if got := messageIDs(t, out); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: messageIds %v, want %v\n%s", name, got, want, out)
		}
	}
	if !bytes.Equal(filtered, typed.Bytes()) {
		t.Errorf("in process and as a filter differ:\n%s\n---\n%s", typed.Bytes(), filtered)
	}
	if !strings.Contains(string(filtered), `{"type":"toolcall_start","contentIndex":1,"toolCall":{"id":"call_1","name":"bash"}}`) {
		t.Errorf("toolcall_start without its {id, name}:\n%s", filtered)
	}
	if again := deltas(t, filtered); !bytes.Equal(again, filtered) {
		t.Error("not idempotent")
	}
}
