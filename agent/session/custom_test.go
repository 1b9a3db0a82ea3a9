package session

import (
	"reflect"
	"testing"

	"github.com/basecontext/base-context/codec"
)

// The status a listing shows is decided by what the file records after its last message.
func TestScanStatus(t *testing.T) {
	call := &codec.ToolCall{ID: "c1", Name: "bash", Arguments: []byte(`{}`)}
	user := &codec.UserMessage{Text: "hi", Timestamp: 1}
	answer := func(stop string, content ...codec.Content) codec.Message {
		return &codec.AssistantMessage{Content: append([]codec.Content{}, content...), StopReason: stop, Timestamp: 2}
	}
	result := &codec.ToolResultMessage{ToolCallID: "c1", ToolName: "bash", Content: []codec.Content{}, IsError: true, Timestamp: 3}
	stopped := CustomFields(CustomStopped, nil)
	for _, c := range []struct {
		name    string
		entries []any // codec.Message or the fields of a custom entry
		want    string
	}{
		{"answered", []any{user, answer(codec.StopReasonStop)}, StatusCompleted},
		{"cut at the length limit", []any{user, answer(codec.StopReasonLength)}, StatusCompleted},
		{"provider error", []any{user, answer(codec.StopReasonError)}, StatusFailed},
		{"stopped while answering", []any{user, answer(codec.StopReasonAborted)}, StatusStopped},
		{"killed before the answer", []any{user}, StatusFailed},
		{"killed during the tools: the call has no result", []any{user, answer(codec.StopReasonToolUse, call)}, StatusFailed},
		{"killed after the tools", []any{user, answer(codec.StopReasonToolUse, call), result}, StatusFailed},
		{"stopped during the tools", []any{user, answer(codec.StopReasonToolUse, call), result, stopped}, StatusStopped},
		{"stopped after answering", []any{user, answer(codec.StopReasonStop), stopped}, StatusCompleted},
		{"stopped, then resumed and killed", []any{user, answer(codec.StopReasonToolUse, call), result, stopped, user}, StatusFailed},
		{"undelivered messages after an answer", []any{user, answer(codec.StopReasonStop), UndeliveredFields(KindSteer, "x")}, StatusCompleted},
	} {
		f, err := Create(t.TempDir(), testHeader())
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range c.entries {
			switch e := e.(type) {
			case codec.Message:
				_, err = f.AppendMessage(e)
			case []byte:
				_, err = f.AppendEntry(TypeCustom, e)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		f.Close()
		info, err := Scan(f.Path())
		if err != nil {
			t.Fatal(err)
		}
		if info.Status != c.want {
			t.Errorf("%s: status %s, want %s", c.name, info.Status, c.want)
		}
	}
}

func TestUndelivered(t *testing.T) {
	s := NewMemory()
	s.AppendMessage(&codec.UserMessage{Text: "hi"})
	s.AppendEntry(TypeCustom, UndeliveredFields(KindSteer, "delivered by an earlier resume"))
	s.AppendMessage(&codec.UserMessage{Text: "delivered by an earlier resume"})
	s.AppendMessage(&codec.AssistantMessage{StopReason: codec.StopReasonAborted})
	s.AppendEntry(TypeCustom, UndeliveredFields(KindSteer, "first \"quoted\"\nline"))
	s.AppendEntry(TypeCustom, CustomFields("someone.else", []byte(`{"kind":"steer","text":"not ours"}`)))
	s.AppendModelChange("script", "m")
	s.AppendEntry(TypeCustom, UndeliveredFields(KindFollowUp, "second"))
	s.AppendEntry(TypeCustom, CustomFields(CustomStopped, nil))
	l := &Loaded{Entries: s.Entries()}
	l.link()
	want := []Undelivered{{KindSteer, "first \"quoted\"\nline"}, {KindFollowUp, "second"}}
	if got := l.Undelivered(); !reflect.DeepEqual(got, want) {
		t.Errorf("Undelivered: %+v, want %+v", got, want)
	}
	// Custom entries are not part of the conversation.
	if n := len(l.Context()); n != 3 {
		t.Errorf("context of %d messages, want 3", n)
	}
}

func TestUnansweredCalls(t *testing.T) {
	a, b := &codec.ToolCall{ID: "a", Name: "read"}, &codec.ToolCall{ID: "b", Name: "bash"}
	toolUse := &codec.AssistantMessage{Content: []codec.Content{a, b}, StopReason: codec.StopReasonToolUse}
	resultA := &codec.ToolResultMessage{ToolCallID: "a"}
	aborted := &codec.AssistantMessage{Content: []codec.Content{&codec.ToolCall{ID: "x"}}, StopReason: codec.StopReasonAborted}
	ids := func(calls []*codec.ToolCall) []string {
		var out []string
		for _, c := range calls {
			out = append(out, c.ID)
		}
		return out
	}
	for _, c := range []struct {
		msgs []codec.Message
		want []string
	}{
		{[]codec.Message{toolUse}, []string{"a", "b"}},
		{[]codec.Message{toolUse, resultA}, []string{"b"}},
		{[]codec.Message{toolUse, resultA, &codec.ToolResultMessage{ToolCallID: "b"}}, nil},
		// A failed response's calls are never sent; the calls before it still count.
		{[]codec.Message{toolUse, resultA, aborted}, []string{"b"}},
		{[]codec.Message{&codec.UserMessage{Text: "hi"}}, nil},
	} {
		if got := ids(UnansweredCalls(c.msgs)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("UnansweredCalls: %v, want %v", got, c.want)
		}
	}
}
